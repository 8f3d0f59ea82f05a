"""Prints the form table's answer for each opcode spelling given:

    python -m tile_mlir.parse_form [--target sm_90] mul.lo.s32 fma.rn.f32
"""

import argparse

from tile_mlir.ptx import describe


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tile_mlir.parse_form",
                                     description="the form table's answer for each opcode spelling")
    parser.add_argument("opcodes", nargs="+")
    parser.add_argument("--target", help="also check the floor on this target (sm_90)")
    args = parser.parse_args(argv)
    for opcode in args.opcodes:
        print(describe(opcode, args.target))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
