"""atom and red (issue 26): in the table (checked against ptxas by
tools/ptxas_diff), lowered as written, and run by the interpreter, where
atomics of many threads on one location do not race with each other but do
with plain accesses. Expected values are written from the PTX ISA."""


import numpy as np
import pytest

import tile_mlir
from tile_mlir import ptx
from tile_mlir import script as T



def histogram(op, dtype, bits):
    @T.function
    def k(A: T.Tensor((64, 1), dtype), Bins: T.Tensor((4, 1), dtype), Old: T.Tensor((64, 1), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32))
        i = T.block_id() * 32 + T.thread_id()
        v = T.alloc_local((1, 1), dtype)
        old = T.alloc_local((1, 1), dtype)
        T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], v, A[i:i + 1])
        b = i % 4
        T.cuda.tile.apply(T.ptx[f"atom.global.{op}.{dtype[0] if dtype[0] != 'i' else 's'}{bits}"
                                if op not in ("and", "or", "xor", "exch") else f"atom.global.{op}.b{bits}"],
                          old, Bins[b:b + 1], v)
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], Old[i:i + 1], old)
    return k


@pytest.mark.parametrize("op,dtype,bits,combine", [
    ("add", "uint32", 32, lambda a, b: (a + b) & 0xFFFFFFFF),
    ("add", "uint64", 64, lambda a, b: (a + b) & (2**64 - 1)),
    ("min", "int32", 32, min),
    ("max", "int64", 64, max),
    ("and", "uint32", 32, lambda a, b: a & b),
    ("xor", "uint64", 64, lambda a, b: a ^ b),
])
def test_order_independent_atomics_give_each_bin_the_isas_result(op, dtype, bits, combine):
    rng = np.random.default_rng(bits)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (64, 1), dtype=dtype, endpoint=True)
    bins = rng.integers(info.min, info.max, (4, 1), dtype=dtype, endpoint=True)
    want = bins.copy()
    for i in range(64):
        want[i % 4, 0] = combine(int(want[i % 4, 0]), int(a[i, 0]))
    old = np.zeros_like(a)
    tile_mlir.interpret(histogram(op, dtype, bits), a, bins, old)
    assert bins.tolist() == want.tolist()


def test_the_old_values_of_atom_add_chain_from_the_start_to_the_total():
    # The order is the hardware's, the chain is not: each thread's old value
    # plus its own increment is another thread's old value or the total.
    a = np.arange(1, 65, dtype=np.uint32).reshape(64, 1)
    bins = np.full((4, 1), 100, np.uint32)
    old = np.zeros_like(a)
    tile_mlir.interpret(histogram("add", "uint32", 32), a, bins, old)
    for b in range(4):
        olds, adds = old[b::4, 0].astype(int), a[b::4, 0].astype(int)
        assert sorted(olds + adds) == sorted(set(olds) - {100} | {int(bins[b, 0])})
        assert 100 in set(olds) and int(bins[b, 0]) == 100 + adds.sum()


def test_float_atomic_add_flushes_subnormals_as_the_isa_says():
    @T.function
    def k(A: T.Tensor((2, 1), "float32"), Sum: T.Tensor((1, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=2))
        t = T.thread_id()
        v = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], v, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["red.global.add.f32"], Sum, v)

    tiny = np.float32(1e-40)  # subnormal: flushed to zero
    total = np.zeros((1, 1), np.float32)
    tile_mlir.interpret(k, np.array([[1.5], [tiny]], np.float32), total)
    assert total[0, 0] == np.float32(1.5)


def test_a_plain_load_of_an_atomic_counter_without_a_barrier_is_a_race(line_of):
    @T.function
    def k(Count: T.Tensor((1, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["red.global.add.u32"], Count, T.uint32(1))  # count
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, Count)  # read too early
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)

    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(k, np.zeros((1, 1), np.uint32), np.zeros((32, 1), np.uint32))
    kinds = {(h.kind, h.first, h.second) for h in caught.value.hazards}
    assert ("read-after-write", line_of("# count"), line_of("# read too early")) in kinds


def test_the_table_takes_the_isas_op_and_type_pairs():
    assert [o.name for o in ptx.parse("atom.global.cas.b32").operands] == ["d", "a", "b", "c"]
    assert [o.name for o in ptx.parse("red.shared.add.f32").operands] == ["a", "b"]
    with pytest.raises(ptx.PTXFormError):
        ptx.parse("red.global.cas.b32")  # ptxas: "Illegal modifier '.cas'"
    with pytest.raises(ptx.PTXFormError):
        ptx.parse("atom.global.inc.u64")  # ptxas: ".inc requires .u32"
    with pytest.raises(ptx.PTXFormError):
        ptx.parse("red.acquire.global.add.u32")  # ptxas: "Illegal modifier '.acquire'"


