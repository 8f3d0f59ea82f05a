"""tile_mlir.ops (issue 55): each op is a torch custom op whose bad
arguments are errors naming them before anything runs, whose fake
implementation gives the output's shape and dtype (torch.compile traces it
with no graph break), and which on CPU tensors runs the kernel it would
launch, in the interpreter: exact against float64 where every step is
exact, and an error, not a wrong result, where the interpreter cannot
follow the data. Compiled kernels are cached on disk, and a second process
loads them without MLIR."""

import dataclasses
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tile_mlir.ops as ops  # noqa: E402
from tile_mlir.kernels.reference import rmsnorm as rmsnorm_reference
from tile_mlir.kernels.reference import softmax as softmax_reference
from tile_mlir.ops.launch import InterpretedResultError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def integers(shape, low, high, seed, dtype=torch.bfloat16):
    return torch.randint(low, high + 1, shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


# -- Argument checks --------------------------------------------------------------

@pytest.mark.parametrize("a, b, error, message", [
    (torch.ones(4, 8), torch.ones(8, 8), ValueError, r"a is torch.float32; the op takes torch.bfloat16, torch.float16"),
    (torch.ones(4, 8, dtype=torch.bfloat16), torch.ones(8, 8, dtype=torch.float16), ValueError,
     r"b is torch.float16 and a torch.bfloat16: the op takes one dtype"),
    (torch.ones(4, 8, 2, dtype=torch.bfloat16), torch.ones(8, 8, dtype=torch.bfloat16), ValueError,
     r"a has 3 dimensions; the op takes 2"),
    (torch.ones(4, 16, dtype=torch.bfloat16), torch.ones(8, 8, dtype=torch.bfloat16), ValueError,
     r"b: its 8 rows do not match a's 16 columns"),
    (np.ones((4, 8)), torch.ones(8, 8, dtype=torch.bfloat16), TypeError, r"a is a torch.Tensor, got ndarray"),
])
def test_matmul_names_the_bad_argument(a, b, error, message):
    with pytest.raises(error, match=message):
        ops.matmul(a, b)


@pytest.mark.parametrize("shape, kwargs, message", [
    ((1, 2, 128, 96), {}, r"q: head dimension 96; the kernel takes 64 or 128"),
    ((1, 2, 0, 64), {}, r"q: an empty shape \(1, 2, 0, 64\)"),
    ((1, 2, 128, 64), {"scale": -1.0}, r"scale: -1.0: a positive finite number"),
    ((1, 2, 128, 64), {"scale": float("nan")}, r"scale: nan: a positive finite number"),
])
def test_attention_names_the_bad_argument(shape, kwargs, message):
    q = torch.zeros(shape, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=message):
        ops.attention(q, q, q, **kwargs)


def test_attention_refuses_what_it_does_not_take():
    q = torch.zeros(1, 4, 128, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"k: causal with 256 queries and 128 keys: the bottom-right diagonal "
                       r"takes at least as many keys as queries \(the first rows would see no key\)"):
        ops.attention(torch.zeros(1, 4, 256, 64, dtype=torch.bfloat16), q, q, causal=True)
    with pytest.raises(TypeError, match="scale is a float or None, got bool"):
        ops.attention(q, q, q, scale=True)
    with pytest.raises(ValueError, match=r"k: its 3 heads do not divide q's 4"):
        ops.attention(q, q[:, :3], q[:, :3])
    with pytest.raises(TypeError, match="causal is a bool, got int"):
        ops.attention(q, q, q, causal=1)


@pytest.mark.parametrize("call, message", [
    (lambda: ops.rms_norm(torch.zeros(2, 0), torch.zeros(0)), r"x: an empty shape \(2, 0\)"),
    (lambda: ops.rms_norm(torch.zeros(2, 4096), torch.zeros(2048)), r"weight: 2048 elements for rows of 4096"),
    (lambda: ops.rms_norm(torch.zeros(2, 4096), torch.zeros(4096), -1.0), r"eps is a positive float, got -1.0"),
    (lambda: ops.softmax(torch.zeros(4096, 8), dim=0), r"dim: 0: the kernel reduces over the last dimension"),
    (lambda: ops.softmax(torch.zeros(0, 12, dtype=torch.float16)), r"x: an empty shape \(0, 12\)"),
    (lambda: ops.softmax(torch.zeros(2, 4096, dtype=torch.float64)), r"x is torch.float64; the op takes"),
])
def test_norms_name_the_bad_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- Fake implementations and torch.compile ------------------------------------------

def test_fake_implementations_give_shapes_and_dtypes():
    meta = dict(device="meta")
    assert ops.matmul(torch.empty(1, 64, dtype=torch.bfloat16, **meta),
                      torch.empty(64, 24, dtype=torch.bfloat16, **meta)).shape == (1, 24)
    q = torch.empty(2, 8, 256, 128, dtype=torch.bfloat16, **meta)
    out = ops.attention(q, q, q, causal=True)
    assert out.shape == q.shape and out.dtype == torch.bfloat16
    out, lse = ops.attention(q[:, :, :100], q[:, :2], q[:, :2], causal=True, return_lse=True)
    assert out.shape == (2, 8, 100, 128) and (lse.shape, lse.dtype) == ((2, 8, 100), torch.float32)
    x = torch.empty(3, 5, 4096, dtype=torch.bfloat16, **meta)
    assert ops.rms_norm(x, torch.empty(4096, dtype=torch.bfloat16, **meta)).shape == x.shape
    assert ops.softmax(x).dtype == torch.bfloat16
    # The checks run on the fake path too: nothing traces a bad call.
    with pytest.raises(ValueError, match="b: its 8 rows do not match a's 12 columns"):
        ops.matmul(torch.empty(4, 12, dtype=torch.bfloat16, **meta), torch.empty(8, 8, dtype=torch.bfloat16, **meta))


def test_a_block_traces_under_torch_compile_with_no_graph_break():
    # RMSNorm, a projection, attention and an output projection: one graph
    # (fullgraph=True raises at a break), each op one node of it. The
    # backend keeps the graph and does not run it (the kernels need a GPU
    # or the interpreter, not what this test is about).
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return lambda *args: (torch.zeros(256, 4096, dtype=torch.bfloat16),)

    def block(x, w, wqkv, wo):
        h = ops.rms_norm(x, w, 1e-6)
        qkv = ops.matmul(h.view(-1, 4096), wqkv)
        q, k, v = (t.reshape(1, 32, 256, 128).contiguous() for t in qkv.split(4096, dim=1))
        o = ops.attention(q, k, v, causal=True)
        return ops.matmul(o.view(256, 4096), wo)

    args = (torch.zeros(256, 4096, dtype=torch.bfloat16), torch.zeros(4096, dtype=torch.bfloat16),
            torch.zeros(4096, 3 * 4096, dtype=torch.bfloat16), torch.zeros(4096, 4096, dtype=torch.bfloat16))
    torch._dynamo.reset()
    assert torch.compile(block, fullgraph=True, backend=backend)(*args).shape == (256, 4096)
    (gm,) = graphs
    targets = [str(node.target) for node in gm.graph.nodes if node.op == "call_function"]
    assert [t for t in targets if t.startswith("tile_mlir.")] == [
        "tile_mlir.rms_norm.default", "tile_mlir.matmul.default", "tile_mlir.attention.default",
        "tile_mlir.matmul.default"]


# -- On the CPU: the chosen kernel in the interpreter -----------------------------------

@pytest.mark.parametrize("m, n, k, dtype", [(1, 24, 64, torch.bfloat16), (40, 24, 200, torch.float16)])
def test_matmul_runs_its_kernel_in_the_interpreter_exactly(m, n, k, dtype):
    # Decode (M = 1) and tails in every dimension; integer data whose sums
    # are exact, so C is the float64 product rounded once.
    a, b = integers((m, k), -3, 3, 1, dtype), integers((k, n), -3, 3, 2, dtype)
    assert torch.equal(ops.matmul(a, b), (a.double() @ b.double()).to(dtype))


def test_matmul_builds_one_kernel_for_every_m_of_a_tile_row_count(monkeypatch):
    # M is the kernels' runtime size: M 3 and 100 (one tile row of 128)
    # run the kernel bounded by one row (its tiles, loops and grid
    # constants); M 260 and 300 (past two rows) the kernel of any M; each
    # result the product rounded once.
    from tile_mlir.ops import kernel_cache
    built, real = set(), kernel_cache.built
    monkeypatch.setattr(kernel_cache, "built", lambda spec, build: built.add(kernel_cache.key(spec)) or
                        real(spec, build))
    b = integers((64, 24), -3, 3, 5)
    for m in (3, 100, 260, 300):
        a = integers((m, 64), -3, 3, m)
        assert torch.equal(ops.matmul(a, b), (a.double() @ b.double()).to(torch.bfloat16)), m
    assert len(built) == 2


def test_matmul_takes_b_in_either_major_order():
    a, bt = integers((16, 64), -2, 2, 3), integers((32, 64), -2, 2, 4)
    want = (a.double() @ bt.double().t()).to(torch.bfloat16)
    assert torch.equal(ops.matmul(a, bt.t()), want)  # a view of (N, K): no copy
    assert torch.equal(ops.matmul(a, bt.t().contiguous()), want)


def test_a_random_matmul_on_the_cpu_accumulates_as_sm90_does():
    # Random normal data: the wgmma chain of sm_90's measured accumulation
    # (K 64: four K16 blocks from +0, test_accumulation.py against the
    # GPU), rounded once to bf16.
    from tile_mlir.interpreter import accumulation
    a, b = torch.randn(16, 64).bfloat16(), torch.randn(64, 16).bfloat16()
    bits = [t.view(torch.int16).numpy().view(np.uint16) for t in (a, b)]
    acc = np.zeros((16, 16), np.uint32)
    for k in range(0, 64, 16):
        acc, _ = accumulation.mma(accumulation.BlockSum(16, 25, "rz"), "f32", "bf16", "bf16", "f32",
                                  bits[0][:, k:k + 16], bits[1][k:k + 16], acc)
    want = torch.from_numpy(acc.view(np.float32)).bfloat16()
    assert torch.equal(ops.matmul(a, b), want)


def test_an_interpreted_result_it_cannot_define_is_an_error_not_a_wrong_answer(monkeypatch):
    # Under the exact-or-undefined model (interpret's accumulation "exact")
    # random data leaves elements of C undefined: the op refuses them.
    import functools
    from tile_mlir.interpreter import launch as interpreter_launch
    monkeypatch.setattr(interpreter_launch, "interpret",
                        functools.partial(interpreter_launch.interpret, accumulation="exact"))
    a, b = torch.randn(16, 64).bfloat16(), torch.randn(64, 16).bfloat16()
    with pytest.raises(InterpretedResultError, match=r"tile_mlir.ops.matmul on the CPU runs its kernel in the "
                       r"interpreter, which could not follow this data: .* elements of C were stored undefined"):
        ops.matmul(a, b)


@pytest.mark.parametrize("dtype, width", [(torch.float16, 5120), (torch.float32, 1000), (torch.bfloat16, 136),
                                          (torch.bfloat16, 100)])
def test_norms_of_any_width_are_their_stated_order(dtype, width):
    # Llama's 5,120 in fp16, 1,000 float32 values, 136 bf16: the kernels'
    # rows of that width, against the references in their order.
    from tile_mlir.kernels.reference import rmsnorm as rms, softmax as soft
    x = torch.randn(2, 3, width, generator=torch.Generator().manual_seed(7)).to(dtype)
    w = torch.randn(width, generator=torch.Generator().manual_seed(8)).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as its correctly rounded result: stated
        y, s = ops.rms_norm(x, w, 1e-5), ops.softmax(x)
    name = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16"}[dtype]
    as_np = (lambda t: t.reshape(-1, width).numpy()) if dtype == torch.float32 else (
        lambda t: t.reshape(-1, width).view(torch.int16).numpy().view(np.uint16))
    assert np.array_equal(as_np(y), rms.reference_rows(as_np(x), as_np(w)[0], name, eps=1e-5))
    assert np.array_equal(as_np(s), soft.reference(as_np(x), name))
    assert y.shape == s.shape == x.shape and y.dtype == s.dtype == dtype


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rms_norm_and_softmax_are_their_stated_order(dtype):
    x = torch.randn(3, 2, 4096, generator=torch.Generator().manual_seed(5)).to(dtype)
    w = torch.randn(4096, generator=torch.Generator().manual_seed(6)).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as its correctly rounded result: stated
        y, s = ops.rms_norm(x, w, 1e-5), ops.softmax(x)
    flat = x.reshape(6, 4096)
    if dtype == torch.float32:
        # float32 takes the best configuration: 512 threads a row.
        want_y = rmsnorm_reference.reference(flat.numpy(), w.numpy(), threads=512, eps=1e-5)
        want_s = softmax_reference.softmax_f32(flat.numpy())
        assert np.array_equal(y.reshape(6, 4096).numpy(), want_y)
        assert np.array_equal(s.reshape(6, 4096).numpy(), want_s)
    else:
        bits = lambda t: t.view(torch.int16).numpy().view(np.uint16)  # noqa: E731
        assert np.array_equal(bits(y.reshape(6, 4096)), rmsnorm_reference.reference_bf16(bits(flat), bits(w), eps=1e-5))
        assert np.array_equal(bits(s.reshape(6, 4096)), softmax_reference.softmax_bf16(bits(flat)))


def exact_qkv(g, shape, h_kv, s_k):
    """Exact attention data of q's `shape` (B, H, S, D): one nonzero of
    0-2 a row of Q, K in -2..2 and V in -4..4 (H_kv heads of S_k keys),
    float64, drawn from `g` in that order."""
    b, h, s, d = shape
    q = torch.zeros(b, h, s, d, dtype=torch.float64)
    q.view(-1, d)[torch.arange(b * h * s), torch.randint(0, d, (b * h * s,), generator=g)] = \
        torch.randint(0, 3, (b * h * s,), generator=g).double()
    k = torch.randint(-2, 3, (b, h_kv, s_k, d), generator=g).double()
    v = torch.randint(-4, 5, (b, h_kv, s_k, d), generator=g).double()
    return q, k, v


@pytest.mark.parametrize("causal, h_kv, s, s_k, dtype", [
    (False, 2, 256, 256, "bfloat16"), (True, 2, 256, 256, "bfloat16"), (True, 1, 256, 256, "float16"),
    (False, 1, 256, 384, "bfloat16"),
    # Tails: 200 queries over 130 keys; causal 100 queries over 300 keys
    # (the bottom-right diagonal); decode, one query over 129 keys.
    (False, 2, 200, 130, "bfloat16"), (True, 1, 100, 300, "float16"), (True, 2, 1, 129, "bfloat16"),
    # Decode with both query heads on one head of K and V: packed as two
    # rows of one head (every row sees every key).
    (True, 1, 1, 129, "bfloat16"), (False, 1, 3, 200, "float16"),
    # Fewer keys than one block (128), not causal: the one block is the
    # last, masked unconditionally.
    (False, 2, 64, 100, "bfloat16"), (False, 1, 3, 100, "float16"),
    # Decode over 600 keys (5 key blocks) in one or two query tiles: the
    # keys split in two parts of 3 blocks (the last one past the keys),
    # merged by the second kernel; one query packed with its group's, or
    # causal with 3 queries (each part starts at a key every row sees).
    (False, 1, 1, 600, "bfloat16"), (True, 2, 3, 600, "float16")])
def test_attention_runs_its_kernel_in_the_interpreter_exactly(causal, h_kv, s, s_k, dtype):
    # One nonzero of 0-2 per row of Q, K in -2..2, scale 1 / log2 e (the
    # kernel's base-2 scale 1): S in -4..4, P's powers of two, their sums
    # and P V exact; O is float64's rounded by the reciprocal and to bf16.
    g = torch.Generator().manual_seed(7)
    # Two query heads: their own heads of K and V, or one shared (MQA).
    b, h, d = 1, 2, 64
    # (And 384 keys for 256 queries: more key blocks than query tiles.)
    q, k, v = exact_qkv(g, (b, h, s, d), h_kv, s_k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as its correctly rounded result
        out, lse = ops.attention(*(t.to(getattr(torch, dtype)) for t in (q, k, v)), causal=causal,
                                 scale=1 / math.log2(math.e), return_lse=True)
    k, v = (t.repeat_interleave(h // h_kv, dim=1) for t in (k, v))
    scores = q @ k.transpose(-1, -2)
    if causal:  # query i sees keys up to i + s_k - s
        scores = scores.masked_fill(torch.ones(s, s_k, dtype=torch.bool).triu(s_k - s + 1), float("-inf"))
    p = torch.exp2(scores - scores.amax(-1, keepdim=True))
    l = p.sum(-1, keepdim=True).float()
    want = ((p @ v).float() * (1 / l)).to(getattr(torch, dtype))
    assert torch.equal(out, want)
    # ln sum exp(S / log2 e) = ln sum 2^S: from the kernel's exact m and l,
    # three float32 roundings and log2's (a few ulp).
    want_lse = torch.logsumexp(scores * math.log(2.0), dim=-1)
    assert lse.dtype == torch.float32 and lse.shape == (b, h, s)
    assert torch.allclose(lse.double(), want_lse, rtol=4e-7, atol=2e-6)


# -- The disk cache --------------------------------------------------------------------

def test_a_second_process_loads_the_kernel_without_mlir(tmp_path):
    # The first process compiles the softmax kernel into the ops cache;
    # the second, where importing MLIR fails, loads the same artifact.
    first = ("from tile_mlir.ops import kernel_cache\n"
             "def build():\n"
             "    from tile_mlir.kernels.softmax import softmax\n"
             "    return softmax(8, 'bfloat16')\n"
             "k = kernel_cache.kernel({'op': 'softmax', 'rows': 8}, build)\n"
             "print(type(k).__name__, k.name)\n")
    second = ("import sys\n"
              "class NoMlir:\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              "        if name == 'mlir' or name.startswith(('mlir.', 'tile_mlir._tile')):\n"
              "            raise ImportError('no MLIR here: ' + name)\n"
              "sys.meta_path.insert(0, NoMlir())\n"
              "from tile_mlir.ops import kernel_cache\n"
              "from tile_mlir.ops.matmul import candidates\n"
              "assert len(candidates('bfloat16')) == 4  # the autotuner's choices, without MLIR\n"
              "def build():\n"
              "    raise AssertionError('compiled again')\n"
              "k = kernel_cache.kernel({'op': 'softmax', 'rows': 8}, build)\n"
              "print(type(k).__name__, k.name)\n")
    # The interpreter running the tests has tile_mlir (installed, or the
    # source tree by a .pth): the children import the same one.
    env = dict(os.environ, TILE_MLIR_CACHE_DIR=str(tmp_path))
    outputs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
               for code in (first, second)]
    assert [o.returncode for o in outputs] == [0, 0], [o.stderr[-2000:] for o in outputs]
    assert outputs[0].stdout.split()[1] == outputs[1].stdout.split()[1] == "softmax_bf16"
    assert outputs[1].stdout.split()[0] == "Kernel"
    assert len(os.listdir(tmp_path / "ops")) == 1


def test_precompile_fills_the_cache_for_a_machine_without_mlir(tmp_path, monkeypatch):
    # Compiled here from the shapes (meta tensors: nothing runs); the
    # second process above shows that a cached artifact loads without MLIR.
    monkeypatch.setenv("TILE_MLIR_CACHE_DIR", str(tmp_path))
    meta = dict(device="meta", dtype=torch.bfloat16)
    # matmul: every configuration the autotuner may choose among.
    from tile_mlir.ops.matmul import candidates
    ops.precompile("matmul", torch.empty(1, 64, **meta), torch.empty(64, 24, **meta))
    ops.precompile("softmax", torch.empty(3, 4096, **meta))
    assert len(os.listdir(tmp_path / "ops")) == len(candidates("bfloat16")) + 1
    ops.precompile("matmul", torch.empty(1, 64, **meta), torch.empty(64, 24, **meta))  # the same kernels
    assert len(os.listdir(tmp_path / "ops")) == len(candidates("bfloat16")) + 1
    with pytest.raises(ValueError, match="b: its 60 rows do not match a's 64 columns"):
        ops.precompile("matmul", torch.empty(1, 64, **meta), torch.empty(60, 12, **meta))
    with pytest.raises(ValueError, match=r"op is one of \['attention', 'attention_backward', 'attention_lse', 'grouped_matmul', 'matmul', "
                       r"'rms_norm', 'scaled_matmul', 'softmax'\], got 'gemm'"):
        ops.precompile("gemm")


def test_a_prepared_launcher_takes_only_what_it_can_launch_unchecked():
    # It trusts its caller's checks, so it refuses up front a kernel whose
    # launch depends on more than addresses (a grid chosen at launch,
    # runtime extents).
    import tile_mlir
    from tile_mlir import script as T
    from tile_mlir.launcher import PreparedLauncher

    @T.function
    def copy(A: T.Tensor((None, 4), "uint32"), Out: T.Tensor((None, 4), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 4), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], Out[t:t + 1], r)

    with pytest.raises(ValueError, match="copy: a prepared launcher takes a kernel of the bare convention with its "
                       "grid compiled in, no cluster and no dependent launch"):
        PreparedLauncher(tile_mlir.compile(copy, target="sm_90"))



def test_rowwise_scales_and_out_dtype_in_the_interpreter():
    # torch._scaled_mm's rowwise scales (scale_a (M, 1), scale_b (1, N)):
    # each accumulator (exact) times its row's, then its column's, in
    # float32, rounded once to out_dtype. And matmul's out_dtype: bf16
    # inputs, C rounded once to fp16.
    g = torch.Generator().manual_seed(4)
    m, n, k = 70, 40, 160
    a = torch.randint(-3, 4, (m, k), generator=g).float()
    bt = torch.randint(-3, 4, (n, k), generator=g).float()
    scale_a, scale_b = torch.rand(m, 1, generator=g) + 0.5, torch.rand(1, n, generator=g) + 0.5
    exact = a.double() @ bt.double().t()
    for out_dtype in (torch.bfloat16, torch.float16):
        c = ops.scaled_matmul(a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn).t(), scale_a, scale_b,
                              out_dtype=out_dtype)
        assert c.dtype == out_dtype and torch.equal(c, (exact.float() * scale_a * scale_b).to(out_dtype))
    c = ops.matmul(a.bfloat16(), bt.bfloat16().t(), out_dtype=torch.float16)
    assert c.dtype == torch.float16 and torch.equal(c, exact.to(torch.float16))
    meta = torch.empty(16, 128, dtype=torch.bfloat16, device="meta")
    assert ops.matmul(meta, meta.t(), out_dtype=torch.float16).dtype == torch.float16
    with pytest.raises(TypeError, match="out_dtype is a torch.dtype or None, got str"):
        ops.matmul(meta, meta.t(), out_dtype="float16")


def test_only_plain_cuda_tensors_skip_the_dispatcher():
    # launch.eager: the wrappers call the implementation directly only for
    # plain CUDA tensors that autograd does not follow, outside
    # torch.compile; CPU, meta and fake tensors go through the op.
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tile_mlir.ops import launch
    x = torch.zeros(2, 2)
    assert not launch.eager(x) and not launch.eager(x.to("meta"))
    with FakeTensorMode():
        assert not launch.eager(torch.zeros(2, 2, device="cuda"))
    assert not launch.eager(torch.zeros(2, 2, requires_grad=True))


def test_attention_is_tuned_among_the_benchmarks_winning_configurations(tmp_path, monkeypatch):
    # The shape's best() first, then the other winners at its d (three at
    # d 64, two at d 128); precompile compiles each.
    import importlib
    from tile_mlir.kernels.configs import AttentionConfig
    attention_module = importlib.import_module("tile_mlir.ops.attention")
    plans = attention_module.candidates(64, True, 1000)
    assert plans[0] == AttentionConfig.best(64, True, 1000) and len(plans) == 3 == len(set(plans))
    assert len(attention_module.candidates(128, False, 4096)) == 2
    monkeypatch.setenv("TILE_MLIR_CACHE_DIR", str(tmp_path))
    q = torch.empty(1, 8, 200, 64, dtype=torch.bfloat16, device="meta")
    kv = torch.empty(1, 2, 300, 64, dtype=torch.bfloat16, device="meta")
    ops.precompile("attention", q, kv, kv, causal=True)
    assert len(os.listdir(tmp_path / "ops")) == 3


def paged_cache(k, v, page_size, spare, g):
    """k and v (B, H_kv, S_k, D) as a paged cache (pages, page_size, H_kv,
    D) with `spare` pages unused, and the block table (B, S_k / page_size)
    that scatters each sequence's pages at random."""
    b, h_kv, s_k, d = k.shape
    width = s_k // page_size
    pages = b * width + spare
    table = torch.randperm(pages, generator=g)[:b * width].view(b, width).int()
    caches = [torch.zeros(pages, page_size, h_kv, d, dtype=k.dtype) for _ in range(2)]
    for cache, x in zip(caches, (k, v)):
        cache[table.flatten().long()] = x.unflatten(2, (width, page_size)).permute(0, 2, 3, 1, 4).flatten(0, 1)
    return caches, table


@pytest.mark.parametrize("h_kv, s, causal", [(2, 1, False), (1, 3, True)])
def test_attention_reads_a_paged_cache_through_its_block_table(h_kv, s, causal):
    # Exact data (as above) over 640 keys in pages of 16 scattered by the
    # table: decode packed with its group (the keys split in 2 parts), or 3
    # causal queries; the log-sum-exp too.
    g = torch.Generator().manual_seed(3)
    b, h, d, s_k = 2, 4, 64, 640
    q, k, v = exact_qkv(g, (b, h, s, d), h_kv, s_k)
    (k_cache, v_cache), table = paged_cache(k, v, 16, 5, g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as its correctly rounded result
        out, lse = ops.attention(q.bfloat16(), k_cache.bfloat16(), v_cache.bfloat16(), causal=causal,
                                 scale=1 / math.log2(math.e), return_lse=True, block_table=table)
    k, v = (t.repeat_interleave(h // h_kv, dim=1) for t in (k, v))
    scores = q @ k.transpose(-1, -2)
    if causal:
        scores = scores.masked_fill(torch.ones(s, s_k, dtype=torch.bool).triu(s_k - s + 1), float("-inf"))
    p = torch.exp2(scores - scores.amax(-1, keepdim=True))
    want = ((p @ v).float() * (1 / p.sum(-1, keepdim=True).float())).bfloat16()
    assert torch.equal(out, want)
    assert torch.allclose(lse.double(), torch.logsumexp(scores * math.log(2.0), dim=-1), rtol=4e-7, atol=2e-6)


def test_a_paged_cache_names_the_bad_argument():
    q = torch.zeros(2, 4, 1, 64, dtype=torch.bfloat16)
    cache = torch.zeros(10, 16, 2, 64, dtype=torch.bfloat16)
    table = torch.zeros(2, 4, dtype=torch.int32)
    cases = [((q, cache, cache), {"block_table": table.long()}, ValueError, r"block_table is torch.int64; the op "
              r"takes torch.int32"),
             ((q, cache[:, :12], cache[:, :12]), {"block_table": table}, ValueError, r"k: pages of 12 keys; the "
              r"kernel takes a power of two from 8"),
             ((q, cache, cache), {"block_table": table[:1]}, ValueError, r"block_table: its shape \(1, 4\) is not "
              r"\(B, pages a sequence\) for q's B 2"),
             ((q, cache[..., :1, :], cache[..., :1, :]), {"block_table": table}, ValueError, r"k: a paged cache is "
              r"taken as it is: contiguous"),
             ((q, cache, cache), {"block_table": [[0]]}, TypeError, r"block_table is a torch.Tensor, got list")]
    for args, kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            ops.attention(*args, **kwargs)
    # The fake: out's shape and dtype, under FakeTensorMode as torch.compile traces it.
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode() as mode:
        fake = [mode.from_tensor(t) for t in (q, cache, cache, table)]
        out = torch.ops.tile_mlir.attention(*fake[:3], False, None, fake[3])
    assert out.shape == q.shape and out.dtype == q.dtype


def test_decode_splits_the_keys_where_its_tiles_leave_the_sms_idle():
    # 8 tiles (one query of 32 heads over 8, B 1) over 128k keys (1024
    # blocks): parts that fill the 132 SMs (16 of 64 blocks) and half as
    # many; 1k keys: parts of 2 blocks at most; 64 tiles: 2 parts; 512
    # tiles, or 3 blocks: none. Causal, only counts whose last part
    # starts at a key every row sees (S_k - S_q).
    import importlib
    from tile_mlir.kernels.configs import AttentionConfig
    attention_module = importlib.import_module("tile_mlir.ops.attention")
    split_counts = attention_module.split_counts
    assert split_counts(8, 131072) == [16, 8] and split_counts(8, 1024) == [4]
    assert split_counts(64, 16384) == [2] and split_counts(512, 131072) == [] and split_counts(1, 384) == []
    assert split_counts(2, 600, diagonal=597) == [2] and split_counts(2, 600, diagonal=300) == []
    # Each count merged by the second kernel, then in the same launch.
    plans = attention_module.candidates(128, False, 4, (8, 131072, None))
    assert [(p.splits, p.one_launch) for p in plans] == [(16, False), (16, True), (8, False), (8, True), (1, False),
                                                         (1, False)]
    assert plans[4] == AttentionConfig.best(128, False, 4)


def test_a_float32_c_is_the_accumulators_themselves(monkeypatch):
    # out_dtype float32: the accumulators stored as they are (the GEMM's
    # workspace is C: no rounding, no second kernel), with rowwise scales
    # through the reduction (times its row's, then its column's), and a
    # split along K summed in order. Exact data: float64's product.
    import importlib
    from tile_mlir.kernels.configs import HopperGemmConfig
    g = torch.Generator().manual_seed(9)
    m, n, k = 5, 72, 512
    a = torch.randint(-3, 4, (m, k), generator=g).float()
    bt = torch.randint(-3, 4, (n, k), generator=g).float()
    exact = (a.double() @ bt.double().t()).float()
    c = ops.matmul(a.bfloat16(), bt.bfloat16().t(), out_dtype=torch.float32)
    assert c.dtype == torch.float32 and torch.equal(c, exact)
    scale_a, scale_b = torch.rand(m, 1, generator=g) + 0.5, torch.rand(1, n, generator=g) + 0.5
    c = ops.scaled_matmul(a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn).t(), scale_a, scale_b,
                          out_dtype=torch.float32)
    assert torch.equal(c, exact * scale_a * scale_b)
    matmul_module = importlib.import_module("tile_mlir.ops.matmul")
    split = HopperGemmConfig(consumers=1, bn=64, stages=3, blocks=4, group_m=1, split_k=2)
    monkeypatch.setattr(matmul_module, "candidates", lambda *args: [matmul_module.GemmPlan(split)])
    assert torch.equal(ops.matmul(a.half(), bt.half().t(), out_dtype=torch.float32), exact)


def test_n_and_k_off_the_kernels_rows_take_padded_copies():
    # N 12 and K 20 (bf16), N 12 and K 24 (e4m3, rowwise): A and Bt
    # zero-padded to whole 16-byte rows, C's padded columns dropped; exact
    # data, so C is float64's product rounded once.
    g = torch.Generator().manual_seed(8)
    a = torch.randint(-3, 4, (5, 20), generator=g).float()
    bt = torch.randint(-3, 4, (12, 20), generator=g).float()
    c = ops.matmul(a.bfloat16(), bt.bfloat16().t())
    assert c.shape == (5, 12) and c.is_contiguous()
    assert torch.equal(c, (a.double() @ bt.double().t()).to(torch.bfloat16))
    a8 = torch.randint(-3, 4, (5, 24), generator=g).float()
    bt8 = torch.randint(-3, 4, (12, 24), generator=g).float()
    scale_a, scale_b = torch.rand(5, 1, generator=g) + 0.5, torch.rand(1, 12, generator=g) + 0.5
    c = ops.scaled_matmul(a8.to(torch.float8_e4m3fn), bt8.to(torch.float8_e4m3fn).t(), scale_a, scale_b)
    assert torch.equal(c, ((a8.double() @ bt8.double().t()).float() * scale_a * scale_b).to(torch.bfloat16))


def test_a_short_m_is_tuned_among_split_k_configurations():
    # M 16 x N 4096: one consumer of 64 rows by 128 columns makes 32
    # tiles, split 4 ways to 128 units; the default's 16 tiles of 128 x
    # 256, 8 ways (64 steps of K: 8 each). Swap-AB (N's rows as the tiles,
    # M as 64 columns): 64 tiles of one consumer split 2 ways, 32 of two
    # split 4 ways. Each split plan also in one launch. A long M adds none.
    import importlib
    from tile_mlir.kernels.configs import HopperGemmConfig
    matmul_module = importlib.import_module("tile_mlir.ops.matmul")
    splits = [(p.config.consumers, p.config.bn, p.config.split_k, p.swap_ab, p.one_launch)
              for p in matmul_module.candidates("bfloat16", 16, 4096, 4096)]
    two = [(1, 128, 4, False), (2, 256, 8, False), (1, 64, 2, True), (2, 64, 4, True)]
    assert splits == [(2, 256, 1, False, False), (2, 256, 1, False, False), (2, 128, 1, False, False),
                      (1, 128, 1, False, False)] + [p + (False,) for p in two] + [p + (True,) for p in two]
    assert all(p.config.split_k == 1 for p in matmul_module.candidates("bfloat16", 4096, 4096, 4096))
    assert HopperGemmConfig.best("bfloat16") == matmul_module.candidates("bfloat16", 16, 4096, 4096)[0].config


def test_a_short_m_is_also_split_to_balance_the_sms_rounds():
    # M 16 x N 6144 x K 4096 in e4m3 (32 steps of 128). Swap-AB with one
    # consumer: 96 tiles of 64 rows of N. Split 2 ways (filling the SMs
    # once is not possible; 2 at least) they are 192 units on 132 SMs, two
    # rounds for 60 SMs and one for 72: 192 / 264 busy. Split 4 ways, 384
    # units: 384 / 396. Two consumers: 48 tiles, 96 units (96 / 132) or
    # split 8 ways 384. Without swapping, one consumer of 64 rows by 128
    # columns: 48 tiles, 96 units unsplit, 8 ways 384. The default's 24
    # tiles fill the SMs split 4 ways (96 units) and balance no better
    # (16 ways would leave 2 steps a slice). Each split also in one launch.
    import importlib
    matmul_module = importlib.import_module("tile_mlir.ops.matmul")
    plans = matmul_module.candidates("e4m3", 16, 6144, 4096)
    split = [(p.config.consumers, p.config.bn, p.config.split_k, p.swap_ab) for p in plans
             if p.config.split_k > 1 and not p.one_launch]
    assert split == [(1, 128, 2, False), (1, 128, 8, False), (2, 256, 4, False),
                     (1, 64, 2, True), (1, 64, 4, True), (2, 64, 2, True), (2, 64, 8, True)]
    assert [p for p in plans if p.one_launch] == [
        dataclasses.replace(p, one_launch=True) for p in plans if p.config.split_k > 1 and not p.one_launch]
    # A K of 2 steps (bf16, 128) leaves a split nothing to balance: unsplit,
    # and swap-AB's least split of 2 (its reduction writes C transposed).
    tiny = matmul_module.candidates("bfloat16", 1, 64, 128)
    assert {(p.swap_ab, p.config.split_k) for p in tiny} == {(False, 1), (True, 2)}


def test_split_k_runs_through_the_op_in_the_interpreter(monkeypatch):
    # The op with a split-K configuration first (the interpreter takes the
    # first candidate): the partial GEMM into a float32 workspace, then the
    # reduction with rowwise scales into fp16; exact data, so C is
    # float64's scaled product rounded once.
    import importlib
    from tile_mlir.kernels.configs import HopperGemmConfig
    matmul_module = importlib.import_module("tile_mlir.ops.matmul")
    split = HopperGemmConfig(consumers=1, bn=64, stages=3, blocks=4, group_m=1, split_k=2)
    g = torch.Generator().manual_seed(5)
    m, n, k = 3, 72, 512
    a = torch.randint(-3, 4, (m, k), generator=g).float()
    bt = torch.randint(-3, 4, (n, k), generator=g).float()
    scale_a, scale_b = torch.rand(m, 1, generator=g) + 0.5, torch.rand(1, n, generator=g) + 0.5
    exact = (a.double() @ bt.double().t()).float()
    # Then swap-AB: C^T = Bt A^T (72 rows of Bt as two tiles of 64, the
    # three rows of A as the kernel's N), the reduction writing C back.
    # Each also in one launch (the tiles' last slices sum the split).
    for swap, one in ((False, False), (True, False), (False, True), (True, True)):
        monkeypatch.setattr(matmul_module, "candidates", lambda *args: [matmul_module.GemmPlan(split, swap, one)])
        c = ops.scaled_matmul(a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn).t(), scale_a, scale_b,
                              out_dtype=torch.float16)
        assert torch.equal(c, (exact * scale_a * scale_b).to(torch.float16)), (swap, one)
        c = ops.matmul(a.bfloat16(), bt.bfloat16().t())
        assert torch.equal(c, exact.to(torch.bfloat16)), (swap, one)


def test_swap_ab_takes_an_m_up_to_128_as_the_kernels_128_columns(monkeypatch):
    # M 100: swap-AB's tiles are 64 rows of Bt by 128 columns (M's 100
    # and 28 past the edge, which store nothing), split in two, summed by
    # the reduction or in the GEMM's launch; exact data, so C is float64's
    # product rounded once. The tuner offers such plans to M 128, not past.
    import importlib
    from tile_mlir.kernels.configs import HopperGemmConfig
    matmul_module = importlib.import_module("tile_mlir.ops.matmul")
    swaps = [p.config for p in matmul_module.candidates("bfloat16", 128, 4096, 4096) if p.swap_ab]
    assert {(c.bn, c.stages) for c in swaps} == {(128, 6)}
    assert not any(p.swap_ab for p in matmul_module.candidates("bfloat16", 129, 4096, 4096))
    g = torch.Generator().manual_seed(23)
    a = torch.randint(-3, 4, (100, 512), generator=g).float()
    bt = torch.randint(-3, 4, (72, 512), generator=g).float()
    exact = (a.double() @ bt.double().t()).to(torch.bfloat16)
    config = HopperGemmConfig(consumers=1, bn=128, stages=3, blocks=4, group_m=1, split_k=2)
    for one in (False, True):
        monkeypatch.setattr(matmul_module, "candidates", lambda *args: [matmul_module.GemmPlan(config, True, one)])
        assert torch.equal(ops.matmul(a.bfloat16(), bt.bfloat16().t()), exact), one


def test_scaled_matmul_is_scaled_mms_product_in_the_interpreter():
    # e4m3 integers and power-of-two scales: every step exact, so C is the
    # float64 product times both scales rounded once to bf16 (as
    # torch._scaled_mm takes them: B the transposed view of a row-major Bt).
    g = torch.Generator().manual_seed(3)
    m, n, k = 40, 24, 272
    a = torch.randint(-3, 4, (m, k), generator=g).float().to(torch.float8_e4m3fn)
    bt = torch.randint(-3, 4, (n, k), generator=g).float().to(torch.float8_e4m3fn)
    scale_a, scale_b = torch.tensor(0.125), torch.tensor(4.0)
    c = ops.scaled_matmul(a, bt.t(), scale_a, scale_b)
    assert c.dtype == torch.bfloat16 and torch.equal(c, ((a.double() @ bt.double().t()) * 0.5).to(torch.bfloat16))
    meta = dict(device="meta")
    fake = ops.scaled_matmul(torch.empty(16, 128, dtype=torch.float8_e4m3fn, **meta),
                             torch.empty(128, 64, dtype=torch.float8_e4m3fn, **meta),
                             torch.empty((), **meta), torch.empty((), **meta))
    assert fake.shape == (16, 64) and fake.dtype == torch.bfloat16
    with pytest.raises(ValueError, match=r"scale_a: shape \(2,\): one element \(per tensor\) or \(40, 1\) with "
                       r"scale_b \(1, 24\) \(rowwise\)"):
        ops.scaled_matmul(a, bt.t(), torch.ones(2), scale_b)
    with pytest.raises(ValueError, match=r"scale_b: shape \(24, 1\): one element \(per tensor\) or \(1, 24\)"):
        ops.scaled_matmul(a, bt.t(), torch.ones(m, 1), torch.ones(n, 1))
    with pytest.raises(ValueError, match=r"out_dtype: torch.int32; C is torch.bfloat16, torch.float16 or "
                       r"torch.float32"):
        ops.scaled_matmul(a, bt.t(), scale_a, scale_b, out_dtype=torch.int32)
    with pytest.raises(ValueError, match=r"a is torch.bfloat16; the op takes torch.float8_e4m3fn"):
        ops.scaled_matmul(a.bfloat16(), bt.t(), scale_a, scale_b)


@pytest.mark.parametrize("causal, h_kv, dtype, s, d", [
    (False, 2, torch.bfloat16, 128, 64), (True, 2, torch.bfloat16, 128, 64), (False, 1, torch.bfloat16, 128, 64),
    (True, 1, torch.float16, 100, 64),
    # d 128: the kernel on two warpgroups (ops.attention_grad.WARPGROUPS).
    (True, 1, torch.bfloat16, 130, 128)])
def test_attention_is_differentiable_through_its_backward_kernel(causal, h_kv, dtype, s, d):
    # autograd through tile_mlir::attention_lse and the backward kernel
    # (interpreted): float64's gradients within a few bf16 ulps of their
    # largest element (the kernel's bound: test_kernels_attention_backward.py),
    # dQ scaled and rounded after the kernel's float32 sum.
    g = torch.Generator().manual_seed(1)
    b, h = 1, 2
    q, k, v = exact_qkv(g, (b, h, s, d), h_kv, s)
    grad = torch.randint(-2, 3, (b, h, s, d), generator=g).double()
    scale = 1 / math.log2(math.e)
    leaves = [t.to(dtype).requires_grad_() for t in (q, k, v)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as the GPU's
        ops.attention(*leaves, causal=causal, scale=scale).backward(grad.to(dtype))
    exact = [t.clone().requires_grad_() for t in (q, k, v)]
    wide = [t.repeat_interleave(h // h_kv, dim=1) for t in exact[1:]]  # MQA: both query heads on one
    scores = exact[0] @ wide[0].transpose(-1, -2) * scale
    if causal:
        scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
    (torch.softmax(scores, -1) @ wide[1]).backward(grad)
    for got, want in zip(leaves, exact):
        assert got.grad.dtype == dtype and got.grad.shape == want.shape
        assert (got.grad.double() - want.grad).abs().max() <= 2 ** -6 * want.grad.abs().max()


@pytest.mark.parametrize("use_out", [True, False])
def test_the_log_sum_exps_gradient_flows_through_the_backward_kernel(use_out):
    # d lse_i / d s_ij = P_ij, so a gradient g of the log-sum-exp is
    # dS = P (dP - (D - g)): the kernel's D less g. With the output unused
    # too, only lse's gradient (dO zero). float64's gradients within the
    # kernel's bound (test_attention_is_differentiable_through_its_backward_kernel).
    g = torch.Generator().manual_seed(2)
    b, h, s, d = 1, 2, 128, 64
    q, k, v = exact_qkv(g, (b, h, s, d), 1, s)
    grad = torch.randint(-2, 3, (b, h, s, d), generator=g).double()
    grad_lse = torch.randint(-2, 3, (b, h, s), generator=g).double()
    scale = 1 / math.log2(math.e)
    leaves = [t.bfloat16().requires_grad_() for t in (q, k, v)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ex2.approx as the GPU's
        out, lse = ops.attention(*leaves, causal=True, scale=scale, return_lse=True)
        loss = (lse.double() * grad_lse).sum() + ((out.double() * grad).sum() if use_out else 0)
        loss.backward()
    exact = [t.clone().requires_grad_() for t in (q, k, v)]
    wide = [t.repeat_interleave(h, dim=1) for t in exact[1:]]
    scores = (exact[0] @ wide[0].transpose(-1, -2) * scale).masked_fill(
        torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
    want = (torch.logsumexp(scores, -1) * grad_lse).sum()
    if use_out:
        want = want + ((torch.softmax(scores, -1) @ wide[1]) * grad).sum()
    want.backward()
    for got, want in zip(leaves, exact):
        if want.grad is None:  # V, without the output: lse does not depend on it
            assert not use_out and torch.equal(got.grad, torch.zeros_like(got.grad))
            continue
        assert (got.grad.double() - want.grad).abs().max() <= 2 ** -6 * want.grad.abs().max(), \
            (got.grad.double() - want.grad).abs().max()


def test_a_backward_the_kernel_does_not_take_is_refused_by_name():
    # A paged cache: the backward takes K and V contiguous.
    q = torch.zeros((1, 2, 1, 64), dtype=torch.bfloat16, requires_grad=True)
    cache = torch.zeros((2, 16, 2, 64), dtype=torch.bfloat16)
    table = torch.tensor([[1, 0]], dtype=torch.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ops.attention(q, cache, cache, block_table=table)
        with pytest.raises(NotImplementedError, match=r"tile_mlir.ops.attention's backward: a paged cache: the "
                           r"backward takes k and v as \(B, H_kv, S_k, D\)"):
            out.sum().backward()


def test_grouped_matmul_multiplies_each_experts_rows_and_zeros_the_rest():
    # The masked layout (interpreted): experts of 0, 1 and 129 rows of a
    # capacity of 130 (two tiles, the second of one row), bit for bit on
    # exact data; b as a Linear weight's transposed view and as a
    # contiguous (E, K, N) (copied once) give the same C.
    g = torch.Generator().manual_seed(5)
    e, cap, k, n = 3, 130, 64, 128
    a = torch.randint(-2, 3, (e, cap, k), generator=g).bfloat16()
    w = torch.randint(-2, 3, (e, n, k), generator=g).bfloat16()
    counts = torch.tensor([0, 1, 129], dtype=torch.int32)
    c = ops.grouped_matmul(a, w.transpose(1, 2), counts=counts)
    want = torch.einsum("erk,enk->ern", a.double(), w.double())
    assert c.shape == (e, cap, n) and c.dtype == torch.bfloat16
    for i, m in enumerate(counts.tolist()):
        assert torch.equal(c[i, :m].double(), want[i, :m]) and not c[i, m:].any(), i
    assert torch.equal(ops.grouped_matmul(a, w.transpose(1, 2).contiguous(), counts=counts), c)


def test_grouped_matmul_takes_256_columns_a_tile_for_few_experts():
    # 16-bit inputs of at most 8 experts run 128 x 256 tiles (measured
    # faster there; ops/grouped.py), more experts and e4m3 128 x 128: the
    # contiguous layout through the 256-column kernel (interpreted), bit
    # for bit on exact data, a tile past the first expert's rows storing
    # nothing there.
    from tile_mlir.ops.grouped import _config
    assert (_config(256, 8, torch.bfloat16).bn, _config(256, 9, torch.bfloat16).bn,
            _config(256, 8, torch.float8_e4m3fn).bn, _config(192, 2, torch.float16).bn) == (256, 128, 128, 64)
    g = torch.Generator().manual_seed(6)
    e, rows, k, n = 2, 136, 64, 256
    a = torch.randint(-2, 3, (rows, k), generator=g).bfloat16()
    w = torch.randint(-2, 3, (e, n, k), generator=g).bfloat16()
    offs = torch.tensor([9, rows], dtype=torch.int32)
    c = ops.grouped_matmul(a, w.transpose(1, 2), offs=offs)
    for i, (start, end) in enumerate(((0, 9), (9, rows))):
        assert torch.equal(c[start:end].double(), a[start:end].double() @ w[i].double().T), i


def test_grouped_matmul_refuses_bad_arguments_by_name():
    meta = dict(device="meta", dtype=torch.bfloat16)
    a, b = torch.empty(4, 64, 128, **meta), torch.empty(4, 128, 256, **meta)
    counts = torch.empty(4, dtype=torch.int32, device="meta")
    assert ops.grouped_matmul(a, b, counts=counts).shape == (4, 64, 256)  # the fakes
    assert ops.grouped_matmul(a[0], b, offs=counts).shape == (64, 256)
    with pytest.raises(ValueError, match=r"a has 4 dimensions; the op takes 2 or 3"):
        ops.grouped_matmul(a[None], b, counts=counts)
    with pytest.raises(ValueError, match=r"counts: missing: a of 3 dimensions takes counts"):
        ops.grouped_matmul(a, b, offs=counts)
    with pytest.raises(ValueError, match=r"counts: given with a of 2 dimensions \(it takes offs\)"):
        ops.grouped_matmul(a[0], b, counts=counts, offs=counts)
    with pytest.raises(ValueError, match=r"counts is torch.int64; the op takes torch.int32"):
        ops.grouped_matmul(a, b, counts=counts.long())
    with pytest.raises(ValueError, match=r"b: 3 experts; a has 4"):
        ops.grouped_matmul(a, b[:3], counts=counts)
    with pytest.raises(ValueError, match=r"offs: 3 offs for 4 experts"):
        ops.grouped_matmul(a[0], b, offs=counts[:3])
    with pytest.raises(ValueError, match=r"b: N 96 is not a multiple of 64"):
        ops.grouped_matmul(a, b[..., :96], counts=counts)
    with pytest.raises(ValueError, match=r"b: its 64 rows do not match a's 128 columns"):
        ops.grouped_matmul(a, b[:, :64], counts=counts)


@pytest.mark.parametrize("offsets", [[0, 1, 151, 200], [130, 130, 130]])
def test_grouped_matmul_multiplies_each_experts_contiguous_rows(offsets):
    # The contiguous layout (interpreted), torch._grouped_mm's offsets:
    # experts of 0, 1, 150 and 49 rows of 210 (the last 10 in none: zeros);
    # one expert with every row and two empty ones.
    g = torch.Generator().manual_seed(6)
    rows, k, n = (210 if offsets[-1] == 200 else 130), 64, 128
    a = torch.randint(-2, 3, (rows, k), generator=g).bfloat16()
    w = torch.randint(-2, 3, (len(offsets), n, k), generator=g).bfloat16()
    c = ops.grouped_matmul(a, w.transpose(1, 2), offs=torch.tensor(offsets, dtype=torch.int32))
    start = 0
    for e, end in enumerate(offsets):
        assert torch.equal(c[start:end].double(), a[start:end].double() @ w[e].double().t()), e
        start = end
    assert c.shape == (rows, n) and not c[offsets[-1]:].any()


def test_grouped_matmul_offsets_that_decrease_fail_the_device_assertion():
    a = torch.zeros(64, 64, dtype=torch.bfloat16)
    w = torch.zeros(2, 64, 128, dtype=torch.bfloat16)
    with pytest.raises(RuntimeError):
        ops.grouped_matmul(a, w, offs=torch.tensor([40, 20], dtype=torch.int32))


def test_grouped_matmul_traces_as_one_node_under_torch_compile():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return lambda *args: (torch.zeros(4, 64, 256, dtype=torch.bfloat16),)

    def moe(x, w, counts):
        return ops.grouped_matmul(x, w.transpose(1, 2), counts=counts)

    torch._dynamo.reset()
    args = (torch.zeros(4, 64, 128, dtype=torch.bfloat16), torch.zeros(4, 256, 128, dtype=torch.bfloat16),
            torch.zeros(4, dtype=torch.int32))
    assert torch.compile(moe, fullgraph=True, backend=backend)(*args).shape == (4, 64, 256)
    (gm,) = graphs
    assert [str(n.target) for n in gm.graph.nodes if str(n.target).startswith("tile_mlir.")] == \
        ["tile_mlir.grouped_matmul.default"]


def test_grouped_matmul_takes_block_scaled_e4m3():
    # The masked layout in e4m3 (interpreted): 1 x 128 scales of a's rows
    # and 128 x 128 of b, powers of two (every step exact); C bf16, each
    # 128-block's partial times its scales, summed: float64's here.
    g = torch.Generator().manual_seed(7)
    e, cap, k, n = 2, 64, 256, 128
    a = torch.randint(-2, 3, (e, cap, k), generator=g).float()
    w = torch.randint(-2, 3, (e, n, k), generator=g).float()
    scale_a = torch.exp2(torch.randint(-3, 4, (e, cap, k // 128), generator=g).float())
    scale_b = torch.exp2(torch.randint(-3, 4, (e, n // 128, k // 128), generator=g).float())
    counts = torch.tensor([64, 5], dtype=torch.int32)
    c = ops.grouped_matmul(a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn).transpose(1, 2), counts=counts,
                           scale_a=scale_a, scale_b=scale_b)
    want = sum(torch.einsum("erk,enk->ern", a[..., 128 * j:128 * j + 128].double(), w[..., 128 * j:128 * j + 128].double())
               * scale_a[..., j:j + 1].double() * scale_b[:, None, :, j].repeat_interleave(128, -1).double()
               for j in range(k // 128))
    assert c.dtype == torch.bfloat16
    for i, m in enumerate(counts.tolist()):
        assert torch.equal(c[i, :m], want[i, :m].bfloat16()) and not c[i, m:].any(), i
    with pytest.raises(ValueError, match=r"scale_b: shape \(2, 1, 1\); the blocks make \(2, 1, 2\)"):
        ops.grouped_matmul(a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn).transpose(1, 2), counts=counts,
                           scale_a=scale_a, scale_b=scale_b[..., :1])
    with pytest.raises(ValueError, match=r"scale_a: given for torch.bfloat16: only e4m3 takes block scales"):
        ops.grouped_matmul(a.bfloat16(), w.bfloat16().transpose(1, 2), counts=counts, scale_a=scale_a)


def test_scaled_matmul_takes_block_scales():
    # 1 x 128 scales of a's rows and 128 x 128 of b's (N, K) storage
    # (interpreted, one expert of the grouped kernel's contiguous layout):
    # 100 rows (a partial tile), K of two blocks; powers of two, so C is
    # float64's rounded to bf16.
    g = torch.Generator().manual_seed(8)
    m, k, n = 100, 256, 256
    a = torch.randint(-2, 3, (m, k), generator=g).float()
    bt = torch.randint(-2, 3, (n, k), generator=g).float()
    scale_a = torch.exp2(torch.randint(-3, 4, (m, k // 128), generator=g).float())
    scale_b = torch.exp2(torch.randint(-3, 4, (n // 128, k // 128), generator=g).float())
    c = ops.scaled_matmul(a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn).t(), scale_a, scale_b)
    want = sum((a[:, 128 * j:128 * j + 128].double() @ bt[:, 128 * j:128 * j + 128].double().t())
               * scale_a[:, j:j + 1].double() * scale_b[:, j].repeat_interleave(128)[None].double() for j in range(2))
    assert c.dtype == torch.bfloat16 and torch.equal(c, want.bfloat16())
    with pytest.raises(ValueError, match=r"out_dtype: torch.float16: block-scaled products are rounded to "
                       r"torch.bfloat16"):
        ops.scaled_matmul(a.to(torch.float8_e4m3fn), bt.to(torch.float8_e4m3fn).t(), scale_a, scale_b,
                          out_dtype=torch.float16)
