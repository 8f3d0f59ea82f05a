"""tile-mlir: explicit per-thread PTX register instructions over register tiles.

Importing the package adds the ``tile`` dialect to every ``mlir.ir.Context``
created afterwards, registers the tile passes and the ``tile-to-ptx``
pipeline, and makes parsed tile ops come back as their generated classes.
Where neither MLIR nor the compiled extension is installed (a machine that
only runs kernels), ``tile_mlir.runtime`` still works; compiling does not.
"""

try:
    from mlir._mlir_libs import _mlir as _cext
    from mlir._mlir_libs import get_dialect_registry as _get_dialect_registry

    from . import _tile
except ImportError as _error:  # runtime-only installation
    _tile = None
    _import_error = _error
else:
    _tile.insert_dialect(_get_dialect_registry())
    _tile.register_passes()
    _cext.globals.append_dialect_search_prefix("tile_mlir.dialects")

if _tile is not None:
    from . import ptx  # noqa: E402
    from .compiler import (CompileError, TargetError, TileWarning, compile, compile_module,  # noqa: E402
                           pipeline)
    from .interpreter.launch import (FragmentLayoutError, HazardError, InterpretError, InterpretWarning,  # noqa: E402
                                     interpret)

    def register_dialects(context):
        """Registers and loads the tile dialect in ``context``.

        Contexts created after ``import tile_mlir`` already have it; this is
        for contexts that existed before.
        """
        _tile.register_dialect(context)

__all__ = ["CompileError", "TargetError", "TileWarning", "compile", "compile_module", "pipeline", "ptx", "register_dialects",
           "interpret", "FragmentLayoutError", "HazardError", "InterpretError", "InterpretWarning"]
