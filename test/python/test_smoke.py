"""Builds the spec's packed-add kernel with the generated op builders, inside
an ordinary mlir.ir.Context mixed with upstream dialects, and lowers it to PTX
through mlir.passmanager."""

import re
import shutil
import subprocess

import pytest
from mlir import ir
from mlir.dialects import func, gpu, memref
from mlir.passmanager import PassManager

import tile_mlir
from tile_mlir.dialects import tile


def build_packed_add():
    module = ir.Module.create()
    module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    i32 = ir.IntegerType.get_signless(32)
    i64 = ir.IntegerType.get_signless(64)
    glob = ir.MemRefType.get([8, 1], i32, memory_space=ir.IntegerAttr.get(i64, 1))
    regs = ir.MemRefType.get([8, 1], i32, memory_space=ir.IntegerAttr.get(i64, 5))
    with ir.InsertionPoint(module.body):
        kernels = gpu.GPUModuleOp(
            "kernels", targets=ir.ArrayAttr.get([ir.Attribute.parse('#nvvm.target<chip = "sm_90">')])
        )
        kernels.bodyRegion.blocks.append()
        with ir.InsertionPoint(kernels.bodyRegion.blocks[0]):
            fn = gpu.GPUFuncOp(
                ir.FunctionType.get([glob, glob, glob], []),
                sym_name="packed_add",
                kernel=True,
                known_block_size=[1, 1, 1],
                known_grid_size=[1, 1, 1],
            )
            block = fn.body.blocks.append(glob, glob, glob)
            with ir.InsertionPoint(block):
                A, B, Out = block.arguments
                a = memref.alloca(regs, [], [])
                b = memref.alloca(regs, [], [])
                tile.apply("ld.global.b32", [a, A])
                tile.apply("ld.global.b32", [b, B])
                tile.apply("add.rn.f16x2", [a, a, b])
                tile.apply("st.global.b32", [Out, a])
                gpu.ReturnOp([])
    return module


def test_dialect_is_in_ordinary_contexts():
    with ir.Context(), ir.Location.unknown():
        module = build_packed_add()
        assert module.operation.verify()
        applies = [op for op in module.body.operations[0].regions[0].blocks[0].operations[0]
                   .regions[0].blocks[0].operations if op.operation.name == "tile.apply"]
        assert [type(op).__name__ for op in applies] == ["ApplyOp"] * 4
        assert [op.opcode.value for op in applies] == [
            "ld.global.b32", "ld.global.b32", "add.rn.f16x2", "st.global.b32"]


def test_pass_manager_to_ptx():
    with ir.Context(), ir.Location.unknown():
        module = build_packed_add()
        PassManager.parse(tile_mlir.pipeline(chip="sm_90")).run(module.operation)
        binary = module.body.operations[-1]
        assert binary.operation.name == "gpu.binary"
        ptx = gpu.ObjectAttr(ir.ArrayAttr(binary.attributes["objects"])[0]).object.decode()
    assert len(re.findall(r"^\s*ld\.global\.b32 ", ptx, re.M)) == 16
    assert len(re.findall(r"^\s*add\.rn\.f16x2 ", ptx, re.M)) == 8
    assert len(re.findall(r"^\s*st\.global\.b32 ", ptx, re.M)) == 8


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_compile_module_ptx_assembles(tmp_path):
    with ir.Context(), ir.Location.unknown():
        objects = tile_mlir.compile_module(build_packed_add(), chip="sm_90")
    path = tmp_path / "packed_add.ptx"
    path.write_bytes(objects["kernels"])
    subprocess.run(["ptxas", "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")], check=True)


def test_verifier_error_is_an_exception():
    with ir.Context(), ir.Location.unknown():
        f16 = ir.F16Type.get()
        i32 = ir.IntegerType.get_signless(32)
        space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 5)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ir.FunctionType.get([], []))
            with ir.InsertionPoint(fn.add_entry_block()):
                words = memref.alloca(ir.MemRefType.get([8, 1], i32, memory_space=space), [], [])
                halves = memref.alloca(ir.MemRefType.get([8, 1], f16, memory_space=space), [], [])
                tile.apply("add.rn.f16x2", [words, words, halves])
                func.ReturnOp([])
        with pytest.raises(ir.MLIRError) as error:
            module.operation.verify()
    assert ("'tile.apply' op rhs: expected a 32-bit carrier for f16x2 (i32, ui32 or si32), got f16"
            in str(error.value))


@pytest.mark.parametrize("opcode,types,message", [
    ("add.rn.rz.f32", ("f32", "f32", "f32"),
     "'rz' cannot follow 'rn' in add.f32: one rounding mode of rn, rz, rm, rp"),
    ("abs.f32", ("f32", "f32", "f32"), "expected 2 operands for abs.f32 (dst, src), got 3"),
    ("cvt.rn.f16x2.f32", ("i32", "f16", "f32"),
     "src: expected a 32-bit carrier for f32 (i32, ui32, si32 or f32), got f16"),
])
def test_python_raises_the_verifier_text(opcode, types, message):
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("f", ir.FunctionType.get([], []))
            with ir.InsertionPoint(fn.add_entry_block()):
                space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 5)
                tiles = [memref.alloca(ir.MemRefType.get([4, 1], ir.Type.parse(t), memory_space=space), [], [])
                         for t in types]
                tile.apply(opcode, tiles)
                func.ReturnOp([])
        with pytest.raises(ir.MLIRError) as error:
            module.operation.verify()
    assert f"'tile.apply' op {message}" in str(error.value)


def test_ptx_parse_raises_form_error():
    with pytest.raises(tile_mlir.ptx.PTXFormError) as error:
        tile_mlir.ptx.parse("add.rn.f32x2", target="sm_90")
    assert isinstance(error.value, ValueError)
    assert str(error.value) == "add.rn.f32x2 requires sm_100 or newer and PTX ISA 8.6, but the target is sm_90"
    form = tile_mlir.ptx.parse("cvt.rn.f16x2.f32", target="sm_90")
    assert [(op.name, op.role, op.bits) for op in form.operands] == [
        ("dst", "dst", 32), ("src", "src", 32), ("src1", "src", 32)]
    assert form.min_sm == 80 and form.min_ptx == 70
