#!/usr/bin/env python3
"""Where an op's host time goes (issue 55, item 3), on the GPU machine:
each eager case of bench/ops_launch.py under cProfile (its launches queued
behind a busy GPU, as the benchmark times them), the functions that take
the most of a call, and the host primitives an eager call is made of,
each timed alone.

    python -m bench build ops_launch                                        # here
    PYTHONPATH=python:. python3 tools/gpu/host_profile.py build/bench/ops_launch OUT.json   # there
"""

import cProfile
import json
import os
import pstats
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from bench import ops_launch  # noqa: E402

CALLS = 200  # a round: its launches stay under the launch queue's 1,024
ROUNDS = 10
TOP = 14


def busy_rounds(fn, rounds=ROUNDS):
    """fn called CALLS times a round, each round behind a busy kernel."""
    for _ in range(rounds):
        torch.cuda.synchronize()
        torch.cuda._sleep(100_000_000)
        for _ in range(CALLS):
            fn()
    torch.cuda.synchronize()


def profile(fn):
    """The functions taking the most host time a call: (name, us a call in
    the function itself, us a call with what it calls, calls a call)."""
    profiler = cProfile.Profile()
    profiler.enable()
    busy_rounds(fn)
    profiler.disable()
    calls = CALLS * ROUNDS
    stats = pstats.Stats(profiler).stats
    rows = []
    for (path, line, name), (_, ncalls, own, cumulative, _) in stats.items():
        where = f"{os.path.basename(path)}:{line}:{name}" if line else name
        rows.append((where, own / calls * 1e6, cumulative / calls * 1e6, ncalls / calls))
    rows.sort(key=lambda row: -row[1])
    return [{"function": w, "own_us": round(o, 2), "cumulative_us": round(c, 2), "calls": round(n, 2)}
            for w, o, c, n in rows[:TOP]]


def host_us(fn, calls=20_000):
    """Host microseconds a call of a function that launches nothing."""
    for _ in range(100):
        fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def primitives():
    """The host pieces an eager call is made of, each alone."""
    from tile_mlir.ops import launch
    x = torch.empty((8, 4096), dtype=torch.bfloat16, device="cuda")
    shape, dtype, device = x.shape, x.dtype, x.device
    key = ("softmax", -1, launch.signature_of(x))
    table = {key: None}
    return {name: round(host_us(fn), 3) for name, fn in {
        "torch.empty": lambda: torch.empty(shape, dtype=dtype, device=device),
        "torch.empty_like": lambda: torch.empty_like(x),
        "tensor.data_ptr": x.data_ptr,
        "launch.stream": lambda: launch.stream(0),
        "launch.signature_of": lambda: launch.signature_of(x),
        "launch.eager": lambda: launch.eager(x),
        "torch.compiler.is_compiling": torch.compiler.is_compiling,
        "signature lookup": lambda: table.get(("softmax", -1, launch.signature_of(x))),
    }.items()}


