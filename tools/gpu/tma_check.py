#!/usr/bin/env python3
"""TMA tensor copies on the H200 against the interpreter (issues #28, #31).

Each block of `tma_box` loads one box of A (rows x cols of uint16) by
cp.async.bulk.tensor into a shared buffer, placed by the tensor map's
swizzle, and waits on an mbarrier for its bytes. Its 32 threads then copy
the box to Out[0] through the tile.swizzle view of the buffer (which
undoes the swizzle when the compiler's model of it is the hardware's) and
to Out[1] as the buffer's raw bytes (the swizzle itself); thread 0 stores
the box back by TMA into plane 2 of Out (a 3-d tensor map), at a shift
that puts part of some boxes outside Out (those elements are not
written). Boxes past A's edges read zeros.

The interpreter's output is checked against numpy in test_tma.py (the
swizzle written from the PTX ISA's description of the modes, not from the
compiler); here each kernel's GPU output is compared bit for bit with it.

    python tools/gpu/tma_check.py build build/tma
    PYTHONPATH=python python tools/gpu/tma_check.py run build/tma report.json

build_hazards builds the kernels the interpreter reports a hazard in
(HAZARDS), each judged against the correct kernel's output.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "python")]

import bit_cases  # noqa: E402

THREADS = 32
LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
STORE = "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group"

# (name, rows, cols, box, swizzle, store shift (rows, cols)[, load shift]):
# every swizzle mode, boxes past A's edges (and before its origin: zeros),
# stores partly outside Out (past its end: a store at a negative
# coordinate faults, FAULTS).
CASES = [
    ("none_32x64", 100, 192, (32, 64), "none", (0, 0)),
    ("none_8x8_edges", 13, 40, (8, 8), "none", (3, 8)),
    ("sw32_16x16", 40, 48, (16, 16), "32B", (0, 8)),
    ("sw64_32x32", 70, 96, (32, 32), "64B", (5, 0)),
    ("sw128_64x64", 100, 192, (64, 64), "128B", (16, 16)),
    ("sw128_load_before_origin", 100, 192, (64, 64), "128B", (0, 0), (-8, -16)),
    ("sw128_8x64_edges", 21, 72, (8, 64), "128B", (0, 0)),
]


def out_shape(rows, cols, box):
    grid = (-(-rows // box[0]), -(-cols // box[1]))
    return (3, grid[0] * box[0], grid[1] * box[1]), grid


def tma_box(rows, cols, box, swizzle, shift=(0, 0), expect=None, read_early=False, load_shift=(0, 0)):
    """The kernel described above. `expect`: the bytes thread 0 expects on
    the mbarrier (the box's, unless given); `read_early`: the threads copy
    the buffer before waiting."""
    from tile_mlir import script as T
    shape, (gy, gx) = out_shape(rows, cols, box)
    nbytes = box[0] * box[1] * 2
    expect = nbytes if expect is None else expect

    @T.function
    def tma_copy(A: T.Tensor((rows, cols), "uint16", tma=T.TensorMap(box, swizzle)),
                 Out: T.Tensor(shape, "uint16", tma=T.TensorMap((1,) + tuple(box), swizzle))):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=(gx, gy), block=THREADS))
        buf = T.alloc_shared(box, "uint16", align=1024)
        tile = buf if swizzle == "none" else buf.swizzle(swizzle)
        bar = T.alloc_shared((1,), "uint64", align=8)
        t = T.thread_id()
        row0, col0 = T.block_id("y") * box[0], T.block_id("x") * box[1]
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        value = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar, T.uint32(expect))
            T.cuda.tile.apply(T.ptx[LOAD], tile, A.tensor_map, (col0 + load_shift[1], row0 + load_shift[0]), bar)

        def copy_out():
            for r in range(box[0]):
                for c in range(box[1] // THREADS if box[1] >= THREADS else 1):
                    col = c * THREADS + t if box[1] >= THREADS else t
                    with T.if_(col < box[1]):
                        for plane, source in ((0, tile), (1, buf)):
                            T.cuda.tile.apply(T.ptx["ld.shared.b16"], value, source[r:r + 1, col:col + 1])
                            T.cuda.tile.apply(T.ptx["st.global.b16"],
                                              Out[plane, row0 + r:row0 + r + 1, col0 + col:col0 + col + 1],
                                              value)
        if read_early:
            copy_out()
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        if not read_early:
            copy_out()
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx[STORE], Out.tensor_map, (col0 + shift[1], row0 + shift[0], 2),
                              tile.reshape((1,) + tuple(box)))
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
            T.cuda.tile.apply(T.ptx["cp.async.bulk.wait_group"], T.uint32(0))

    return tma_copy


def multicast_box(rows=64, cols=64, box=(32, 64), swizzle="128B", mask=0b11):
    """Two blocks in a cluster: block rank 0 loads one box of A by TMA with
    .multicast::cluster into the same shared buffer of the blocks `mask`
    names, completing each one's mbarrier (each expects the box's bytes);
    every block copies its buffer to Out[rank] through the swizzled view.
    A barrier.cluster after the mbarriers' initialization lets the load
    reach the other block's."""
    from tile_mlir import script as T
    nbytes = box[0] * box[1] * 2
    load = LOAD + ".multicast::cluster"

    @T.function
    def multicast(A: T.Tensor((rows, cols), "uint16", tma=T.TensorMap(box, swizzle)),
                  Out: T.Tensor((2,) + tuple(box), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=THREADS, cluster=2))
        buf = T.alloc_shared(box, "uint16", align=1024)
        tile = buf if swizzle == "none" else buf.swizzle(swizzle)
        bar = T.alloc_shared((1,), "uint64", align=8)
        t, rank = T.thread_id(), T.cluster_ctarank()
        state = T.alloc_local((1,), "uint64")
        done = T.alloc_local((1,), "bool")
        value = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared::cta.b64"], bar, T.uint32(1), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.expect_tx.shared::cta.b64"], state, bar, T.uint32(nbytes))
        with T.if_((t == 0) & (rank == 0)):
            T.cuda.tile.apply(T.ptx[load], tile, A.tensor_map, (0, 0), bar, T.uint16(mask))
        with T.until(done):
            T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.shared::cta.b64"], done, bar, T.uint32(0))
        for r in range(box[0]):
            for c in range(box[1] // THREADS):
                col = c * THREADS + t
                T.cuda.tile.apply(T.ptx["ld.shared.b16"], value, tile[r:r + 1, col:col + 1])
                T.cuda.tile.apply(T.ptx["st.global.b16"], Out[rank, r:r + 1, col:col + 1], value)
        # No block leaves while the other may still deliver into it.
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])

    return multicast


