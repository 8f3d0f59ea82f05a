"""tile_mlir.ops.attention(q, k, v, causal=False, scale=None,
return_lse=False): softmax(q k^T scale) v on the attention forward kernel
(tile_mlir.kernels.attention): (B, H, S_q, D) bf16 or fp16 q, (B, H_kv,
S_k, D) k and v, D 64 or 128, any S_q and S_k, H_kv dividing H
(grouped-query attention; H_kv 1: multi-query). Causal with S_k > S_q,
query i sees the keys up to i + S_k - S_q (the bottom-right diagonal, as
FlashAttention and a KV cache take it; torch's `is_causal` is the top-left
one, torch.nn.attention.bias.causal_lower_right this one); causal with
S_k < S_q is refused (its first rows would see no key). With
`return_lse`, also the log-sum-exp of each row's scaled scores, (B, H,
S_q) float32. With `block_table`, k and v are a paged KV cache as vLLM
and FlashInfer keep it, (pages, page_size, H_kv, D), and block_table (B,
W) int32 the pages of each sequence, S_k = W page_size keys each: key i of
sequence b is row i % page_size of page block_table[b, i / page_size]
(docs/ops.md)."""

import dataclasses
import math
from typing import Optional, Tuple

import torch

from . import autotune, launch
from ..kernels.configs import ATTENTION_BM as BM, ATTENTION_BN as BN, split_refusal
from .launch import SMS


def check_flags(causal, scale):
    """The types of `causal` (a bool) and `scale` (a number or None)."""
    if not isinstance(causal, bool):
        raise TypeError(f"causal is a bool, got {type(causal).__name__}")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        raise TypeError(f"scale is a float or None, got {type(scale).__name__}")


def kv_layout(k, block_table):
    """(H_kv, S_k, paging) of k: paging (pages, page_size, table width)
    with a block table, else None."""
    if block_table is None:
        return k.shape[1], k.shape[2], None
    pages, page_size, h_kv, _ = k.shape
    return h_kv, block_table.shape[1] * page_size, (pages, page_size, block_table.shape[1])


