"""The backward of tile_mlir.ops.attention (issue 57's first step): the op
`tile_mlir::attention_backward` runs kernels/attention_backward.py (dK,
dV and dQ on wgmma) and is registered as the autograd formula of
`tile_mlir::attention_lse`, which ops.attention calls when an input
requires grad (its log-sum-exp is what the backward takes).

What the kernel takes today: bf16 or fp16, d 64 or 128, causal or not, any S_q
and S_k, grouped query heads (dK and dV summed over a group), no
paged cache; any other
call's backward raises NotImplementedError naming the rule (never a wrong
gradient). Before the kernel: D = rowsum(dO O) in float32 and lse in base
2, and dQ's float32 sum zeroed (kernels/attention_backward_prepare.py, one
pass); after it: dQ, summed in float32 by the key blocks, times the
scale and rounded (torch).

A gradient g of the log-sum-exp (return_lse=True) is taken exactly: d
lse_i / d s_ij = P_ij, so dS = P (dP - (D - g)), the kernel's D less g.
Gradients are not materialized (ctx.set_materialize_grads(False)): an
unused output's is None, so the backward never reads a gradient on the
host (no device synchronization) and a missing one costs nothing.
"""

import math
from typing import Optional, Tuple

import torch

from . import launch
from .attention import attention_lse_op, check


# The kernel's consumer warpgroups a block (64 keys each), by head
# dimension: the most warpgroups an SM holds. d 64 on one takes 168
# registers and 73 KB of shared memory, three blocks an SM (two of two
# warpgroups: 183 registers); d 128 needs 137 KB on one (one block an SM),
# 177 KB on two (two warpgroups an SM). Measured both ways (an H100, one
# run of the 16 backward entries each way): d 64 on two warpgroups ran at
# 0.84-1.00x of one's rate, d 128 on one at 0.78-0.95x of two's.
WARPGROUPS = {64: 1, 128: 2}


def supported(q, k, causal, block_table=None) -> Optional[str]:
    """Why the backward kernel cannot take this call, or None."""
    if q.shape[-1] not in WARPGROUPS:
        return f"head dimension {q.shape[-1]}: the backward takes {' or '.join(map(str, WARPGROUPS))}"
    if block_table is not None:
        return "a paged cache: the backward takes k and v as (B, H_kv, S_k, D)"
    return None


def backward_impl(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                  grad_out: torch.Tensor, causal: bool = False, scale: Optional[float] = None,
                  grad_lse: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    b, h, s, d = check(q, k, v, causal, scale)
    why = supported(q, k, causal)
    if why:
        raise NotImplementedError(f"tile_mlir.ops.attention's backward: {why}")
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    s_k, h_kv = k.shape[2], k.shape[1]
    group, bh, dtype = h // h_kv, b * h, launch.NAMES[q.dtype]
    flat = [launch.aligned(t.contiguous().view(-1, t.shape[2], d)) for t in (q, grad_out, k, v, out)]
    # (lse2, D) pairs, a row a head, an even count of queries (the
    # kernel's TMA pitch: whole 16 bytes), and dQ's float32 sum: both
    # made by the preparation kernel.
    rows = torch.empty((bh, 2 * (s + s % 2)), dtype=torch.float32, device=q.device)
    dq = torch.empty((bh, s, d), dtype=torch.float32, device=q.device)
    dk, dv = (torch.empty((b * h_kv, s_k, d), dtype=q.dtype, device=q.device) for _ in range(2))
    stats = [t.float().contiguous().view(bh, s, 1) for t in (lse, grad_lse) if t is not None]
    wgs = WARPGROUPS[d]
    spec = {"op": "attention_backward", "kernel": "attention_backward", "shape": [bh, s, s_k, d], "scale": scale,
            **({"causal": True} if causal else {}), **({"group": group} if group > 1 else {}),
            **({"dtype": "float16"} if q.dtype == torch.float16 else {}),
            **({"warpgroups": wgs} if wgs > 1 else {})}
    prepare_spec = {"op": "attention_backward", "kernel": "attention_backward_prepare", "shape": [bh, s, d],
                    "dtype": dtype, "grad_lse": grad_lse is not None}

    def build():
        from ..kernels.attention_backward import attention_backward
        return attention_backward(bh, s, s_k, scale=scale, causal=causal, group=group, dtype=dtype, warpgroups=wgs,
                                  d=d)

    def build_prepare():
        from ..kernels.attention_backward_prepare import attention_backward_prepare
        return attention_backward_prepare(bh, s, d, dtype, grad_lse=grad_lse is not None)
    q_bits, do_bits, k_bits, v_bits, o_bits = (launch.bits(t) for t in flat)
    operands = [[o_bits, do_bits, *stats, rows, dq],
                [q_bits, do_bits, k_bits, v_bits, rows, dq, launch.bits(dk), launch.bits(dv)]]
    signature = ("attention_backward", bh, s, s_k, d, scale, causal, group, q.dtype, wgs, grad_lse is not None)
    launch.by_signature(signature, q, lambda: None, lambda _: [(prepare_spec, build_prepare), (spec, build)],
                        lambda _: operands)
    return ((dq * scale).to(q.dtype).view(b, h, s, d), dk.view(b, h_kv, s_k, d), dv.view(b, h_kv, s_k, d))


backward_op = torch.library.custom_op("tile_mlir::attention_backward", mutates_args=())(backward_impl)


@backward_op.register_fake
def _(q, k, v, out, lse, grad_out, causal=False, scale=None, grad_lse=None):
    check(q, k, v, causal, scale)
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup_context(ctx, inputs, output):
    q, k, v, causal, scale, block_table = inputs
    out, lse = output
    why = supported(q, k, causal, block_table)
    ctx.why, ctx.causal, ctx.scale = why, causal, scale
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(q, k, v, out, lse)


def _backward(ctx, grad_out, grad_lse):
    if ctx.why:
        raise NotImplementedError(f"tile_mlir.ops.attention's backward: {ctx.why}")
    q, k, v, out, lse = ctx.saved_tensors
    if grad_out is None and grad_lse is None:
        return None, None, None, None, None, None
    grad_out = torch.zeros_like(out) if grad_out is None else grad_out.contiguous()
    dq, dk, dv = backward_op(q, k, v, out, lse, grad_out, ctx.causal, ctx.scale,
                             None if grad_lse is None else grad_lse.contiguous())
    return dq, dk, dv, None, None, None


attention_lse_op.register_autograd(_backward, setup_context=_setup_context)
