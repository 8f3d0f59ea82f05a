"""Ahead of time: the kernels an op would launch for given shapes,
compiled into the ops cache (TILE_MLIR_CACHE_DIR/ops) on a machine with
MLIR, so that a machine with only the CUDA driver runs them:

    import torch, tile_mlir.ops as ops
    a = torch.empty(16, 4096, dtype=torch.bfloat16, device="meta")
    b = torch.empty(4096, 4096, dtype=torch.bfloat16, device="meta")
    ops.precompile("matmul", a, b)

The arguments are checked as the op checks them; tensors are taken for
their shapes and dtypes (moved to the meta device: nothing is computed).
"""

import torch

from .attention import attention_impl, attention_lse_impl
from .attention_grad import backward_impl
from .grouped import grouped_matmul_impl
from .matmul import matmul_impl, scaled_matmul_impl
from .norms import rms_norm_impl, softmax_impl

# Each op's implementation, which checks its arguments as the op does.
OPS = {"matmul": matmul_impl, "scaled_matmul": scaled_matmul_impl, "attention": attention_impl,
       "attention_lse": attention_lse_impl, "attention_backward": backward_impl, "rms_norm": rms_norm_impl,
       "softmax": softmax_impl, "grouped_matmul": grouped_matmul_impl}


def precompile(op: str, *args, **kwargs) -> None:
    """Compiles `op`'s kernel for these arguments into the ops cache."""
    if op not in OPS:
        raise ValueError(f"op is one of {sorted(OPS)}, got {op!r}")
    meta = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
    OPS[op](*meta, **kwargs)
