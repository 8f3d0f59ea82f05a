"""The difftest's interpreter is the package's
(python/tile_mlir/interpreter/machine.py, behind tile_mlir.interpret): the
campaigns judge kernels with the code users run. This name stays for the
tools that import ``interp`` by path."""

import importlib
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))  # after an installed tile_mlir
sys.modules[__name__] = importlib.import_module("tile_mlir.interpreter.machine")
