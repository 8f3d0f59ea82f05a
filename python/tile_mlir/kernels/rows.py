"""A thread's values of one row in float32 registers, for the row kernels
(softmax, RMSNorm), on the layout reference/rows.py states: 16-byte
vectors, vector k of thread t holding values vec (threads k + t) + j.
Loads widen 16-bit values exactly (bf16: a shift and a mask; fp16:
cvt.f32.f16); stores round once (cvt.rn.bf16x2.f32 or cvt.rn.f16x2.f32).
Where the row is not whole vectors of every thread, a vector past its end
holds `neutral` (set by mov, the load predicated off) and stores nothing.
A width off whole vectors is read and written a value at a time
(ValueRow: ld.global.f32 or .b16, cvt.f32.bf16 or .f16, and back).
"""

import struct

from .. import script as T
from .cache_hints import VectorAccess
from .reference.rows import NEUTRAL_BITS, RowLayout

KINDS = {"bfloat16": "bf16", "float16": "f16"}


def _f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def widen(words, dtype):
    """Words of 16-bit pairs ((vectors, 4) uint32 registers) as float32
    (vectors, 4, 2), exactly: [.., 0] the low half, [.., 1] the high one
    (bf16: a shift and a mask; fp16: cvt.f32.f16)."""
    vectors = words.shape[0]
    wide = T.alloc_local((vectors, 4, 2), "float32")
    halves = words.reshape((vectors, 4, 1))
    if dtype == "bfloat16":
        T.cuda.tile.apply(T.ptx["shl.b32"], wide[:, :, 0:1].view("uint32"), halves, T.uint32(16))
        T.cuda.tile.apply(T.ptx["and.b32"], wide[:, :, 1:2].view("uint32"), halves, T.uint32(0xFFFF0000))
    else:
        f16 = words.view("float16").reshape((vectors, 4, 2))
        for h in range(2):
            T.cuda.tile.apply(T.ptx["cvt.f32.f16"], wide[:, :, h:h + 1], f16[:, :, h:h + 1])
    return wide


class HeldRow:
    """A row's held values under `layout`; float32 loads and stores go
    through `access` (a VectorAccess: its L2 policies), 16-bit ones are
    plain."""

    def __init__(self, layout: RowLayout, access: VectorAccess = None):
        self.layout, self.access = layout, access or VectorAccess(layout.vectors)
        self.f32 = layout.dtype == "float32"
        shape = (layout.vectors, 4)
        self.words = T.alloc_local(shape, "float32" if self.f32 else "uint32")

    def _vectors(self, row):
        """Each vector's source (a (1, 4) word view of the row) and the
        threads that hold it inside the row."""
        lay = self.layout
        words = row if self.f32 else row.view("uint32")
        by_vector = words.reshape((lay.width // lay.vec, 4))
        return [(by_vector, lay.threads * k, lay.threads_holding(k)) for k in range(lay.vectors)]

    def _move(self, op, t, row, load):
        """Loads (or stores) every vector: one access of all of them where
        the row is whole (the view (vectors, threads, 4)); else one a
        vector, predicated where some threads' fall past the row."""
        lay = self.layout
        if lay.whole:
            words = row if self.f32 else row.view("uint32")
            place = words.reshape((lay.vectors, lay.threads, 4))[:, t]
            op(self.words, place) if load else op(place, self.words)
            return
        for k, (by_vector, first, holding) in enumerate(self._vectors(row)):
            if holding == 0:
                continue
            place = by_vector[first + t:first + t + 1]
            pred = {} if holding == lay.threads else {"pred": t < holding, "preserve_dst": load}
            op(self.words[k:k + 1], place, **pred) if load else op(place, self.words[k:k + 1], **pred)

    def load(self, row, t, neutral: float):
        """The thread's values (per_thread, 1) float32."""
        lay = self.layout
        if not lay.whole:
            bits = _f32_bits(neutral) if self.f32 else NEUTRAL_BITS[(lay.dtype, neutral)] * 0x10001
            T.cuda.tile.apply(T.ptx["mov.b32"], self.words.view("uint32").reshape((lay.vectors * 4, 1)),
                              T.uint32(bits))
        if self.f32:
            self._move(self.access.load, t, row, load=True)
            return self.words.reshape((lay.per_thread, 1))
        self._move(lambda dst, src, **kw: T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], dst, src, **kw), t, row,
                   load=True)
        return self._widen()

    def store(self, row, t, values):
        """`values` (per_thread, 1) float32 (the tile load returned, for
        float32) stored to the thread's places of the row."""
        if self.f32:
            self._move(self.access.store, t, row, load=False)
            return
        lay = self.layout
        pairs = values.reshape((lay.vectors, 4, 2))
        T.cuda.tile.apply(T.ptx[f"cvt.rn.{KINDS[lay.dtype]}x2.f32"], self.words.reshape((lay.vectors, 4, 1)),
                          pairs[:, :, 1:2], pairs[:, :, 0:1])
        self._move(lambda dst, src, **kw: T.cuda.tile.apply(T.ptx["st.global.v4.b32"], dst, src, **kw), t, row,
                   load=False)

    def _widen(self):
        """The words' 16-bit halves as float32 (per_thread, 1), value 8 k +
        2 i + h from vector k's word i (widen)."""
        return widen(self.words, self.layout.dtype).reshape((self.layout.per_thread, 1))


