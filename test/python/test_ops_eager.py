"""The ops' eager path (issue 55, launch cost): on plain CUDA tensors a call
after the first of its signature (shapes, strides, dtypes, device, flags,
16-byte alignment) skips the checks and the plan, allocates the outputs and
launches the prepared kernels on the tensors' addresses. Here the CUDA
launch is replaced by the interpreter run on the memory at the addresses
it is given (CPU tensors'), so each test proves the path passes the right
buffers, in the right order, of the right sizes: its results are checked
bit for bit against the references, and against the general path."""

import ctypes
import importlib
import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tile_mlir.ops as ops  # noqa: E402

# ex2.approx runs as its correctly rounded result (stated by the warning).
pytestmark = pytest.mark.filterwarnings("ignore::tile_mlir.interpreter.launch.InterpretWarning")
from tile_mlir.kernels.reference import rmsnorm as rmsnorm_reference  # noqa: E402
from tile_mlir.kernels.reference import softmax as softmax_reference  # noqa: E402
from tile_mlir.ops import kernel_cache, launch  # noqa: E402


# The modules (tile_mlir.ops' names are the functions).
attention_module = importlib.import_module("tile_mlir.ops.attention")
matmul_module = importlib.import_module("tile_mlir.ops.matmul")
norms_module = importlib.import_module("tile_mlir.ops.norms")


class AddressLauncher:
    """A launcher that runs its kernel in the interpreter on the memory at
    the addresses it is given, as the GPU would run it there."""

    def __init__(self, spec, build, log):
        self.spec, self.build, self.log = spec, build, log

    def bind(self, extents, grid):
        """ExtentLauncher.bind's: these extents and grid on every call."""
        return lambda *pointers, stream=None: self(*pointers, stream=stream, extents=extents, grid=grid)

    def bind_shapes(self, shapes, grid):
        """ExtentLauncher.bind_shapes': the runtime extents of tensors of `shapes`."""
        params = kernel_cache.built(self.spec, self.build).runtime_params()
        extents = [size for param, shape in zip(params, shapes) for want, size in zip(param.shape, shape)
                   if want is None]
        return self.bind(tuple(extents), grid)

    def __call__(self, *pointers, stream=None, extents=(), grid=None):
        params = kernel_cache.built(self.spec, self.build).runtime_params()
        assert len(pointers) == len(params), self.spec
        arrays, given = [], iter(extents)
        for param, pointer in zip(params, pointers):
            shape = [next(given) if extent is None else extent for extent in param.shape]
            nbytes = int(np.prod(shape)) * np.dtype(param.dtype).itemsize
            memory = (ctypes.c_char * nbytes).from_address(pointer)
            arrays.append(torch.from_numpy(np.frombuffer(memory, dtype=param.dtype).reshape(shape)))
        assert next(given, None) is None, "every runtime extent is a parameter's"
        self.log.append((self.spec["kernel"], pointers))
        launch.run(self.spec, self.build, *arrays, grid=grid)


@pytest.fixture
def eager(monkeypatch):
    """CPU tensors taken as plain CUDA ones: the eager path, its launches
    (kernel, addresses) logged and interpreted."""
    log = []
    monkeypatch.setattr(launch, "eager", lambda *tensors: True)
    monkeypatch.setattr(launch, "target", lambda device: "sm_90a")
    monkeypatch.setattr(launch, "stream", lambda index: 0)
    monkeypatch.setattr(kernel_cache, "launcher", lambda spec, build, target: AddressLauncher(spec, build, log))
    monkeypatch.setattr(launch, "EAGER", {})
    monkeypatch.setattr(launch, "_BY_SIGNATURE", {})
    return log


def bits(t):
    return t.reshape(-1, t.shape[-1]).view(torch.int16).numpy().view(np.uint16)


def softmax_want(x):
    return softmax_reference.reference(bits(x), "bfloat16")


def rms_norm_want(x, w, eps):
    return rmsnorm_reference.reference_rows(bits(x), bits(w)[0], "bfloat16", eps=eps)