def check(q, k, v, causal, scale=None, block_table=None):
    """(b, h, s, d) of a valid call, or the error naming the argument."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        launch.tensor(t, name, (4,), (torch.bfloat16, torch.float16))
    launch.same_placement(q=q, k=k, v=v)
    if block_table is not None:
        return _check_paged(q, k, v, causal, scale, block_table)
    check_flags(causal, scale)
    launch.require(scale is None or (math.isfinite(scale) and scale > 0), "scale",
                   f"{scale}: a positive finite number (the kernel's masked keys are -inf times it)")
    b, h, s, d = q.shape
    launch.require(d in (64, 128), "q", f"head dimension {d}; the kernel takes 64 or 128")
    launch.require(s > 0 and b > 0 and h > 0, "q", f"an empty shape {tuple(q.shape)}")
    launch.require(k.shape == v.shape, "v", f"its shape {tuple(v.shape)} is not k's {tuple(k.shape)}")
    h_kv = k.shape[1]
    launch.require((k.shape[0], k.shape[3]) == (b, d), "k",
                   f"its shape {tuple(k.shape)} does not match q's {tuple(q.shape)} in B and D")
    s_k = k.shape[2]
    launch.require(s_k > 0, "k", "no keys")
    launch.require(not causal or s_k >= s, "k", f"causal with {s} queries and {s_k} keys: the bottom-right "
                   "diagonal takes at least as many keys as queries (the first rows would see no key)")
    launch.require(h_kv >= 1 and h % h_kv == 0, "k", f"its {h_kv} heads do not divide q's {h} (grouped-query "
                   "attention takes H_q a multiple of H_kv)")
    return b, h, s, d


def _check_paged(q, k, v, causal, scale, block_table):
    """check()'s rules for a paged cache k and v (pages, page_size, H_kv,
    D) and its block table (B, W) int32."""
    launch.tensor(block_table, "block_table", (2,), (torch.int32,))
    launch.require(block_table.device == q.device, "block_table", f"on {block_table.device}, q on {q.device}")
    launch.require(k.shape == v.shape, "v", f"its shape {tuple(v.shape)} is not k's {tuple(k.shape)}")
    pages, page_size, h_kv, d = k.shape
    launch.require(page_size >= 8 and page_size & (page_size - 1) == 0, "k", f"pages of {page_size} keys; the "
                   "kernel takes a power of two from 8 (whole 128-byte swizzle atoms)")
    launch.require(pages > 0 and h_kv > 0, "k", f"an empty cache {tuple(k.shape)}")
    launch.require(block_table.shape[0] == q.shape[0] and block_table.shape[1] > 0, "block_table",
                   f"its shape {tuple(block_table.shape)} is not (B, pages a sequence) for q's B {q.shape[0]}")
    launch.require(k.is_contiguous() and v.is_contiguous(), "k", "a paged cache is taken as it is: contiguous")
    b, h, s, d_q = q.shape
    launch.require(d_q == d and d in (64, 128), "k", f"head dimension {d} (q's {d_q}); the kernel takes 64 or 128")
    launch.require(s > 0 and b > 0 and h > 0, "q", f"an empty shape {tuple(q.shape)}")
    launch.require(h % h_kv == 0, "k", f"its {h_kv} heads do not divide q's {h} (grouped-query attention takes H_q "
                   "a multiple of H_kv)")
    s_k = block_table.shape[1] * page_size
    launch.require(not causal or s_k >= s, "k", f"causal with {s} queries and {s_k} keys: the bottom-right "
                   "diagonal takes at least as many keys as queries (the first rows would see no key)")
    return b, h, s, d


def attention(q, k, v, causal=False, scale=None, return_lse=False, block_table=None):
    """softmax(q k^T scale) v (module docstring); `scale` 1 / sqrt(D) by
    default; with `return_lse`, (out, lse); with `block_table`, k and v
    a paged cache. Bad arguments raise before anything runs, naming the
    argument."""
    inputs = (q, k, v) if block_table is None else (q, k, v, block_table)
    if not launch.eager(*inputs):  # the type checks of the eager path are eager()'s own
        launch.tensors(q=q, k=k, v=v, **({} if block_table is None else {"block_table": block_table}))
        check_flags(causal, scale)
        scale = None if scale is None else float(scale)
        if torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v)):
            # The backward (ops/attention_grad.py) takes the forward's
            # log-sum-exp: the op that returns it is the one autograd follows.
            out, lse = attention_lse_op(q, k, v, causal, scale, block_table)
            return (out, lse) if return_lse else out
        return (attention_lse_op if return_lse else attention_op)(q, k, v, causal, scale, block_table)
    check_flags(causal, scale)
    scale = None if scale is None else float(scale)
    key = ("attention", causal, scale, return_lse, *map(launch.signature_of, inputs))
    return launch.eager_call(key, lambda: _prepare(inputs, causal, scale, return_lse))(*inputs)


def _prepare(inputs, causal, scale, with_lse):
    """The eager path of a signature: where q, k and v are contiguous at
    whole 16 bytes, the plan's launch on them as they are; else the
    implementation (copies first)."""
    q, k, v, table = (*inputs, None)[:4]
    run = _AttentionRun(q, k, v, causal, scale, with_lse, table)
    if not all(t.is_contiguous() and t.data_ptr() % 16 == 0 for t in inputs):
        impl = attention_lse_impl if with_lse else attention_impl
        return lambda q, k, v, table=None: impl(q, k, v, causal, scale, table)
    config, launchers = launch.prepared(run.signature, q, lambda: run.choose(run.arguments(*inputs)), run.stages)
    index = q.device.index

    def call(*inputs):
        args = run.eager_arguments(*inputs)
        launch.launch_all(launchers, run.operands(config, args), index)
        return run.results(args[4], args[5:]) if with_lse else args[4]
    return call


def forward(q, k, v, causal, scale, with_lse, block_table=None):
    """The kernel's out (and the log-sum-exp from its rows' m and l), in
    the configuration the autotuner picked for the shape's bucket."""
    run = _AttentionRun(q, k, v, causal, scale, with_lse, block_table)
    inputs = (q, k, v) if block_table is None else (q, k, v, block_table)
    args = run.arguments(*(launch.aligned(t.contiguous()) for t in inputs))
    # 16-bit floats as the interpreter's arrays take them.
    bits = tuple(launch.bits(t) if t is not None and t.dtype in launch.BITS else t for t in args)
    launch.by_signature(run.signature, q, lambda: run.choose(args), run.stages,
                        lambda config: run.operands(config, bits))
    return run.results(args[4], args[5:])


