"""tile_mlir.ops.matmul(a, b): a @ b in the inputs' type, on the Hopper
GEMM (tile_mlir.kernels.gemm_hopper): bf16 or fp16, a (M, K) and b (K, N),
any M, N a multiple of 8 and K of 8 (the kernel's TMA rows), C rounded
once to the inputs' type as torch.matmul rounds it."""

import dataclasses

import torch

from . import autotune, launch

DTYPES = (torch.bfloat16, torch.float16)


def check(a: torch.Tensor, b: torch.Tensor):
    """(m, n, k) of a valid call, or the error naming the argument."""
    launch.tensor(a, "a", (2,), DTYPES)
    launch.tensor(b, "b", (2,), DTYPES)
    launch.same_placement(a=a, b=b)
    (m, k), (k_b, n) = a.shape, b.shape
    launch.require(k == k_b, "b", f"its {k_b} rows do not match a's {k} columns")
    launch.require(m >= 1 and n >= 1 and k >= 1, "a", f"an empty product {m} x {n} x {k}")
    launch.require(k % 8 == 0, "a", f"K {k} is not a multiple of 8 (the kernel's rows are whole 16 bytes)")
    launch.require(n % 8 == 0, "b", f"N {n} is not a multiple of 8 (the kernel's rows are whole 16 bytes)")
    return m, n, k


def matmul(a, b):
    """a @ b (module docstring). Bad arguments raise before anything runs,
    naming the argument (the dispatcher's own cast errors do not)."""
    check(a, b)
    return matmul_op(a, b)


def matmul_impl(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, n, k = check(a, b)
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    dtype = launch.NAMES[a.dtype]
    tuned_run("matmul", (m, n, k), dtype, tuple(launch.bits(t) for t in (*k_major(a, b), c)))
    return c


def k_major(a, b):
    """A with K contiguous and B as Bt (N x K, K contiguous), as the kernel
    takes them: a transposed view of a contiguous (N, K) is taken as it is;
    any other layout is copied once."""
    return (a if a.is_contiguous() else a.contiguous()), (b.t() if b.t().is_contiguous() else b.t().contiguous())


def tuned_run(op, shape, dtype, args, scaled=False):
    """Runs the Hopper GEMM of `shape` (m, n, k) on `args` in the
    configuration the autotuner picked for op's bucket of M."""
    m, n, k = shape

    def job(config):
        """(spec, build) of the kernel with `config`."""
        def build():
            from ..kernels.gemm_hopper import hopper_gemm
            return hopper_gemm(m, n, k, dtype, config, scaled=scaled)
        return {"op": op, "kernel": "hopper_gemm", "shape": [m, n, k], "dtype": dtype,
                "config": dataclasses.asdict(config)}, build

    config = launch.tuned({"op": op, "bucket": [autotune.bucket(m), n, k], "dtypes": [dtype]},
                          candidates(dtype), job, args)
    launch.run(*job(config), *args)


def candidates(dtype):
    """The configurations the autotuner times, the default (best) first:
    one block an SM in groups of 8, 128-column tiles with 6 stages, and
    one consumer of 64 rows (for a short M)."""
    from ..kernels.configs import HopperGemmConfig
    best = HopperGemmConfig.best(dtype)
    others = [HopperGemmConfig(blocks=132, group_m=8), HopperGemmConfig(bn=128, stages=6),
              HopperGemmConfig(consumers=1, bn=128, stages=6)]
    return [best] + [c for c in others if c != best]


matmul_op = torch.library.custom_op("tile_mlir::matmul", mutates_args=())(matmul_impl)


@matmul_op.register_fake
def _(a, b):
    m, n, _ = check(a, b)
    return a.new_empty((m, n))


def check_scaled(a, b, scale_a, scale_b):
    """(m, n, k) of a valid scaled_matmul, or the error naming the argument."""
    launch.tensor(a, "a", (2,), (torch.float8_e4m3fn,))
    launch.tensor(b, "b", (2,), (torch.float8_e4m3fn,))
    launch.same_placement(a=a, b=b)
    for name, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
        launch.tensor(scale, name, (0, 1, 2), (torch.float32,))
        launch.require(scale.numel() == 1, name, f"{scale.numel()} elements: per-tensor scales take one")
        launch.require(scale.device == a.device, name, f"on {scale.device}, a on {a.device}")
    (m, k), (k_b, n) = a.shape, b.shape
    launch.require(k == k_b, "b", f"its {k_b} rows do not match a's {k} columns")
    launch.require(min(m, n, k) >= 1, "a", f"an empty product {m} x {n} x {k}")
    launch.require(k % 16 == 0, "a", f"K {k} is not a multiple of 16 (the kernel's rows are whole 16 bytes)")
    launch.require(n % 8 == 0, "b", f"N {n} is not a multiple of 8 (C's rows are whole 16 bytes)")
    return m, n, k


def scaled_matmul(a, b, scale_a, scale_b):
    """(a @ b) x scale_a x scale_b in bf16, as torch._scaled_mm(a, b,
    scale_a, scale_b, out_dtype=torch.bfloat16) takes it: e4m3 a (M, K) and
    b (K, N) (the transposed view of a row-major (N, K) is taken as it is),
    one float32 scale each. The accumulators are multiplied by the scales'
    product (rounded once), then rounded to bf16."""
    check_scaled(a, b, scale_a, scale_b)
    return scaled_matmul_op(a, b, scale_a, scale_b)


def scaled_matmul_impl(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                       scale_b: torch.Tensor) -> torch.Tensor:
    m, n, k = check_scaled(a, b, scale_a, scale_b)
    a_rows, bt = k_major(a, b)
    c = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    scales = [s.reshape(1, 1).contiguous() for s in (scale_a, scale_b)]
    tuned_run("scaled_matmul", (m, n, k), "e4m3",
              (a_rows.view(torch.uint8), bt.view(torch.uint8), c.view(torch.uint16), *scales), scaled=True)
    return c


scaled_matmul_op = torch.library.custom_op("tile_mlir::scaled_matmul", mutates_args=())(scaled_matmul_impl)


@scaled_matmul_op.register_fake
def _(a, b, scale_a, scale_b):
    m, n, _ = check_scaled(a, b, scale_a, scale_b)
    return a.new_empty((m, n), dtype=torch.bfloat16)
