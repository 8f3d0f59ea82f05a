"""SASS of a cubin, read with cuobjdump from the PyPI wheels.

The test extra installs ``nvidia-cuda-cuobjdump`` and
``nvidia-cuda-nvdisasm``; their tools live in the wheels' ``nvidia/cu13/bin``,
which is not on PATH, so this module finds them there (or on PATH).

    python tools/sass/sass.py k.cubin          # one instruction a line
    python tools/sass/sass.py --count k.cubin  # how many of each opcode
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Dict, List, NamedTuple, Optional

# "/*0080*/   @!P0 F2FP.F16.F32.PACK_AB R7, R7, R6 ;"
_LINE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?P<text>[^;]*?)\s*;")


class Instruction(NamedTuple):
    """One SASS instruction: its opcode with modifiers (``F2FP.F16.F32.PACK_AB``),
    its guard (``@!P0`` or ""), and its operands as text."""

    opcode: str
    guard: str
    operands: str

    @property
    def mnemonic(self) -> str:
        """The opcode without modifiers: ``F2FP``."""
        return self.opcode.split(".")[0]


def tool(name: str) -> Optional[str]:
    """The path of ``cuobjdump`` or ``nvdisasm``: on PATH, else in the wheels."""
    found = shutil.which(name)
    if found:
        return found
    roots = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    roots.update(p for p in sys.path if p.endswith("site-packages"))
    for root in sorted(roots):
        for candidate in sorted(glob.glob(os.path.join(root, "nvidia", "*", "bin", name))):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


def available() -> bool:
    """Whether cuobjdump (with nvdisasm, which it runs) can be found."""
    return tool("cuobjdump") is not None and tool("nvdisasm") is not None


def _environment() -> Dict[str, str]:
    # cuobjdump runs nvdisasm, which it looks for on PATH.
    env = dict(os.environ)
    nvdisasm = tool("nvdisasm")
    if nvdisasm:
        env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")
    return env


def listing(cubin: bytes) -> str:
    """``cuobjdump -sass`` of a cubin, as text."""
    cuobjdump = tool("cuobjdump")
    if cuobjdump is None:
        raise RuntimeError("cuobjdump not found: pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        result = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True,
                                env=_environment())
    if result.returncode != 0:
        raise RuntimeError(f"cuobjdump failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def parse(text: str) -> List[Instruction]:
    """The instructions of a ``cuobjdump -sass`` listing, in order."""
    instructions = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        words = match.group("text").split(None, 1)
        guard = ""
        if words and words[0].startswith("@"):
            guard = words[0]
            words = words[1].split(None, 1) if len(words) > 1 else []
        if not words:
            continue
        instructions.append(Instruction(words[0], guard, words[1] if len(words) > 1 else ""))
    return instructions


def instructions(cubin: bytes) -> List[Instruction]:
    """The SASS instructions of a cubin (every function, in order)."""
    return parse(listing(cubin))


def counts(cubin: bytes) -> Dict[str, int]:
    """How many instructions of each mnemonic (``VIMNMX``, ``F2FP``) a cubin has."""
    return dict(collections.Counter(i.mnemonic for i in instructions(cubin)))


def between(cubin: bytes, start: str, stop: str = r"@!?P\d+ BRA") -> Dict[str, int]:
    """How many instructions of each mnemonic lie from the first one whose
    line holds `start` (a kernel's main loop: ``DEPBAR.LE``, its wait) to the
    next that matches the regular expression `stop` (its branch back)."""
    text = listing(cubin)
    text = text[text.index(start):]
    text = text[:re.search(stop, text).start()]
    return dict(collections.Counter(i.mnemonic for i in parse(text)))


def unwritten_uniform_reads(cubin: bytes, mnemonic: str) -> List[Instruction]:
    """The `mnemonic` instructions that name a uniform register (URn) that
    no instruction before them writes (in program order; a ``.64`` write
    writes URn and URn+1)."""
    written, found = set(), []
    for instruction in instructions(cubin):
        if instruction.mnemonic == mnemonic and any(
                int(n) not in written for n in re.findall(r"\bUR(\d+)", instruction.operands)):
            found.append(instruction)
        target = re.match(r"UR(\d+)$", instruction.operands.split(",")[0].strip())
        if target:
            written.add(int(target.group(1)))
            if ".64" in instruction.opcode:
                written.add(int(target.group(1)) + 1)
    return found


def assemble(ptx: str, level: int = 3, arch: str = "sm_90") -> bytes:
    """The cubin ptxas makes of `ptx` at -O`level`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        subprocess.run(["ptxas", f"-O{level}", f"-arch={arch}", path, "-o", path + ".cubin"], check=True,
                       capture_output=True)
        with open(path + ".cubin", "rb") as f:
            return f.read()


def ptxas_resources(ptx: str, arch: str = "sm_90") -> str:
    """What ``ptxas -v`` says of `ptx` (registers, stack, spills)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        run = subprocess.run(["ptxas", "-v", f"-arch={arch}", path, "-o", os.devnull], capture_output=True,
                             text=True)
    if run.returncode:
        raise RuntimeError(run.stderr)
    return run.stderr


NO_SPILLS = re.compile(r"\b0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cubin")
    parser.add_argument("--count", action="store_true", help="count the instructions of each mnemonic")
    args = parser.parse_args(argv)
    with open(args.cubin, "rb") as f:
        cubin = f.read()
    if args.count:
        for mnemonic, n in sorted(counts(cubin).items(), key=lambda item: (-item[1], item[0])):
            print(f"{n:6d} {mnemonic}")
    else:
        for instruction in instructions(cubin):
            print(" ".join(part for part in instruction if part))
    return 0


if __name__ == "__main__":
    sys.exit(main())