def data(rows, cols, seed=0):
    return np.random.default_rng(seed).integers(0, 1 << 16, (rows, cols), dtype=np.uint16)


def interpreted(name, rows, cols, box, swizzle, shift, load_shift=(0, 0)):
    import tile_mlir
    kernel = tma_box(rows, cols, box, swizzle, shift, load_shift=load_shift)
    a = data(rows, cols)
    out = np.zeros(out_shape(rows, cols, box)[0], np.uint16)
    tile_mlir.interpret(kernel, a, out)
    return kernel, a, out


def build(out_dir):
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for case in CASES:
        name = case[0]
        kernel, a, out = interpreted(*case)
        tile_mlir.compile(kernel, target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, [a, out]))
    kernel, a = multicast_box(), data(64, 64)
    out = np.zeros((2, 32, 64), np.uint16)
    tile_mlir.interpret(kernel, a, out)
    tile_mlir.compile(kernel, target="sm_90a").save(os.path.join(out_dir, "multicast.json"))
    index.append(bit_cases.entry("multicast", [a, out]))
    bit_cases.write_index(out_dir, index, "TMA")


# Kernels the interpreter reports a hazard in, and what it says:
# (name, case, options). On the GPU each runs beside the correct result.
HAZARDS = [
    ("read_before_wait", CASES[4], {"read_early": True}),
    ("expect_half", CASES[4], {"expect": 64 * 64}),
]


def build_hazards(out_dir):
    """Each hazard kernel's artifact, with the output of the correct
    kernel as the expected one: where the GPU's differs is the hazard's
    effect there."""
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    index = []
    for name, (_, rows, cols, box, swizzle, shift, *_), options in HAZARDS:
        _, a, correct = interpreted(name, rows, cols, box, swizzle, shift)
        kernel = tma_box(rows, cols, box, swizzle, shift, **options)
        tile_mlir.compile(kernel, target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
        index.append(bit_cases.entry(name, [a, correct]))
    bit_cases.write_index(out_dir, index, "TMA hazard")


def run_hazard(out_dir, name):
    """Launches one hazard kernel; prints how many output words differ
    from the correct kernel's, and the first few places."""
    import json
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "cases.json")) as f:
        case = next(c for c in json.load(f) if c["name"] == name)
    kernel = runtime.load(os.path.join(out_dir, f"{name}.json"))
    out = np.zeros(case["shape"], case["dtype"])
    kernel(*[np.array(x, d) for x, d in zip(case["inputs"], case["input_dtypes"])], out)
    expected = np.array(case["expected"], np.uint32).reshape(-1)
    differ = np.flatnonzero(out.view(np.uint32).reshape(-1) != expected)
    print(json.dumps({"words": int(expected.size), "differ": int(differ.size), "first": differ[:4].tolist()}))


