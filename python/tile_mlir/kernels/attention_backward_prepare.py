"""What the attention backward (attention_backward.py) reads, made in one
pass: for each query row of O and dO (bh, seq, d), bf16 or fp16,

- its (lse2, D) pair: lse2 = lse log2 e (the forward's log-sum-exp in
  base 2, one rounding) and D = rowsum(dO O) in float32, less the
  log-sum-exp's gradient where one is given (d lse_i / d s_ij = P_ij), in
  Rows (bh, 2 x seq rounded up to even): an odd seq's last pair (past
  the last query) written as zeros, which the backward reads harmlessly;
- its row of DQ (bh, seq, d) float32 set to zero (the backward adds to it).

In place of torch's seven kernels. d / 8 threads a row, each 8 values (a
16-byte load of O and of dO), widened exactly; D is each thread's 8
products summed in order (fma.rn.f32 from the first product), then
summed across the row's threads by a butterfly (shfl.sync.bfly, halves
first), so every thread of the row holds it; the row's first thread
stores the pair.
"""

import math

from .. import script as T
from ..pipelining import butterfly
from .rows import KINDS, widen

THREADS = 256
LOG2E = math.log2(math.e)


def attention_backward_prepare(bh: int, seq: int, d: int, dtype: str = "bfloat16", grad_lse: bool = False):
    """The kernel of (O, dO, LSE, [GradLSE,] Rows, DQ): O and dO (bh,
    seq, d) bits (uint16), LSE and GradLSE (bh, seq, 1) float32, Rows (bh,
    2 (seq + seq % 2)) and DQ (bh, seq, d) float32 (module docstring)."""
    if dtype not in KINDS:
        raise ValueError(f"O and dO are one of {sorted(KINDS)}, not {dtype!r}")
    if d not in (64, 128):
        raise ValueError(f"head dimension {d}: the preparation takes 64 or 128")
    if min(bh, seq) < 1:
        raise ValueError(f"{bh} heads of {seq} queries: an empty preparation")
    rows = seq + seq % 2
    per_row = d // 8
    blocks = -(-bh * rows * per_row // THREADS)
    o_t = T.Tensor((bh, seq, d), "uint16")
    lse_t = T.Tensor((bh, seq, 1), "float32")
    rows_t = T.Tensor((bh, 2 * rows), "float32")
    dq_t = T.Tensor((bh, seq, d), "float32")
    shape = (bh, seq, d, dtype)

    if grad_lse:
        @T.function
        def attention_backward_prepare(O: o_t, dO: o_t, LSE: lse_t, GradLSE: lse_t, Rows: rows_t, DQ: dq_t):
            _body(shape, blocks, (O, dO, LSE, GradLSE), (Rows, DQ))
        return attention_backward_prepare

    @T.function
    def attention_backward_prepare(O: o_t, dO: o_t, LSE: lse_t, Rows: rows_t, DQ: dq_t):
        _body(shape, blocks, (O, dO, LSE, None), (Rows, DQ))
    return attention_backward_prepare


def _body(shape, blocks, inputs, outputs):
    bh, seq, d, dtype = shape
    O, dO, LSE, GradLSE = inputs
    Rows, DQ = outputs
    T.device_entry(launch=T.cuda.LaunchConfig(grid=blocks, block=THREADS))
    rows, per_row = seq + seq % 2, d // 8
    t, bid = T.thread_id(), T.block_id()
    flat = bid * (THREADS // per_row) + t // per_row  # the thread's row of all heads' padded rows
    j = t % per_row  # its 8 values of the row: from 8 j
    head, i = T.minimum(flat // rows, bh - 1), flat % rows
    live = (flat < bh * rows) & (i < seq)  # a query's row (not past the last, nor the padding)
    qi = T.minimum(i, seq - 1)
    o, do = T.alloc_local((1, 4), "uint32"), T.alloc_local((1, 4), "uint32")
    for words, tensor in ((o, O), (do, dO)):
        T.cuda.tile.apply(T.ptx["mov.b32"], words.reshape((4, 1)), T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], words, tensor[head, qi:qi + 1, 8 * j:8 * j + 8].view("uint32"),
                          pred=live, preserve_dst=True)
    a, b = (widen(words, dtype).reshape((8, 1)) for words in (o, do))
    total, partner = T.alloc_local((1, 1), "float32"), T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], total, a[0:1], b[0:1])
    for e in range(1, 8):
        T.cuda.tile.apply(T.ptx["fma.rn.f32"], total, a[e:e + 1], b[e:e + 1], total)
    butterfly(total, "add.rn.f32", partner, lanes=per_row)
    pair = T.alloc_local((1, 2), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], pair.view("uint32").reshape((2, 1)), T.uint32(0))
    T.cuda.tile.apply(T.ptx["ld.global.f32"], pair[0:1, 0:1], LSE[head, qi:qi + 1], pred=live, preserve_dst=True)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], pair[0:1, 0:1], pair[0:1, 0:1], T.float32(LOG2E))
    T.cuda.tile.apply(T.ptx["mov.b32"], pair[0:1, 1:2].view("uint32"), total.view("uint32"))
    if GradLSE is not None:
        T.cuda.tile.apply(T.ptx["mov.b32"], partner.view("uint32"), T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.global.f32"], partner, GradLSE[head, qi:qi + 1], pred=live, preserve_dst=True)
        T.cuda.tile.apply(T.ptx["sub.rn.f32"], pair[0:1, 1:2], pair[0:1, 1:2], partner)
    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Rows[head, 2 * i:2 * i + 2].reshape((1, 2)), pair,
                      pred=(flat < bh * rows) & (j == 0))
    zeros = T.alloc_local((2, 4), "float32")
    T.cuda.tile.apply(T.ptx["mov.b32"], zeros.view("uint32").reshape((8, 1)), T.uint32(0))
    for h in range(2):
        T.cuda.tile.apply(T.ptx["st.global.v4.f32"], DQ[head, qi:qi + 1, 8 * j + 4 * h:8 * j + 4 * h + 4],
                          zeros[h:h + 1], pred=live)
