"""The conformance suite's reference is the package's
(python/tile_mlir/interpreter/reference.py): one place for the semantics.
This name stays for the tools that import ``reference`` by path, on the GPU
machine too, which has numpy but no MLIR (tile_mlir imports without it)."""

import importlib
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))  # after an installed tile_mlir
sys.modules[__name__] = importlib.import_module("tile_mlir.interpreter.reference")
