"""tile-ptx: compile a tile .mlir file to PTX (or a cubin) in one step."""

from __future__ import annotations

import argparse
import re
import sys

from mlir import ir

from . import compiler


def _fail(message: str) -> int:
    print(f"tile-ptx: error: {message}", file=sys.stderr)
    return 1


def _parse(path: str) -> ir.Module:
    """The module of ``path`` (``-``: stdin), its locations naming the file."""
    if path == "-":
        return ir.Module.parse(sys.stdin.read())
    # parseFile reports a missing file as an unlocated MLIR error; say it
    # plainly instead.
    with open(path, "rb"):
        pass
    return ir.Module.parseFile(path)


def _targeted_chips(module: ir.Module):
    """The chips of the gpu.modules that already name an NVVM target."""
    chips = []
    for op in module.body.operations:
        if op.operation.name == "gpu.module" and "targets" in op.attributes:
            chips += re.findall(r'#nvvm\.target<[^>]*chip = "([^"]+)"', str(op.attributes["targets"]))
    return chips


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="tile-ptx", description="Compile tile IR to PTX or a cubin."
    )
    parser.add_argument("input", help="a .mlir file with gpu.modules, or - for stdin")
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    parser.add_argument("--chip", default=None,
                        help="chip of gpu.modules without a target (default sm_90)")
    parser.add_argument("--ptx", type=int, default=0, help="PTX ISA version times ten")
    parser.add_argument("-O", dest="opt_level", type=int, default=None,
                        help="LLVM optimization level of gpu.modules without a target (default 3)")
    parser.add_argument("--format", choices=["isa", "bin"], default="isa",
                        help="isa: PTX text; bin: cubin through ptxas")
    parser.add_argument("--module", default=None,
                        help="the gpu.module (or module:chip) to write when there are several")
    args = parser.parse_args(argv)

    with ir.Context():
        try:
            module = _parse(args.input)
        except ir.MLIRError as error:
            return _fail(compiler.diagnostics_text(error))
        except OSError as error:
            return _fail(f"cannot read {args.input}: {error.strerror or error}")
        # The module's own target wins; an explicit option that it would
        # override is an error rather than ignored.
        for chip in _targeted_chips(module):
            if args.chip is not None and args.chip != chip:
                return _fail(f"--chip {args.chip} conflicts with the module's target {chip}; "
                             "drop --chip or the module's #nvvm.target")
            if args.opt_level is not None:
                return _fail("-O applies to gpu.modules without a target; this module's "
                             "#nvvm.target sets its own O")
        try:
            objects = compiler.compile_module(
                module, args.chip or "sm_90", args.ptx,
                3 if args.opt_level is None else args.opt_level, args.format)
        except compiler.CompileError as error:
            return _fail(str(error))
    if not objects:
        return _fail("the input has no gpu.module")
    if args.module is not None:
        if args.module not in objects:
            return _fail(f"no gpu.module {args.module}: the input has {', '.join(objects)}")
        data = objects[args.module]
    elif len(objects) > 1:
        # Two PTX texts (or ELF files) back to back are neither PTX nor ELF.
        return _fail(f"the input compiles to {len(objects)} objects ({', '.join(objects)}); "
                     "pick one with --module")
    else:
        data = next(iter(objects.values()))
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        try:
            with open(args.output, "wb") as out:
                out.write(data)
        except OSError as error:
            return _fail(f"cannot write {args.output}: {error.strerror or error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
