"""A script front end for tile kernels whose spelling follows the spec pages.

    from tile_mlir import script as T

    @T.function
    def packed_add(A: T.Tensor((8, 1), "uint32"), B: T.Tensor((8, 1), "uint32"),
                   Out: T.Tensor((8, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((8, 1), "uint32", layout="default")
        b = T.alloc_local((8, 1), "uint32", layout="default")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], b, B)
        T.cuda.tile.apply(T.ptx["add.rn.f16x2"], a, a, b)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out, a)

Decorating builds the kernel as MLIR (``packed_add.module``). Each op carries
the Python location of the call that made it; a call that breaks a legality
rule raises :class:`TileError` with the verifier's diagnostic and that
location.
"""

from __future__ import annotations

# The front end is split by concern (tile_mlir.frontend); users import its
# public names from here.
from .frontend.control import if_, serial, until
from .frontend.fragment_coordinates import mma_coordinates
from .frontend.ewise import (Expr, cast, cos, erf, ewise, exp, exp2, fabs, log, log2, maximum, minimum,
                             rsqrt, sin, sqrt, tanh, where)
from .frontend.instructions import cuda, ptx
from .frontend.kernel import (Tensor, TensorMap, block_dim, block_id, clock64, cluster_block_id, cluster_count,
                              cluster_ctarank, cluster_id, cluster_nctarank, device_entry, dynamic_smem_size,
                              function, global_timer, grid_dim, lane_id, prim_func, sm_id, thread_id,
                              warp_id)
from .frontend.tiles import Buffer, alloc_dynamic_shared, alloc_local, alloc_shared
from .frontend.tracing import LaunchConfig, TileError
from .frontend.values import (Bool, Index, Scalar, bfloat16, float16, float32, float64, int8, int16,
                              int32, int64, uint8, uint16, uint32, uint64)

__all__ = [
    "Tensor", "TensorMap", "LaunchConfig", "TileError", "function", "prim_func", "device_entry", "alloc_local", "alloc_shared",
    "alloc_dynamic_shared",
    "thread_id", "block_id", "block_dim", "grid_dim", "cluster_ctarank", "cluster_nctarank", "cluster_block_id",
    "cluster_id", "cluster_count",
    "lane_id", "warp_id", "sm_id", "clock64",
    "global_timer", "dynamic_smem_size", "serial", "if_", "until", "ptx", "cuda", "Buffer", "Index", "Bool", "Scalar",
    "mma_coordinates",
    "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "ewise", "Expr", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sin", "cos", "erf", "fabs",
    "maximum", "minimum", "where", "cast",
]