class ValueRow:
    """A row's held values under a layout of one value a load (`vec` 1: a
    width off whole 16-byte vectors), widened exactly to float32 and
    rounded once on the way back; the values past the row's end hold
    `neutral` and store nothing."""

    def __init__(self, layout: RowLayout):
        if layout.vec != 1:
            raise ValueError(f"ValueRow reads a value at a time, not vectors of {layout.vec}")
        self.layout, self.f32 = layout, layout.dtype == "float32"
        self.values = T.alloc_local((layout.vectors, 1), "float32")
        self.raw = None if self.f32 else T.alloc_local((layout.vectors, 1), "uint16")

    def _places(self, row, t):
        """(k, the thread's place of value k, the predicate keywords)."""
        lay = self.layout
        for k in range(lay.vectors):
            holding = lay.threads_holding(k)
            if holding:
                place = row.reshape((lay.width, 1))[lay.threads * k + t:lay.threads * k + t + 1]
                yield k, place, ({} if holding == lay.threads else {"pred": t < holding})

    def load(self, row, t, neutral: float):
        """The thread's values (vectors, 1) float32."""
        T.cuda.tile.apply(T.ptx["mov.b32"], self.values.view("uint32"), T.uint32(_f32_bits(neutral)))
        for k, place, pred in self._places(row, t):
            keep = dict(pred, preserve_dst=True) if pred else {}
            if self.f32:
                T.cuda.tile.apply(T.ptx["ld.global.f32"], self.values[k:k + 1], place, **keep)
                continue
            T.cuda.tile.apply(T.ptx["ld.global.b16"], self.raw[k:k + 1], place, **keep)
            halves = self.raw[k:k + 1].view(self.layout.dtype)
            T.cuda.tile.apply(T.ptx[f"cvt.f32.{KINDS[self.layout.dtype]}"], self.values[k:k + 1], halves, **keep)
        return self.values

    def store(self, row, t, values):
        """`values` (vectors, 1) float32 stored to the thread's places."""
        for k, place, pred in self._places(row, t):
            if self.f32:
                T.cuda.tile.apply(T.ptx["st.global.f32"], place, values[k:k + 1], **pred)
                continue
            T.cuda.tile.apply(T.ptx[f"cvt.rn.{KINDS[self.layout.dtype]}.f32"],
                              self.raw[k:k + 1].view(self.layout.dtype), values[k:k + 1])
            T.cuda.tile.apply(T.ptx["st.global.b16"], place, self.raw[k:k + 1], **pred)


def held_row(layout: RowLayout, config=None):
    """The row's loader and storer: by 16-byte vectors (float32 ones with
    `config`'s L2 policies, x_priority and out_priority), or a value at a
    time."""
    if layout.vec == 1:
        return ValueRow(layout)
    policies = config is not None and layout.dtype == "float32"
    return HeldRow(layout, VectorAccess(layout.vectors, config.x_priority, config.out_priority) if policies else None)
