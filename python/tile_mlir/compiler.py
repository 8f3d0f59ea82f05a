"""Running the tile-to-ptx pipeline from Python."""

from __future__ import annotations

from typing import Dict, Union

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from . import _tile


class CompileError(RuntimeError):
    """The pipeline failed; the message carries MLIR's diagnostics."""


def pipeline(chip: str = "sm_90", ptx: int = 0, opt_level: int = 3, format: str = "isa") -> str:
    """The textual pass pipeline, anchored on builtin.module."""
    return _tile.pipeline(chip, ptx, opt_level, format)


def compile_module(
    module: Union[ir.Module, str],
    chip: str = "sm_90",
    ptx: int = 0,
    opt_level: int = 3,
    format: str = "isa",
) -> Dict[str, bytes]:
    """Lowers every gpu.module of ``module`` and returns {name: object bytes}.

    With ``format="isa"`` the bytes are PTX text; with ``"bin"`` a cubin
    assembled by ptxas. A module given as text is parsed in a new context; an
    ``ir.Module`` is lowered in place.
    """
    if isinstance(module, str):
        with ir.Context():
            return compile_module(ir.Module.parse(module), chip, ptx, opt_level, format)
    with module.context:
        pm = PassManager.parse(pipeline(chip, ptx, opt_level, format))
        try:
            pm.run(module.operation)
        except ir.MLIRError as error:
            raise CompileError(str(error)) from None
    objects = {}
    for op in module.body.operations:
        if op.operation.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        for attr in ir.ArrayAttr(op.attributes["objects"]):
            objects[name] = gpu.ObjectAttr(attr).object
    return objects