C_LAUNCHER = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
typedef int (*LaunchEx)(const void *, void *, void **, void **);
static LaunchEx launch_ex;
static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  int rc = launch_ex(PyLong_AsVoidPtr(args[0]), PyLong_AsVoidPtr(args[1]), PyLong_AsVoidPtr(args[2]), NULL);
  return PyLong_FromLong(rc);
}
static PyMethodDef methods[] = {{"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, ""}, {NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "c_launcher", NULL, -1, methods};
PyMODINIT_FUNC PyInit_c_launcher(void) {
  launch_ex = (LaunchEx)dlsym(dlopen("libcuda.so.1", RTLD_NOW), "cuLaunchKernelEx");
  return PyModule_Create(&module);
}
"""


def c_launcher():
    """The floor of a launch from Python: cuLaunchKernelEx called from a C
    function of three integer arguments (compiled here with cc), or None."""
    import importlib.util
    import subprocess
    import sysconfig
    import tempfile
    folder = tempfile.mkdtemp()
    source, library = os.path.join(folder, "c_launcher.c"), os.path.join(folder, "c_launcher.so")
    with open(source, "w") as f:
        f.write(C_LAUNCHER)
    built = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-I" + sysconfig.get_paths()["include"], source,
                            "-o", library, "-ldl"], capture_output=True, text=True)
    if built.returncode:
        print("cc:", built.stderr[-2000:])
        return None
    spec = importlib.util.spec_from_file_location("c_launcher", library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch_paths(artifacts):
    """One row kernel (softmax, 8 rows of 4,096 bf16) launched each way,
    behind a busy GPU: the prepared launcher as the ops call it, then
    cuLaunchKernel and cuLaunchKernelEx through ctypes with every argument
    converted beforehand, then cuLaunchKernelEx from C."""
    import ctypes
    import glob
    from tile_mlir import launcher, runtime
    kernels = map(runtime.load, sorted(glob.glob(os.path.join(artifacts, "ops", "*.json"))))
    kernel = next(k for k in kernels if k.name == "softmax_bf16" and k.params[0].shape[-1] == 4096)
    x = torch.randn((8, 4096), device="cuda").to(torch.bfloat16)
    out = torch.empty_like(x)
    bound = launcher.prepared(kernel).bind((8, 8), (8, 1, 1))
    handle = torch.cuda.current_stream().cuda_stream
    lib = runtime.driver().lib
    function = ctypes.c_void_p(kernel.function().value)
    launch = type(lib.cuLaunchKernel)(("cuLaunchKernel", lib))
    launch_ex = type(lib.cuLaunchKernelEx)(("cuLaunchKernelEx", lib))
    bound(x.data_ptr(), out.data_ptr(), stream=handle)
    fixed = [ctypes.c_uint(v) for v in (8, 1, 1, *kernel.block, kernel.dynamic_shared_bytes)]
    stream = ctypes.c_void_p(handle)
    config = runtime.LaunchConfig(8, 1, 1, *kernel.block, kernel.dynamic_shared_bytes, stream, None, 0)
    config_ref = ctypes.byref(config)
    paths = {
        "prepared launcher (ops)": lambda: bound(x.data_ptr(), out.data_ptr(), stream=handle),
        "ctypes cuLaunchKernel, 11 arguments": lambda: launch(function, *fixed, stream, bound.params, None),
        "ctypes cuLaunchKernelEx, 4 arguments": lambda: launch_ex(config_ref, function, bound.params, None),
    }
    compiled = c_launcher()
    if compiled is not None:
        addresses = (ctypes.addressof(config), function.value, ctypes.addressof(bound.params))
        paths["C cuLaunchKernelEx"] = lambda: compiled.launch(*addresses)
    return {name: round(ops_launch.per_call_us(fn), 3) for name, fn in paths.items()}


def allocations():
    """Each way to allocate an op's output, alone."""
    x = torch.empty((8, 4096), dtype=torch.bfloat16, device="cuda")
    shape, dtype, device = (8, 4096), x.dtype, x.device
    return {name: round(host_us(fn), 3) for name, fn in {
        "torch.empty(shape, dtype=, device=torch.device)": lambda: torch.empty(shape, dtype=dtype, device=device),
        "torch.empty(shape, dtype=, device='cuda')": lambda: torch.empty(shape, dtype=dtype, device="cuda"),
        "torch.empty(shape, dtype=, device=0)": lambda: torch.empty(shape, dtype=dtype, device=0),
        "torch.empty(*shape, dtype=, device=)": lambda: torch.empty(8, 4096, dtype=dtype, device=device),
        "x.new_empty(shape)": lambda: x.new_empty(shape),
        "x.new_empty(shape, dtype=float32)": lambda: x.new_empty(shape, dtype=torch.float32),
        "torch.empty_like(x)": lambda: torch.empty_like(x),
    }.items()}


def main(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "calls": CALLS * ROUNDS,
              "primitives_us": primitives(), "allocations_us": allocations(),
              "cases": {}}
    from tile_mlir import runtime
    if hasattr(runtime, "LaunchConfig"):  # not in a tree before the prepared launches took it
        report["launch_paths_us"] = launch_paths(artifacts)
    print(json.dumps(report["allocations_us"], indent=1))
    print(json.dumps(report.get("launch_paths_us"), indent=1))
    gen = torch.Generator(device="cuda").manual_seed(0)
    for name, (op, shapes, dtype, kwargs, *offset) in ops_launch.CASES.items():
        args = ops_launch.arguments(op, shapes, dtype, "cuda", gen, *offset)
        ours = lambda op=op, args=args, kwargs=kwargs: getattr(ops, op)(*args, **kwargs)  # noqa: E731
        theirs = ops_launch.peer(op, args, kwargs)
        ours()
        report["cases"][name] = {"us_per_call": {"tile_mlir": ops_launch.per_call_us(ours),
                                                 "torch": ops_launch.per_call_us(theirs)},
                                 "tile_mlir": profile(ours), "torch": profile(theirs)}
        print(name, report["cases"][name]["us_per_call"], flush=True)
    print(json.dumps(report["primitives_us"]))
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:3])
