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
S_q) float32 (docs/ops.md)."""

import dataclasses
import math
from typing import Optional, Tuple

import torch

from . import autotune, launch
from .launch import SMS


def check_flags(causal, scale):
    """The types of `causal` (a bool) and `scale` (a number or None)."""
    if not isinstance(causal, bool):
        raise TypeError(f"causal is a bool, got {type(causal).__name__}")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        raise TypeError(f"scale is a float or None, got {type(scale).__name__}")


def check(q, k, v, causal, scale=None):
    """(b, h, s, d) of a valid call, or the error naming the argument."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        launch.tensor(t, name, (4,), (torch.bfloat16, torch.float16))
    launch.same_placement(q=q, k=k, v=v)
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


def attention(q, k, v, causal=False, scale=None, return_lse=False):
    """softmax(q k^T scale) v (module docstring); `scale` 1 / sqrt(D) by
    default; with `return_lse`, (out, lse). Bad arguments raise before
    anything runs, naming the argument."""
    launch.tensors(q=q, k=k, v=v)
    check_flags(causal, scale)
    scale = None if scale is None else float(scale)
    if not launch.eager(q, k, v):
        return (attention_lse_op if return_lse else attention_op)(q, k, v, causal, scale)
    key = ("attention", causal, scale, return_lse, *map(launch.signature_of, (q, k, v)))
    return launch.eager_call(key, lambda: _prepare(q, k, v, causal, scale, return_lse))(q, k, v)


def _prepare(q, k, v, causal, scale, with_lse):
    """The eager path of a signature: where q, k and v are contiguous at
    whole 16 bytes, the plan's launch on them as they are; else the
    implementation (copies first)."""
    run = _AttentionRun(q, k, v, causal, scale, with_lse)
    if not all(t.is_contiguous() and t.data_ptr() % 16 == 0 for t in (q, k, v)):
        impl = attention_lse_impl if with_lse else attention_impl
        return lambda q, k, v: impl(q, k, v, causal, scale)
    config, launchers = launch.prepared(run.signature, q, lambda: run.choose(run.arguments(q, k, v)), run.stages)
    index = q.device.index

    def call(q, k, v):
        args = run.arguments(q, k, v)
        launch.launch_all(launchers, run.operands(config, args), index)
        result = run.results(args[3], args[4:])
        return result if with_lse else result[0]
    return call


def forward(q, k, v, causal, scale, with_lse):
    """The kernel's out (and the log-sum-exp from its rows' m and l), in
    the configuration the autotuner picked for the shape's bucket."""
    run = _AttentionRun(q, k, v, causal, scale, with_lse)
    args = run.arguments(*(launch.aligned(t.contiguous()) for t in (q, k, v)))
    bits = tuple(launch.bits(t) for t in args)  # 16-bit floats as the interpreter's arrays take them
    launch.by_signature(run.signature, q, lambda: run.choose(args), run.stages,
                        lambda config: run.operands(config, bits))
    return run.results(args[3], args[4:])


