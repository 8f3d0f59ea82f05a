"""tile-mlir's kernels as PyTorch operators (docs/ops.md): each a
torch.library.custom_op with a fake implementation, so it traces under
torch.compile(fullgraph=True) and is captured in CUDA graphs. CUDA
tensors run the compiled kernel (compiled once a shape, cached on disk);
CPU tensors run the same kernel in the interpreter.

    import torch, tile_mlir.ops as ops
    c = ops.matmul(a, b)                       # torch.ops.tile_mlir.matmul
    o = ops.attention(q, k, v, causal=True)
    c = ops.grouped_matmul(a, w, counts)      # experts' rows by their weights
"""

from .attention import attention
from . import attention_grad  # noqa: F401 (registers attention's backward)
from .grouped import grouped_matmul
from .matmul import matmul, scaled_matmul
from .norms import rms_norm, softmax
from .precompile import precompile

__all__ = ["attention", "grouped_matmul", "matmul", "precompile", "rms_norm", "scaled_matmul", "softmax"]