@pytest.mark.parametrize("opcode,dtype,cell,value,want", [
    # The bits difftest --kind atomics measured on the H200 (results/atomics*.json):
    # the NaN the instruction of the type makes, not numpy's.
    ("atom.global.add.f32", "uint32", 0xFFFFFFFF, 0x3F800000, 0x7FFFFFFF),
    ("atom.global.add.noftz.f16", "uint16", 0x7E01, 0x3C00, 0x7FFF),
    ("atom.global.add.noftz.bf16", "uint16", 0xFFC1, 0x3F80, 0x7FFF),
    ("atom.global.add.f64", "uint64", 0xFFF0000000000001, 0x3FF0000000000000, 0xFFF8000000000001),
    ("atom.global.min.noftz.v2.f16", "uint16", 0x7E01, 0x3C00, 0x3C00),
])
def test_a_float_atomic_on_a_nan_leaves_the_nan_its_instruction_makes(opcode, dtype, cell, value, want):
    bits = np.dtype(dtype).itemsize * 8
    count = 2 if ".v2." in opcode else 1

    @T.function
    def k(B: T.Tensor((1, count), dtype), Cell: T.Tensor((1, count), dtype), Old: T.Tensor((1, count), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        b = T.alloc_local((1, count), dtype)
        old = T.alloc_local((1, count), dtype)
        T.cuda.tile.apply(T.ptx[f"ld.global.b{bits}"], b.reshape((count, 1)), B.reshape((count, 1)))
        T.cuda.tile.apply(T.ptx[opcode], old, Cell, b)
        T.cuda.tile.apply(T.ptx[f"st.global.b{bits}"], Old.reshape((count, 1)), old.reshape((count, 1)))

    memory = np.full((1, count), cell, dtype)
    old = np.zeros((1, count), dtype)
    tile_mlir.interpret(k, np.full((1, count), value, dtype), memory, old)
    assert memory.tolist() == [[want] * count] and old.tolist() == [[cell] * count]


def test_an_f64_atomic_add_of_two_nans_is_undefined():
    # Which NaN wins is ptxas's operand order (docs/conformance.md): the
    # H200 kept the other one than numpy for atom.global.add.f64.
    from tile_mlir.interpreter.launch import InterpretWarning

    @T.function
    def k(B: T.Tensor((1, 1), "uint64"), Cell: T.Tensor((1, 1), "uint64")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        b = T.alloc_local((1, 1), "uint64")
        T.cuda.tile.apply(T.ptx["ld.global.b64"], b, B)
        T.cuda.tile.apply(T.ptx["red.global.add.f64"], Cell, b)

    memory = np.full((1, 1), 0xFFFFFFFFFFFFFFFD, np.uint64)
    with pytest.warns(InterpretWarning, match="stored undefined"):
        tile_mlir.interpret(k, np.full((1, 1), 0xFFFFFFFFFFFFFFFE, np.uint64), memory)


def test_a_generic_vector_atomic_in_shared_memory_is_a_located_error(line_of):
    # The PTX ISA defines vector atomics on global memory only; through a
    # generic address into shared memory the H200 left other sums than the
    # ISA's for all 30 such forms (tools/difftest/results/atomics552.json).
    @T.function
    def k(B: T.Tensor((32, 2), "uint16"), Out: T.Tensor((32, 2), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        cells = T.alloc_shared((32, 2), "uint16")
        b = T.alloc_local((1, 2), "uint16")
        T.cuda.tile.apply(T.ptx["ld.global.v2.b16"], b.reshape((1, 2)), B[t].reshape((1, 2)))
        T.cuda.tile.apply(T.ptx["st.shared.v2.b16"], cells[t].reshape((1, 2)), b.reshape((1, 2)))
        T.cuda.tile.apply(T.ptx["red.v2.f16.add.noftz"], cells[t].reshape((1, 2)).generic(), b)  # vector
        T.cuda.tile.apply(T.ptx["ld.shared.v2.b16"], b.reshape((1, 2)), cells[t].reshape((1, 2)))
        T.cuda.tile.apply(T.ptx["st.global.v2.b16"], Out[t].reshape((1, 2)), b.reshape((1, 2)))

    with pytest.raises(tile_mlir.InterpretError) as caught:
        tile_mlir.interpret(k, np.zeros((32, 2), np.uint16), np.zeros((32, 2), np.uint16))
    assert str(caught.value) == (
        f"k: {line_of('# vector')}: red.v2.f16.add.noftz: thread 0's generic address is in the shared buffer of "
        f"{line_of('cells = T.alloc_shared')}; the PTX ISA defines vector atomics on global memory only")


def test_f32_atomic_adds_flush_where_the_h200_flushes():
    # tools/gpu/atomic_add_f32.py on the H200: every scalar f32 add (atom
    # and red) and a vector one, on global and shared cells, through their
    # generic views, and shared::cluster on the other block's cell; the
    # interpreter must leave the bits the GPU left for every operand pair.
    import json
    import os
    import sys
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    sys.path.insert(0, os.path.join(root, "tools", "gpu"))
    import atomic_add_f32

    with open(os.path.join(root, "tools", "gpu", "results", "atomic_add_f32.json")) as f:
        measured = json.load(f)["cases"]
    kernels = atomic_add_f32.kernels()
    assert sorted(kernels) == sorted(measured)
    for case, fn in kernels.items():
        params = tile_mlir.compile(fn, target="sm_90").params
        assert atomic_add_f32.interpreted(fn, params) == measured[case]["gpu"], case
