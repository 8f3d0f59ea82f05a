"""tile_mlir.ops in a model block (RMSNorm, the QKV projection, causal
attention, the output projection; bf16, 256 tokens, 32 heads of 128) run
three ways: eagerly, under torch.compile(fullgraph=True) (each op one node
of the graph), and captured in a CUDA graph and replayed. The three must
give the same bits; each is timed (the kernels from the ops cache that
`build` filled; the first eager call tunes the projections)."""

import json
import os

import torch

from .timing import median_ms

TOKENS, HEADS, D = 256, 32, 128
WIDTH = HEADS * D
ENTRIES = {}


def shapes():
    """The block's operands, as meta tensors: x, the norm's weight, and the
    projections' weights stored (N, K) as nn.Linear keeps them."""
    meta = dict(device="meta", dtype=torch.bfloat16)
    return (torch.empty(TOKENS, WIDTH, **meta), torch.empty(WIDTH, **meta),
            torch.empty(3 * WIDTH, WIDTH, **meta), torch.empty(WIDTH, WIDTH, **meta))


def block(ops, x, w, wqkv, wo):
    h = ops.rms_norm(x, w, 1e-6)
    qkv = ops.matmul(h, wqkv.t())
    q, k, v = (t.reshape(TOKENS, HEADS, D).transpose(0, 1).unsqueeze(0).contiguous() for t in qkv.split(WIDTH, 1))
    o = ops.attention(q, k, v, causal=True)
    return ops.matmul(o[0].transpose(0, 1).reshape(TOKENS, WIDTH), wo.t())


def build(out):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops

    class Precompiling:
        """ops whose calls compile their kernels (meta tensors)."""
        def __getattr__(self, name):
            return lambda *args, **kwargs: (ops.precompile(name, *args, **kwargs), _fake(name, *args))[1]

    def _fake(name, *args):
        return getattr(ops, name)(*args) if name != "attention" else torch.empty_like(args[0])
    block(Precompiling(), *shapes())
    print("precompiled", len(os.listdir(os.path.join(out, "ops"))), "kernels", flush=True)


def run(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    gen = torch.Generator(device="cuda").manual_seed(0)
    args = [(torch.randn(t.shape, device="cuda", generator=gen) * (0.02 if i > 1 else 1)).to(torch.bfloat16)
            for i, t in enumerate(shapes())]
    eager = block(ops, *args)                       # tunes the projections, loads every kernel
    compiled = torch.compile(lambda *a: block(ops, *a), fullgraph=True)
    by_compile = compiled(*args)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):                 # a warm-up on the capture's stream
        block(ops, *args)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = block(ops, *args)
    graph.replay()
    torch.cuda.synchronize()
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "same_bits": {"compile": bool(torch.equal(by_compile, eager)),
                            "cuda_graph": bool(torch.equal(captured, eager))},
              "ms": {"eager": median_ms(lambda: block(ops, *args)), "compile": median_ms(lambda: compiled(*args)),
                     "cuda_graph": median_ms(graph.replay)}}
    report["ratio_vs_eager"] = {k: report["ms"]["eager"] / v for k, v in report["ms"].items() if k != "eager"}
    print(json.dumps(report, indent=1), flush=True)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