class _AttentionRun:
    """The kernel of one call signature (checked here): its shape as it
    runs (query heads packed where every row sees the same keys), its spec
    and candidates, and the arrays of a call."""

    def __init__(self, q, k, v, causal, scale, with_lse, block_table=None):
        b, h, s, d = check(q, k, v, causal, scale, block_table)
        self.shape, self.d, self.with_lse = (b, h, s), d, with_lse
        scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
        h_kv, s_k, self.paging = kv_layout(k, block_table)
        group, self.h_kv = h // h_kv, h_kv
        # A key-value head's query heads packed as the rows of one head where
        # every row sees the same keys (not causal, or one query): heads
        # h_kv G + g are adjacent, so (B H, S, D) is (B H_kv, G S, D) as it
        # is; each row's arithmetic is the same, and G S rows fill the tiles
        # that S (decode: 1) would leave nearly empty.
        causal_run = causal and s > 1  # one causal query sees every key (the bottom-right diagonal): no mask
        pack = group > 1 and not causal_run
        self.heads, self.rows, self.group = (b * h // group, group * s, 1) if pack else (b * h, s, group)
        self.s_k, self.dtype, self.torch_dtype = s_k, launch.NAMES[q.dtype], q.dtype
        self.fields = {"shape": [self.heads, self.rows, d], "causal": causal_run, "scale": scale, "group": self.group,
                       "seq_k": s_k, "dtype": self.dtype, "stats": with_lse,
                       **({"paging": list(self.paging)} if self.paging else {})}
        self.signature = ("attention", *(tuple(v) if isinstance(v, list) else v for v in self.fields.values()))

    def stats(self, q):
        """A call's fresh statistics of the rows (with the log-sum-exp):
        () or (stats,)."""
        return (q.new_empty((self.heads, self.rows, 2), dtype=torch.float32),) if self.with_lse else ()

    def arguments(self, q, k, v, table=None):
        """The kernel's arrays: q, k and v (contiguous) as its heads (a
        paged cache as it is), the block table or None, and the outputs
        (out, fresh, and the statistics)."""
        d, s_k = self.d, self.s_k
        if self.paging is None:
            k, v = k.view(-1, s_k, d), v.view(-1, s_k, d)
        return (q.view(self.heads, self.rows, d), k, v, table, q.new_empty((self.heads, self.rows, d)),
                *self.stats(q))

    def eager_arguments(self, q, k, v, table=None):
        """arguments() for a launch, which reads only addresses: q, k, v
        and out (q's shape) as they are, contiguous (a view costs a
        microsecond or more of the host's time a call)."""
        return (q, k, v, table, torch.empty_like(q), *self.stats(q))

    def results(self, out, stats):
        """(out, lse or None) as the op returns them."""
        b, h, s = self.shape
        if not self.with_lse:
            return out.view(b, h, s, self.d), None
        # m is in base 2 (the scores' maximum times scale log2 e): the row's
        # log-sum-exp is (m + log2 l) ln 2.
        lse = (stats[0][..., 0] + torch.log2(stats[0][..., 1])) * math.log(2.0)
        return out.view(b, h, s, self.d), lse.view(b, h, s)

    def stages(self, config):
        """(spec, build) of each kernel `config` launches: the attention
        kernel; split, the one of the parts, then their merge (or, in one
        launch, the kernel that merges them itself)."""
        fields, d = self.fields, self.d
        stats = self.with_lse and (config.splits == 1 or config.one_launch)

        def build():
            from ..kernels.attention import attention as kernel
            return kernel(self.heads, self.rows, d, fields["causal"], scale=fields["scale"], config=config,
                          group=self.group, seq_k=self.s_k, dtype=self.dtype, stats=stats, paging=self.paged_keys())
        spec = {"op": "attention", "kernel": "attention", **fields, "stats": stats, "config": dataclasses.asdict(config)}
        if config.splits == 1 or config.one_launch:
            return [(spec, build)]
        rows = self.heads * self.rows

        def combine():
            from ..kernels.attention_combine import attention_combine
            return attention_combine(config.splits, rows, d, self.dtype, stats=self.with_lse)
        return [(spec, build), ({"op": "attention", "kernel": "attention_combine", "splits": config.splits,
                                 "rows": rows, "d": d, "dtype": self.dtype, "stats": self.with_lse}, combine)]

    def paged_keys(self):
        """The kernel's PagedKeys, or None (contiguous k and v)."""
        if self.paging is None:
            return None
        from ..kernels.attention_keys import PagedKeys
        pages, page_size, width = self.paging
        return PagedKeys(pages, page_size, self.h_kv, self.shape[0], width, self.s_k)

    def operands(self, config, args):
        """Each kernel's arguments under `config`, from the call's (q, k, v,
        table or None, out, *stats): split, the parts' O, m and l in fresh
        float32 workspaces between the two kernels."""
        q, k, v, table, out, *stats = args
        inputs = (q, k, v) if table is None else (q, k, v, table)
        if config.splits == 1:
            return [(*inputs, out, *stats)]
        splits, d, rows = config.splits, self.d, self.heads * self.rows
        partial = q.new_empty((splits * self.heads, self.rows, d), dtype=torch.float32)
        parts = q.new_empty((splits * self.heads, self.rows, 2), dtype=torch.float32)
        if config.one_launch:
            counters = launch.counters(q.device, self.heads * -(-self.rows // BM) * 2)
            return [(*inputs, partial, parts, out, counters, *stats)]
        return [(*inputs, partial, parts), (partial.view(splits, rows, d), parts.view(splits, rows, 2),
                                            out.view(rows, d), *(s.view(rows, 2) for s in stats))]

    def choose(self, args):
        bucket = [self.d, self.fields["causal"], self.group, autotune.bucket(self.rows), autotune.bucket(self.s_k),
                  autotune.bucket(self.heads)]
        tiles = self.heads * -(-self.rows // BM)
        diagonal = self.s_k - self.rows if self.fields["causal"] else None
        paged = {"paging": list(self.paging[1:])} if self.paging else {}  # page size and table width
        return launch.tuned({"op": "attention", "bucket": bucket, "dtypes": [self.dtype], **paged},
                            candidates(self.d, self.fields["causal"], self.rows, (tiles, self.s_k, diagonal)),
                            self.stages, lambda config: self.operands(config, args), args[0])


def candidates(d, causal, seq, keys=None):
    """The configurations the autotuner times, the kernel's best() for the
    shape first, then the others that won an entry of the attention
    benchmark at this d (AttentionConfig.best's table). `keys`: (query
    tiles, S_k, the causal diagonal or None); where the tiles leave most
    SMs idle (decode), the keys split in parts first (split_counts), each
    merged by a second kernel or in the same launch."""
    from ..kernels.configs import AttentionConfig
    best = AttentionConfig.best(d, causal, seq)
    table = [AttentionConfig.best(d, c, n) for c in (False, True) for n in (1024, 8192)]
    unsplit = [best] + [c for i, c in enumerate(table) if c != best and c not in table[:i]]
    split = [dataclasses.replace(best, splits=n, one_launch=one) for n in (split_counts(*keys) if keys else ())
             for one in (False, True)]
    return split + unsplit


def split_counts(tiles, s_k, diagonal=None):
    """The parts of the keys worth timing where `tiles` query tiles fill
    at most half the SMs: about as many as fill them, and half that, of 2
    key blocks or more each, that the kernel takes (split_refusal: causal,
    `diagonal` S_k - S_q)."""
    steps = -(-s_k // BN)
    if tiles * 2 > SMS or steps < 4:
        return []
    counts = []
    for target in (SMS // tiles, SMS // tiles // 2):
        chunk = -(-steps // max(2, min(target, steps // 2)))
        n = -(-steps // chunk)
        if n > 1 and n not in counts and split_refusal(s_k, n, diagonal) is None:
            counts.append(n)
    return counts


def attention_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                   scale: Optional[float] = None, block_table: Optional[torch.Tensor] = None) -> torch.Tensor:
    return forward(q, k, v, causal, scale, False, block_table)[0]


def attention_lse_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                       scale: Optional[float] = None,
                       block_table: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
    return forward(q, k, v, causal, scale, True, block_table)


attention_op = torch.library.custom_op("tile_mlir::attention", mutates_args=())(attention_impl)
attention_lse_op = torch.library.custom_op("tile_mlir::attention_lse", mutates_args=())(attention_lse_impl)


@attention_op.register_fake
def _(q, k, v, causal=False, scale=None, block_table=None):
    check(q, k, v, causal, scale, block_table)
    return torch.empty_like(q, memory_format=torch.contiguous_format)


@attention_lse_op.register_fake
def _(q, k, v, causal=False, scale=None, block_table=None):
    b, h, s, _ = check(q, k, v, causal, scale, block_table)
    return (torch.empty_like(q, memory_format=torch.contiguous_format),
            q.new_empty((b, h, s), dtype=torch.float32))
