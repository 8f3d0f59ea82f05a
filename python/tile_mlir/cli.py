"""tile-ptx: compile a tile .mlir file to PTX (or a cubin) in one step."""

from __future__ import annotations

import argparse
import sys

from mlir import ir

from . import compiler


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="tile-ptx", description="Compile tile IR to PTX or a cubin."
    )
    parser.add_argument("input", help="a .mlir file with gpu.modules, or - for stdin")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    parser.add_argument("--chip", default="sm_90", help="chip of gpu.modules without a target")
    parser.add_argument("--ptx", type=int, default=0, help="PTX ISA version times ten")
    parser.add_argument("-O", dest="opt_level", type=int, default=3, help="LLVM optimization level")
    parser.add_argument("--format", choices=["isa", "bin"], default="isa",
                        help="isa: PTX text; bin: cubin through ptxas")
    args = parser.parse_args(argv)

    text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    with ir.Context():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as error:
            print(f"tile-ptx: error: {error}", file=sys.stderr)
            return 1
        try:
            objects = compiler.compile_module(module, args.chip, args.ptx, args.opt_level, args.format)
        except compiler.CompileError as error:
            print(f"tile-ptx: error: {error}", file=sys.stderr)
            return 1
    if not objects:
        print("tile-ptx: error: the input has no gpu.module", file=sys.stderr)
        return 1
    data = b"".join(objects.values())
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(args.output, "wb") as out:
            out.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
