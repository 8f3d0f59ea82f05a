"""Which values of a row each thread of a row kernel (softmax, RMSNorm)
holds, and the 16-bit types' widening and rounding, in numpy (no MLIR):
the kernels' layout stated once for the kernels (kernels/rows.py) and the
references.

A row of `width` values is read in 16-byte vectors of `vec` values (4
float32, 8 bf16 or fp16; 1, a value a load, where the width is not whole
vectors): vector k of thread t holds values vec (threads
k + t) + j, j < vec, at the thread's positions vec k + j. Where the row is
not whole vectors of every thread, the last k reaches past its end for the
higher threads: those vectors hold a neutral value (-inf for a maximum, 0
for a sum of squares), load nothing and store nothing.
"""

import numpy as np

VALUES_PER_VECTOR = {"float32": 4, "bfloat16": 8, "float16": 8}
# A 16-bit neutral value's bits, by type and value.
NEUTRAL_BITS = {("bfloat16", 0.0): 0, ("float16", 0.0): 0, ("bfloat16", -np.inf): 0xFF80,
                ("float16", -np.inf): 0xFC00}


class RowLayout:
    """`threads` threads over rows of `width` values of `dtype`."""

    def __init__(self, width: int, threads: int, dtype: str = "float32"):
        if dtype not in VALUES_PER_VECTOR:
            raise ValueError(f"rows are one of {sorted(VALUES_PER_VECTOR)}, not {dtype!r}")
        if width < 1:
            raise ValueError(f"a row of {width} values")
        # A width off whole 16-byte vectors is read a value at a time (its
        # rows do not start on 16 bytes).
        self.vec = VALUES_PER_VECTOR[dtype] if width % VALUES_PER_VECTOR[dtype] == 0 else 1
        if threads % 128 or not 128 <= threads <= 1024:
            raise ValueError(f"{threads} threads: a multiple of 4 warps, at most 1024")
        self.width, self.threads, self.dtype = width, threads, dtype
        self.warps = threads // 32
        self.vectors = -(-width // (self.vec * threads))
        self.per_thread = self.vec * self.vectors

    @property
    def whole(self) -> bool:
        """Every vector of every thread inside the row."""
        return self.width == self.vectors * self.threads * self.vec

    def threads_holding(self, k: int) -> int:
        """How many threads (0 up) hold a vector k inside the row."""
        return min(self.threads, max(0, (self.width - self.vec * self.threads * k) // self.vec))

    def held(self, values, neutral):
        """(rows, width) as each thread's values (rows, threads,
        per_thread), the vectors past the row `neutral`."""
        rows = values.shape[0]
        padded = np.full((rows, self.vectors * self.threads * self.vec), neutral, values.dtype)
        padded[:, :self.width] = values
        return padded.reshape(rows, self.vectors, self.threads, self.vec).transpose(0, 2, 1, 3).reshape(
            rows, self.threads, self.per_thread)

    def unheld(self, held):
        """The inverse of held: (rows, width)."""
        rows = held.shape[0]
        return held.reshape(rows, self.threads, self.vectors, self.vec).transpose(0, 2, 1, 3).reshape(
            rows, -1)[:, :self.width]


def threads_for(width: int, values_per_thread: int) -> int:
    """A row kernel's threads: about `values_per_thread` values each, in
    whole warpgroups of 128, at most 1024."""
    return min(1024, max(128, -(-width // values_per_thread // 128) * 128))


def widen(bits, dtype: str):
    """16-bit values given as uint16 bits, exactly as float32."""
    if dtype == "bfloat16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return bits.view(np.float16).astype(np.float32)


def narrow(values, dtype: str):
    """float32 to 16-bit bits, to nearest even (cvt.rn.bf16x2.f32 or
    cvt.rn.f16x2.f32); no NaN reaches it."""
    if dtype == "float16":
        return values.astype(np.float16).view(np.uint16)
    bits = values.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
