"""tile_mlir.ops.rms_norm(x, weight, eps) and tile_mlir.ops.softmax(x, dim=-1)
over the last dimension, on tile_mlir.kernels.rmsnorm and .softmax: rows
of any width (16-byte vectors where the width is whole ones, else a value
a load), any number of rows (the leading dimensions flattened), float32,
bf16 or fp16."""

import torch

from . import launch

DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def rows_of(x, name="x"):
    """(rows, width) of a valid x, or the error naming it."""
    launch.tensor(x, name, range(1, 9), DTYPES)
    width = x.shape[-1]
    launch.require(width > 0 and x.numel() > 0, name, f"an empty shape {tuple(x.shape)}")
    return x.numel() // width, width


def _words(t):
    """float32 as it is; 16-bit as its bits in int16, as the kernels take it."""
    return t if t.dtype == torch.float32 else t.view(torch.int16)


def check_eps(eps):
    if not isinstance(eps, float) or not eps > 0:
        raise ValueError(f"eps is a positive float, got {eps!r}")


def check_rms_norm(x, weight, eps):
    rows, width = rows_of(x)
    launch.tensor(weight, "weight", (1,), DTYPES)
    launch.same_placement(x=x, weight=weight)
    launch.require(weight.shape[0] == width, "weight", f"{weight.shape[0]} elements for rows of {width}")
    check_eps(eps)
    return rows, width


def run_rows(spec: dict, build, rows: int, *args: torch.Tensor) -> None:
    """A row kernel of `spec` (its rows a runtime extent: one kernel for
    every row count) on `args`, a block a row: launched by its signature on
    a CUDA device, else as launch.run takes it."""
    if args[0].is_cuda:
        launcher = _row_launcher(spec, build, args[0])
        launcher(*[a.data_ptr() for a in args], extents=(rows, rows), grid=(rows, 1, 1),
                 stream=launch.stream(args[0].device.index))
        return
    launch.run(spec, build, *args, grid=(rows, 1, 1))


def _row_launcher(spec: dict, build, device_tensor: torch.Tensor):
    """The ExtentLauncher of a row kernel (one a spec: no configuration to
    choose), made once a process and device."""
    _, (launcher,) = launch.prepared(tuple(spec.values()), device_tensor, lambda: None, lambda _: [(spec, build)])
    return launcher


def prepared_rows(spec: dict, build, x: torch.Tensor, general):
    """The eager path of a row kernel's signature: where x (and the
    op's other inputs) are whole contiguous rows at aligned addresses, the
    kernel's launcher on their addresses and a fresh output's; else
    `general` (the op's implementation: copies first)."""
    if not (x.is_contiguous() and x.data_ptr() % 16 == 0):
        return general
    index = x.device.index
    rows = x.numel() // x.shape[-1]
    bound = _row_launcher(spec, build, x).bind((rows, rows), (rows, 1, 1))  # the signature fixes the rows

    def call(*inputs):
        out = torch.empty_like(inputs[0])  # x's shape, contiguous as x is
        bound(*[t.data_ptr() for t in inputs], out.data_ptr(), stream=launch.stream(index))
        return out
    return call


def rms_norm(x, weight, eps=1e-6):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension. Bad
    arguments raise before anything runs, naming the argument."""
    if not launch.eager(x, weight):  # the type checks of the eager path are eager()'s own
        launch.tensors(x=x, weight=weight)
        check_eps(eps)
        return rms_norm_op(x, weight, eps)
    check_eps(eps)
    call = launch.eager_call(("rms_norm", eps, launch.signature_of(x), launch.signature_of(weight)),
                             lambda: _prepare_rms_norm(x, weight, eps))
    return call(x, weight)


def _rms_norm_kernel(width, dtype, eps):
    def build():
        from ..kernels.rmsnorm import rmsnorm
        return rmsnorm(None, dtype, eps=eps, width=width)
    return {"op": "rms_norm", "kernel": "rmsnorm", "rows": "runtime", "width": width, "dtype": dtype,
            "eps": eps}, build


def _prepare_rms_norm(x, weight, eps):
    _, width = check_rms_norm(x, weight, eps)
    spec, build = _rms_norm_kernel(width, launch.NAMES[x.dtype], eps)
    general = lambda x, weight: rms_norm_impl(x, weight, eps)  # noqa: E731
    if not (weight.is_contiguous() and weight.data_ptr() % 16 == 0):
        return general
    return prepared_rows(spec, build, x, general)


def rms_norm_impl(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    rows, width = check_rms_norm(x, weight, eps)
    flat = launch.aligned(x.contiguous()).view(rows, width)
    out = torch.empty_like(flat)
    spec, build = _rms_norm_kernel(width, launch.NAMES[x.dtype], eps)
    run_rows(spec, build, rows, _words(flat), _words(launch.aligned(weight.contiguous())), _words(out))
    return out.view(x.shape)


rms_norm_op = torch.library.custom_op("tile_mlir::rms_norm", mutates_args=())(rms_norm_impl)


@rms_norm_op.register_fake
def _(x, weight, eps=1e-6):
    check_rms_norm(x, weight, eps)
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def check_dim_type(dim):
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"dim is an int, got {type(dim).__name__}")


def check_softmax(x, dim):
    shape = rows_of(x)
    launch.require(dim in (-1, x.dim() - 1), "dim", f"{dim}: the kernel reduces over the last dimension")
    return shape


def softmax(x, dim=-1):
    """softmax over the last dimension. Bad arguments raise before anything
    runs, naming the argument."""
    if not launch.eager(x):
        launch.tensors(x=x)
        check_dim_type(dim)
        return softmax_op(x, dim)
    check_dim_type(dim)
    return launch.eager_call(("softmax", dim, launch.signature_of(x)), lambda: _prepare_softmax(x, dim))(x)


def _softmax_kernel(width, dtype):
    def build():
        from ..kernels.softmax import softmax as kernel
        return kernel(None, dtype, width=width)
    return {"op": "softmax", "kernel": "softmax", "rows": "runtime", "width": width, "dtype": dtype}, build


def _prepare_softmax(x, dim):
    _, width = check_softmax(x, dim)
    spec, build = _softmax_kernel(width, launch.NAMES[x.dtype])
    return prepared_rows(spec, build, x, lambda x: softmax_impl(x, dim))


def softmax_impl(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    rows, width = check_softmax(x, dim)
    flat = launch.aligned(x.contiguous()).view(rows, width)
    out = torch.empty_like(flat)
    spec, build = _softmax_kernel(width, launch.NAMES[x.dtype])
    run_rows(spec, build, rows, _words(flat), _words(out))
    return out.view(x.shape)


softmax_op = torch.library.custom_op("tile_mlir::softmax", mutates_args=())(softmax_impl)


@softmax_op.register_fake
def _(x, dim=-1):
    check_softmax(x, dim)
    return torch.empty_like(x, memory_format=torch.contiguous_format)