class _AttentionRun:
    """The kernel of one call signature (checked here): its shape as it
    runs (query heads packed where every row sees the same keys), its spec
    and candidates, and the arrays of a call."""

    def __init__(self, q, k, v, causal, scale, with_lse):
        b, h, s, d = check(q, k, v, causal, scale)
        self.shape, self.d, self.with_lse = (b, h, s), d, with_lse
        scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
        group, s_k = h // k.shape[1], k.shape[2]
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
                       "seq_k": s_k, "dtype": self.dtype, "stats": with_lse}
        self.signature = ("attention", *(tuple(v) if isinstance(v, list) else v for v in self.fields.values()))

    def outputs(self, device):
        """A call's fresh out, as the kernel's heads, and (with the
        log-sum-exp) its rows' statistics: () or (stats,)."""
        heads, rows = self.heads, self.rows
        out = torch.empty((heads, rows, self.d), dtype=self.torch_dtype, device=device)
        stats = (torch.empty((heads, rows, 2), dtype=torch.float32, device=device),) if self.with_lse else ()
        return out, stats

    def arguments(self, q, k, v):
        """The kernel's arrays: q, k and v (contiguous) as its heads, and
        the outputs."""
        d, s_k = self.d, self.s_k
        out, stats = self.outputs(q.device)
        return (q.view(self.heads, self.rows, d), k.view(-1, s_k, d), v.view(-1, s_k, d), out, *stats)

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
        kernel; split, the one of the parts, then their merge."""
        fields, d = self.fields, self.d
        stats = self.with_lse and config.splits == 1

        def build():
            from ..kernels.attention import attention as kernel
            return kernel(self.heads, self.rows, d, fields["causal"], scale=fields["scale"], config=config,
                          group=self.group, seq_k=self.s_k, dtype=self.dtype, stats=stats)
        spec = {"op": "attention", "kernel": "attention", **fields, "stats": stats, "config": dataclasses.asdict(config)}
        if config.splits == 1:
            return [(spec, build)]
        rows = self.heads * self.rows

        def combine():
            from ..kernels.attention_combine import attention_combine
            return attention_combine(config.splits, rows, d, self.dtype, stats=self.with_lse)
        return [(spec, build), ({"op": "attention", "kernel": "attention_combine", "splits": config.splits,
                                 "rows": rows, "d": d, "dtype": self.dtype, "stats": self.with_lse}, combine)]

    def operands(self, config, args):
        """Each kernel's arguments under `config`, from the call's (q, k, v,
        out, *stats): split, the parts' O, m and l in fresh float32
        workspaces between the two kernels."""
        if config.splits == 1:
            return [args]
        splits, d, rows = config.splits, self.d, self.heads * self.rows
        q, k, v, out, *stats = args
        partial = torch.empty((splits * self.heads, self.rows, d), dtype=torch.float32, device=q.device)
        parts = torch.empty((splits * self.heads, self.rows, 2), dtype=torch.float32, device=q.device)
        return [(q, k, v, partial, parts), (partial.view(splits, rows, d), parts.view(splits, rows, 2),
                                            out.view(rows, d), *(s.view(rows, 2) for s in stats))]

    def choose(self, args):
        bucket = [self.d, self.fields["causal"], self.group, autotune.bucket(self.rows), autotune.bucket(self.s_k),
                  autotune.bucket(self.heads)]
        tiles = self.heads * -(-self.rows // 128)
        diagonal = self.s_k - self.rows if self.fields["causal"] else None
        return launch.tuned({"op": "attention", "bucket": bucket, "dtypes": [self.dtype]},
                            candidates(self.d, self.fields["causal"], self.rows, (tiles, self.s_k, diagonal)),
                            self.stages, lambda config: self.operands(config, args), args[0])


def candidates(d, causal, seq, keys=None):
    """The configurations the autotuner times, the kernel's best() for the
    shape first, then the others that won an entry of the attention
    benchmark at this d (AttentionConfig.best's table). `keys`: (query
    tiles, S_k, the causal diagonal or None); where the tiles leave most
    SMs idle (decode), the keys split in parts first (split_counts)."""
    from ..kernels.configs import AttentionConfig
    best = AttentionConfig.best(d, causal, seq)
    table = [AttentionConfig.best(d, c, n) for c in (False, True) for n in (1024, 8192)]
    unsplit = [best] + [c for i, c in enumerate(table) if c != best and c not in table[:i]]
    split = [dataclasses.replace(best, splits=n) for n in split_counts(*keys)] if keys else []
    return split + unsplit


BN = 128  # the attention kernel's keys a step


def split_counts(tiles, s_k, diagonal=None):
    """The parts of the keys worth timing where `tiles` query tiles fill
    at most half the SMs: about as many as fill them, and half that, of 2
    key blocks or more each; causal (`diagonal`, S_k - S_q), only counts
    whose last part starts at a key every row sees (the kernel's rule)."""
    steps = -(-s_k // BN)
    if tiles * 2 > SMS or steps < 4:
        return []
    counts = []
    for target in (SMS // tiles, SMS // tiles // 2):
        chunk = -(-steps // max(2, min(target, steps // 2)))
        n = -(-steps // chunk)
        if n > 1 and n not in counts and (diagonal is None or (n - 1) * chunk * BN <= diagonal):
            counts.append(n)
    return counts


def attention_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                   scale: Optional[float] = None) -> torch.Tensor:
    return forward(q, k, v, causal, scale, with_lse=False)[0]


def attention_lse_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                       scale: Optional[float] = None) -> Tuple[torch.Tensor, torch.Tensor]:
    return forward(q, k, v, causal, scale, with_lse=True)


attention_op = torch.library.custom_op("tile_mlir::attention", mutates_args=())(attention_impl)
attention_lse_op = torch.library.custom_op("tile_mlir::attention_lse", mutates_args=())(attention_lse_impl)


@attention_op.register_fake
def _(q, k, v, causal=False, scale=None):
    check(q, k, v, causal, scale)
    return torch.empty_like(q, memory_format=torch.contiguous_format)


@attention_lse_op.register_fake
def _(q, k, v, causal=False, scale=None):
    b, h, s, _ = check(q, k, v, causal, scale)
    return (torch.empty_like(q, memory_format=torch.contiguous_format),
            q.new_empty((b, h, s), dtype=torch.float32))