def _alone(verb, out_dir, name, timeout):
    """The last line `verb` prints for kernel `name`, run in a process of
    its own (a fault ends the CUDA context, a hang the process), or None
    after `timeout` seconds."""
    import subprocess
    try:
        done = subprocess.run([sys.executable, __file__, verb, out_dir, name], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return (done.stdout.strip().splitlines() or [done.stderr[-300:]])[-1]


def run_hazards(out_dir, report_path, timeout=20):
    """Each hazard kernel alone, ended after `timeout` seconds (a phase
    that never completes hangs)."""
    import json
    with open(os.path.join(out_dir, "cases.json")) as f:
        names = [c["name"] for c in json.load(f)]
    report = {}
    for name in names:
        line = _alone("run_hazard", out_dir, name, timeout)
        if line is None:
            report[name] = {"hung": f"no result after {timeout} s"}
            continue
        try:
            report[name] = json.loads(line)
        except ValueError:
            report[name] = {"error": line}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report))


# Coordinates the H200 faults on (tile mode): (name, box, swizzle, store
# shift, load shift). The interpreter raises a TmaFault for each; the same
# boxes at aligned, non-negative coordinates run (CASES).
FAULTS = [
    ("load_innermost_10_bytes", (32, 64), "none", (0, 0), (0, 5)),
    ("load_innermost_6_bytes_128B", (64, 64), "128B", (0, 0), (0, 3)),
    ("load_innermost_minus_6_bytes", (64, 64), "128B", (0, 0), (0, -3)),
    ("store_innermost_10_bytes", (32, 64), "none", (0, 5), (0, 0)),
    ("store_row_minus_8", (32, 64), "none", (-8, 0), (0, 0)),
    ("store_column_minus_8", (32, 64), "none", (0, -8), (0, 0)),
    ("store_row_minus_16_128B", (64, 64), "128B", (-16, 0), (0, 0)),
]


def build_faults(out_dir):
    """The FAULTS kernels, each with the interpreter's verdict."""
    import json
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    verdicts = {}
    for name, box, swizzle, shift, load_shift in FAULTS:
        kernel = tma_box(100, 192, box, swizzle, shift, load_shift=load_shift)
        try:
            tile_mlir.interpret(kernel, data(100, 192), np.zeros(out_shape(100, 192, box)[0], np.uint16))
            verdicts[name] = "ran"
        except tile_mlir.InterpretError as error:
            verdicts[name] = str(error)
        tile_mlir.compile(kernel, target="sm_90a").save(os.path.join(out_dir, f"{name}.json"))
    with open(os.path.join(out_dir, "faults.json"), "w") as f:
        json.dump({"verdicts": verdicts, "shapes": {n: out_shape(100, 192, b)[0] for n, b, *_ in FAULTS}}, f)
    print(len(FAULTS), "TMA fault kernels built")


def run_fault(out_dir, name):
    """Launches one FAULTS kernel; prints "ran" or the CUDA error."""
    import json
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "faults.json")) as f:
        shape = json.load(f)["shapes"][name]
    kernel = runtime.load(os.path.join(out_dir, f"{name}.json"))
    try:
        kernel(data(100, 192), np.zeros(shape, np.uint16))
        print("ran")
    except runtime.CudaError as error:
        print(str(error).split(": ")[-1])


def run_faults(out_dir, report_path, timeout=30):
    """Each FAULTS kernel alone (a fault ends the context), beside the
    interpreter's verdict."""
    import json
    with open(os.path.join(out_dir, "faults.json")) as f:
        verdicts = json.load(f)["verdicts"]
    report = {}
    for name, verdict in verdicts.items():
        line = _alone("run_fault", out_dir, name, timeout)
        report[name] = {"gpu": line or f"no result after {timeout} s", "interpreter": verdict}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))


def main(argv):
    return bit_cases.main(argv, __doc__, "TMA", {
        "build": build, "build_hazards": build_hazards, "build_faults": build_faults, "run_fault": run_fault,
        "run_faults": run_faults, "run_hazard": run_hazard, "run_hazards": run_hazards})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
