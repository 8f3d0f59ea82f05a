"""ptxas (CUDA 13.0) ignores the guard of a testp, at -O3 and -O0
(docs/difftest.md, finding 8): a guarded testp that keeps its destination
tests into a scoped register that a guarded mov.pred moves to it. Checked in
SASS: the guard's comparison (tid < 35, ISETP with 0x23) decides the result
only with the move; the H200 run is tools/gpu's kept_testp."""

import os
import re
import sys

import pytest

import tile_mlir

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "sass"))
sys.path.insert(0, os.path.join(ROOT, "tools", "gpu"))

import sass  # noqa: E402

pytestmark = pytest.mark.skipif(not sass.available(), reason="needs cuobjdump and nvdisasm (the test extra)")


def guard_compared(cubin):
    return any(i.mnemonic == "ISETP" and "0x23" in i.operands for i in sass.instructions(cubin))


def test_a_kept_testp_moves_under_its_guard():
    from build_artifacts import kept_testp

    kernel = tile_mlir.compile(kept_testp, target="sm_90", cache=False)
    block = re.compile(r"\{ \.reg \.pred %tile_g0_0; testp\.notanumber\.f32 %tile_g0_0, (%r\d+); "
                       r"(@%p\d+) mov\.pred (%p\d+), %tile_g0_0; \}")
    assert block.search(kernel.ptx)
    assert guard_compared(kernel.cubin)
    # The guarded testp as written: ptxas drops the guard (the reproducer).
    bare = block.sub(lambda m: f"{m.group(2)} testp.notanumber.f32 {m.group(3)}, {m.group(1)};", kernel.ptx)
    assert "tile_g" not in bare
    assert not guard_compared(tile_mlir.compiler.assemble(bare, "sm_90"))