def integers(shape, low, high, seed, dtype=torch.bfloat16):
    return torch.randint(low, high + 1, shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def at_offset(t, elements):
    """A contiguous copy of `t` whose address is `elements` past an
    allocation's start (a view at an odd offset)."""
    flat = torch.zeros(t.numel() + elements, dtype=t.dtype)
    view = flat[elements:].view(t.shape)
    view.copy_(t)
    return view


def test_softmax_launches_on_the_inputs_address_and_a_fresh_outputs(eager):
    x = integers((4, 256), -4, 4, 1)
    got = ops.softmax(x)
    assert eager == [("softmax", (x.data_ptr(), got.data_ptr()))]
    assert np.array_equal(bits(got), softmax_want(x))


def test_a_second_call_of_a_signature_skips_the_checks_and_reads_the_new_addresses(eager, monkeypatch):
    x, w = integers((4, 256), -4, 4, 2), integers((256,), -2, 2, 3)
    first = ops.rms_norm(x, w, 1e-6)
    prepared = dict(launch.EAGER)
    monkeypatch.setattr(norms_module, "check_rms_norm", lambda *a: pytest.fail("the checks ran again"))
    y = integers((4, 256), -4, 4, 4)
    second = ops.rms_norm(y, w, 1e-6)
    assert launch.EAGER == prepared and len(prepared) == 1
    assert eager[1] == ("rmsnorm", (y.data_ptr(), w.data_ptr(), second.data_ptr()))
    for x_, got in ((x, first), (y, second)):
        assert np.array_equal(bits(got), rms_norm_want(x_, w, 1e-6))


@pytest.mark.parametrize("op", ["softmax", "rms_norm"])
def test_a_view_at_an_odd_offset_takes_the_general_path(eager, op):
    # The row kernels' 16-byte vector loads fault on an address that is not
    # whole 16 bytes; torch's ops take such a view, so the op's general
    # path copies it (here interpreted directly, not through a launcher).
    x, w = integers((4, 256), -4, 4, 5), integers((256,), -2, 2, 6)
    odd = at_offset(x, 3)
    assert odd.is_contiguous() and odd.data_ptr() % 16
    got = ops.softmax(odd) if op == "softmax" else ops.rms_norm(odd, w, 1e-6)
    want = ops.softmax(x) if op == "softmax" else ops.rms_norm(x, w, 1e-6)
    assert len(launch.EAGER) == 2 and [pointers[0] for _, pointers in eager] == [x.data_ptr()]
    assert torch.equal(got, want)


def test_the_general_path_copies_an_odd_offset_too(monkeypatch):
    # CPU tensors (no eager path): the arrays the kernel is given are at
    # whole 16 bytes as a launch would need them.
    seen = []
    real = launch.run
    monkeypatch.setattr(launch, "run", lambda spec, build, *args, **kw: (seen.append(args), real(spec, build, *args, **kw)))
    x = at_offset(integers((4, 256), -4, 4, 7), 1)
    got = ops.softmax(x)
    assert all(a.data_ptr() % 16 == 0 for a in seen[0])
    assert np.array_equal(bits(got), softmax_want(x))


def test_matmul_launches_on_a_and_the_weights_transposed_view(eager):
    a, w = integers((16, 64), -3, 3, 8), integers((32, 64), -3, 3, 9)
    got = ops.matmul(a, w.t())
    assert eager == [("hopper_gemm", (a.data_ptr(), w.data_ptr(), got.data_ptr()))]
    assert torch.equal(got, (a.double() @ w.double().t()).to(torch.bfloat16))


def test_matmul_of_a_row_major_b_takes_the_general_path(eager):
    a, b = integers((16, 64), -3, 3, 10), integers((64, 32), -3, 3, 11)
    got = ops.matmul(a, b)
    assert eager == []  # the interpreter ran the general path's copy of Bt
    assert torch.equal(got, (a.double() @ b.double()).to(torch.bfloat16))


@pytest.mark.parametrize("swap_ab", [False, True])
def test_a_split_plan_launches_the_gemm_into_a_workspace_then_the_reduction(eager, monkeypatch, swap_ab):
    # K 512 (8 steps of 64) splits in two; swap-AB takes Bt as the GEMM's A.
    plans = matmul_module.candidates("bfloat16", 16, 32, 512)
    plan = next(p for p in plans if p.config.split_k > 1 and p.swap_ab == swap_ab)
    monkeypatch.setattr(launch, "tuned", lambda fields, candidates, *rest: plan)
    a, w = integers((16, 512), -3, 3, 12), integers((32, 512), -3, 3, 13)
    got = ops.matmul(a, w.t(), out_dtype=torch.float32)
    (gemm, (first, second, work)), (reduce, (work_again, pc)) = eager
    assert (gemm, reduce, pc, work) == ("hopper_gemm", "split_k_reduce", got.data_ptr(), work_again)
    gemm_a, gemm_b = (w, a) if swap_ab else (a, w)
    assert (first, second) == (gemm_a.data_ptr(), gemm_b.data_ptr())
    assert torch.equal(got, (a.double() @ w.double().t()).float())


@pytest.mark.parametrize("swap_ab", [False, True])
def test_a_one_launch_split_plan_launches_the_gemm_on_a_workspace_c_and_zero_counters(eager, monkeypatch, swap_ab):
    plans = matmul_module.candidates("bfloat16", 16, 32, 512)
    plan = next(p for p in plans if p.one_launch and p.swap_ab == swap_ab)
    monkeypatch.setattr(launch, "tuned", lambda fields, candidates, *rest: plan)
    a, w = integers((16, 512), -3, 3, 12), integers((32, 512), -3, 3, 13)
    for _ in range(2):  # the second call on the prepared path
        got = ops.matmul(a, w.t())
        ((gemm, (first, second, work, pc, counters)),) = eager
        assert (gemm, pc) == ("hopper_gemm", got.data_ptr())
        gemm_a, gemm_b = (w, a) if swap_ab else (a, w)
        assert (first, second) == (gemm_a.data_ptr(), gemm_b.data_ptr()) and work not in (pc, counters)
        assert torch.equal(got, (a.double() @ w.double().t()).to(torch.bfloat16))
        eager.clear()


def test_rowwise_scaled_matmul_launches_on_the_scales_as_they_are(eager):
    a = integers((16, 64), -2, 2, 14, torch.float32).to(torch.float8_e4m3fn)
    w = integers((32, 64), -2, 2, 15, torch.float32).to(torch.float8_e4m3fn)
    sa = torch.tensor([2.0 ** (i % 3) for i in range(16)]).view(16, 1)
    sb = torch.tensor([2.0 ** -(i % 4) for i in range(32)]).view(1, 32)
    got = ops.scaled_matmul(a, w.t(), sa, sb)
    assert eager == [("hopper_gemm", (a.data_ptr(), w.data_ptr(), got.data_ptr(), sa.data_ptr(), sb.data_ptr()))]
    want = (a.double() @ w.double().t()) * sa.double() * sb.double()
    assert torch.equal(got, want.to(torch.bfloat16))


@pytest.mark.parametrize("causal, h_kv, s, s_k, with_lse", [(True, 2, 64, 80, True), (False, 1, 3, 100, True),
                                                             (False, 2, 64, 64, False)])
def test_attention_launches_on_q_k_v_and_fresh_outputs(eager, causal, h_kv, s, s_k, with_lse):
    # Exact data (test_ops' attention test): one nonzero of 0-2 a row of Q,
    # K in -2..2, V in -4..4, scale 1 / log2 e. Also packed GQA (two query
    # heads on one of K and V, not causal): q as the rows of one head.
    g = torch.Generator().manual_seed(19)
    q = torch.zeros(1, 2, s, 64)
    q.view(-1, 64)[torch.arange(2 * s), torch.randint(0, 64, (2 * s,), generator=g)] = \
        torch.randint(0, 3, (2 * s,), generator=g).float()
    q = q.to(torch.bfloat16)
    k = torch.randint(-2, 3, (1, h_kv, s_k, 64), generator=g).to(torch.bfloat16)
    v = torch.randint(-4, 5, (1, h_kv, s_k, 64), generator=g).to(torch.bfloat16)
    scale = 1 / math.log2(math.e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as its correctly rounded result
        got = ops.attention(q, k, v, causal=causal, scale=scale, return_lse=with_lse)
        general_out, general_lse = attention_module.forward(q, k, v, causal, scale, with_lse=True)
    out, lse = got if with_lse else (got, None)  # the op returns out alone without the log-sum-exp
    ((kernel, pointers),) = eager
    assert kernel == "attention" and pointers[:4] == (q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr())
    assert isinstance(out, torch.Tensor) and out.shape == q.shape and torch.equal(out, general_out)
    assert lse is None or (lse.shape == (1, 2, s) and torch.equal(lse, general_lse))


def test_one_row_kernel_serves_every_row_count(eager):
    # The rows are a runtime extent (the descriptor convention, the grid at
    # launch): 3, 4 and 9 rows of 256 launch one kernel, each with its
    # extents and grid.
    xs = [integers((rows, 256), -4, 4, 20 + rows) for rows in (3, 4, 9)]
    outs = [ops.softmax(x) for x in xs]
    assert len(launch._BY_SIGNATURE) == 1 and len(launch.EAGER) == 3
    for x, got in zip(xs, outs):
        assert np.array_equal(bits(got), softmax_want(x))
