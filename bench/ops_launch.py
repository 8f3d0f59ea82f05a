"""The host cost of a call (tile_mlir.ops against the torch operator it
replaces, torch.matmul, F.scaled_dot_product_attention, torch.softmax and
an RMSNorm): the host's microseconds a call in a loop whose launches queue
behind a busy GPU; and each op's first call in the
process, its kernel loaded from the ops cache that `build` filled (no
MLIR on the GPU machine; matmul's first call times its candidate
configurations, and the report keeps the autotuner's choices). Each op's result is checked against torch's."""

import json
import math
import os
import time

import torch
import torch.nn.functional as F

CALLS = 200
# (op, its arguments' shapes and dtype, keyword arguments): small, so the
# host sets the pace.
CASES = {
    "matmul_1x1024x1024": ("matmul", [(1, 1024), (1024, 1024)], torch.bfloat16, {}),
    "matmul_16x4096x4096": ("matmul", [(16, 4096), (4096, 4096)], torch.bfloat16, {}),
    "attention_1x8x256x64_causal": ("attention", [(1, 8, 256, 64)] * 3, torch.bfloat16, {"causal": True}),
    "rms_norm_8x4096": ("rms_norm", [(8, 4096), (4096,)], torch.bfloat16, {"eps": 1e-6}),
    "softmax_8x4096": ("softmax", [(8, 4096)], torch.bfloat16, {}),
    # The variants' kernels on the GPU: C in float32 (the accumulators
    # themselves), and e4m3 with torch._scaled_mm's rowwise scales.
    "matmul_16x4096x4096_float32_c": ("matmul", [(16, 4096), (4096, 4096)], torch.bfloat16,
                                      {"out_dtype": torch.float32}),
    "scaled_matmul_16x4096x4096_rowwise": ("scaled_matmul", [(16, 4096), (4096, 4096), (16, 1), (1, 4096)],
                                           torch.float8_e4m3fn, {}),
    # Inputs at an odd offset (a view 2 bytes past a 16-byte address): the
    # general path's aligned copies, on the GPU.
    "rms_norm_8x4096_at_offset": ("rms_norm", [(8, 4096), (4096,)], torch.bfloat16, {"eps": 1e-6}, 1),
    "matmul_16x4096x4096_at_offset": ("matmul", [(16, 4096), (4096, 4096)], torch.bfloat16, {}, 1),
}
ENTRIES = {}


def arguments(op, shapes, dtype, device, gen=None, offset=0):
    """A case's tensors: random normal (empty on meta) in `dtype`, each
    `offset` elements into its allocation; for the matmuls, B as the
    transposed view of a row-major (N, K) (nn.Linear's weight, as the
    kernel takes it: no copy) and the scales in float32 around 1."""
    def make(shape, dt):
        if device == "meta":
            return torch.empty(shape, dtype=dt, device=device)
        flat = torch.randn(math.prod(shape) + offset, device=device, generator=gen).to(dt)
        return flat[offset:].view(shape)
    if op not in ("matmul", "scaled_matmul"):
        return [make(s, dtype) for s in shapes]
    (m, k), (_, n), *scale_shapes = shapes
    a, w = make((m, k), dtype), make((n, k), dtype)
    scales = [make(s, torch.float32).abs() + 0.5 if device != "meta" else make(s, torch.float32)
              for s in scale_shapes]
    return [a, w.t(), *scales]


def build(out):
    """The cases' kernels, compiled into `out` as an ops cache."""
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops
    for name, (op, shapes, dtype, kwargs, *_) in CASES.items():
        ops.precompile(op, *arguments(op, shapes, dtype, "meta"), **kwargs)
        print(name, "precompiled", flush=True)


def peer(op, args, kwargs):
    """The torch operator the op replaces."""
    if op == "matmul":
        return lambda: torch.matmul(*args).to(kwargs.get("out_dtype") or args[0].dtype)
    if op == "scaled_matmul":
        return lambda: torch._scaled_mm(*args, out_dtype=torch.bfloat16)
    if op == "attention":
        return lambda: F.scaled_dot_product_attention(*args, is_causal=kwargs["causal"])
    if op == "softmax":
        return lambda: torch.softmax(args[0], -1)
    return lambda: F.rms_norm(args[0], (args[0].shape[-1],), args[1], kwargs["eps"])


def per_call_us(fn):
    """The host's time a call: the calls queue behind a busy kernel (about
    50 ms, longer than the loop), so neither the GPU's time nor a full
    launch queue (CALLS times at most 4 launches stays under its 1,024)
    is in it."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)
    start = time.perf_counter()
    for _ in range(CALLS):
        fn()
    host = time.perf_counter() - start
    torch.cuda.synchronize()
    return host / CALLS * 1e6


def run(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "calls": CALLS, "ops": {}}
    gen = torch.Generator(device="cuda").manual_seed(0)
    for name, (op, shapes, dtype, kwargs, *offset) in CASES.items():
        args = arguments(op, shapes, dtype, "cuda", gen, *offset)
        ours = lambda op=op, args=args, kwargs=kwargs: getattr(ops, op)(*args, **kwargs)  # noqa: E731
        start = time.perf_counter()
        got = ours()
        torch.cuda.synchronize()
        first_ms = (time.perf_counter() - start) * 1e3
        want = peer(op, args, kwargs)()
        scale = float(want.double().abs().max())
        entry = {"first_call_ms": first_ms,
                 "max_error_relative_to_max": float((got.double() - want.double()).abs().max()) / scale,
                 "us_per_call": {"tile_mlir": per_call_us(ours), "torch": per_call_us(peer(op, args, kwargs))}}
        entry["ratio_vs_torch"] = entry["us_per_call"]["torch"] / entry["us_per_call"]["tile_mlir"]
        report["ops"][name] = entry
        print(name, {k: round(v, 1) for k, v in entry["us_per_call"].items()}, "x%.3f torch" % entry["ratio_vs_torch"],
              "first call %.1f ms" % first_ms, "rel err %.2e" % entry["max_error_relative_to_max"], flush=True)
        chosen = os.path.join(artifacts, "ops", "autotune.json")
        if os.path.exists(chosen):
            with open(chosen) as f:
                report["autotune"] = json.load(f)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)
