"""tile_mlir.ops.attention(q, k, v, causal=False, scale=None): softmax(q k^T
scale) v on the attention forward kernel (tile_mlir.kernels.attention):
(B, H, S, D) bf16 or fp16 tensors, D 64 or 128, S a multiple of 128 (of 256
causal), K and V of H_kv heads dividing Q's H (grouped-query attention;
H_kv 1: multi-query), and of S_k keys (a multiple of 128; S_q != S_k not
causal only). Other shapes: not yet (docs/ops.md)."""

import math
from typing import Optional

import torch

from . import launch


def check(q, k, v, causal):
    """(b, h, s, d) of a valid call, or the error naming the argument."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        launch.tensor(t, name, (4,), (torch.bfloat16, torch.float16))
    launch.same_placement(q=q, k=k, v=v)
    if not isinstance(causal, bool):
        raise TypeError(f"causal is a bool, got {type(causal).__name__}")
    b, h, s, d = q.shape
    launch.require(d in (64, 128), "q", f"head dimension {d}; the kernel takes 64 or 128")
    launch.require(s % 128 == 0 and s > 0, "q", f"sequence {s} is not a multiple of 128 (tails: not yet)")
    launch.require(not causal or s % 256 == 0, "q", f"causal, sequence {s} is not a multiple of 256 (the "
                   "kernel pairs a head's tiles of 128 rows)")
    launch.require(k.shape == v.shape, "v", f"its shape {tuple(v.shape)} is not k's {tuple(k.shape)}")
    h_kv = k.shape[1]
    launch.require((k.shape[0], k.shape[3]) == (b, d), "k",
                   f"its shape {tuple(k.shape)} does not match q's {tuple(q.shape)} in B and D")
    s_k = k.shape[2]
    launch.require(s_k % 128 == 0 and s_k > 0, "k", f"{s_k} keys is not a multiple of 128 (tails: not yet)")
    launch.require(not causal or s_k == s, "k", f"causal with {s} queries and {s_k} keys (S_q != S_k causal: "
                   "not yet)")
    launch.require(h_kv >= 1 and h % h_kv == 0, "k", f"its {h_kv} heads do not divide q's {h} (grouped-query "
                   "attention takes H_q a multiple of H_kv)")
    return b, h, s, d


def attention(q, k, v, causal=False, scale=None):
    """softmax(q k^T scale) v (module docstring); `scale` 1 / sqrt(D) by
    default. Bad arguments raise before anything runs, naming the
    argument."""
    check(q, k, v, causal)
    if scale is not None and not isinstance(scale, (int, float)):
        raise TypeError(f"scale is a float or None, got {type(scale).__name__}")
    return attention_op(q, k, v, causal, None if scale is None else float(scale))


def attention_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                   scale: Optional[float] = None) -> torch.Tensor:
    b, h, s, d = check(q, k, v, causal)
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    group, s_k = h // k.shape[1], k.shape[2]
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    rows = [t.contiguous().view(-1, d) for t in (q, k, v)]

    def build():
        from ..kernels.attention import attention as forward
        return forward(b * h, s, d, causal, scale=scale, group=group, seq_k=None if s_k == s else s_k,
                       dtype=dtype)
    dtype = launch.NAMES[q.dtype]
    launch.run({"op": "attention", "kernel": "attention", "shape": [b * h, s, d], "causal": causal,
                "scale": scale, "group": group, "seq_k": s_k, "dtype": dtype}, build, *(launch.bits(t) for t in rows),
               launch.bits(out.view(b * h * s, d)))
    return out


attention_op = torch.library.custom_op("tile_mlir::attention", mutates_args=())(attention_impl)


@attention_op.register_fake
def _(q, k, v, causal=False, scale=None):
    check(q, k, v, causal)
    return torch.empty_like(q, memory_format=torch.contiguous_format)
