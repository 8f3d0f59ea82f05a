"""Running the tile-to-ptx pipeline from Python."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import warnings
from typing import Dict, List, Optional, Union

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from . import _tile
from . import runtime


class CompileError(RuntimeError):
    """The pipeline failed, or was given an option it does not take; the
    message carries each diagnostic as ``file:line: message``."""


class TargetError(CompileError, ValueError):
    """A target that names no chip tile-mlir compiles for. A CompileError
    as every other refusal of compile(); a ValueError as it was before."""


def pipeline(chip: str = "sm_90", ptx: int = 0, opt_level: int = 3, format: str = "isa",
             bare_pointers: bool = True, fold_barriers: str = "auto") -> str:
    """The textual pass pipeline, anchored on builtin.module. Every option is
    checked first (CompileError): upstream passes abort on some values.
    ``bare_pointers=False`` passes memref descriptors (runtime sizes).
    ``fold_barriers`` places the barriers against the measured ptxas folds
    (docs/design.md): "auto" where data flow shows a producer and a consumer
    of a fold meet, "always" on every operand a fold marks, "off" nowhere,
    with a TileWarning at each instruction "auto" would have guarded."""
    for name, value, kind in (("chip", chip, str), ("ptx", ptx, int), ("opt_level", opt_level, int),
                              ("format", format, str), ("fold_barriers", fold_barriers, str)):
        if isinstance(value, bool) or not isinstance(value, kind):
            raise CompileError(f"{name} must be a{'n integer' if kind is int else ' string'}, got {value!r}")
        if kind is int and not 0 <= value < 1 << 32:
            raise CompileError(f"{name}={value} is out of range")
    try:
        return _tile.pipeline(chip, ptx, opt_level, format, bool(bare_pointers), fold_barriers)
    except ValueError as error:
        raise CompileError(str(error)) from None


def _file_line(location):
    """(file, line) of a diagnostic's location, looking through names, call
    sites and fusions to the file location inside; None without one."""
    for _ in range(16):
        if location.is_a_file():
            return location.filename, location.start_line
        if location.is_a_name():
            location = location.child_loc
        elif location.is_a_callsite():
            location = location.callee
        elif location.is_a_fused() and location.locations:
            location = location.locations[0]
        else:
            return None
    return None


def _where(location) -> str:
    """``file:line`` of a diagnostic's location."""
    place = _file_line(location)
    return f"{place[0]}:{place[1]}" if place else str(location)


def diagnostics_text(error: ir.MLIRError) -> str:
    """Each error of ``error`` as ``file:line: message``, one per line."""
    lines = [f"{_where(d.location)}: {d.message}" for d in error.error_diagnostics]
    return "\n".join(lines) or str(error)


def check(module: ir.Operation, chip: str) -> None:
    """Runs the pipeline's checking pass alone (tile-attach-target: the
    target's forms, shared memory, launch-dependent verifier rules) on
    `module`, which it annotates: CompileError on what compile refuses."""
    passes = _split_top_level(pipeline(chip)[len("builtin.module("):-1])
    _run(module, passes[0])


def _split_top_level(passes: str) -> List[str]:
    parts, depth, current = [], 0, ""
    for char in passes:
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return parts + [current.strip()] if current.strip() else parts


class TileWarning(UserWarning):
    """A compiler warning, reported at the user's ``file:line``: a form or a
    chain of forms that ptxas or the hardware is measured to compute
    otherwise than the PTX ISA says (docs/difftest.md, docs/conformance.md)."""


def _run(module: ir.Operation, passes: str) -> int:
    """Runs ``passes`` on ``module``; raises CompileError on an error and
    reports each warning as a TileWarning; returns how many there were."""
    earlier = _tile.fatal_error_seen()
    if earlier is not None:
        # The unwound LLVM frames ran no destructors: a later compile in this
        # process freed a stack address and returned empty PTX.
        raise CompileError(f"an earlier LLVM fatal error in this process ({earlier}) left LLVM's "
                           "state undefined; compile in a new process")
    with module.context as context:
        found = []

        def keep_warning(diagnostic) -> bool:
            if diagnostic.severity != ir.DiagnosticSeverity.WARNING:
                return False
            found.append((_file_line(diagnostic.location), diagnostic.message))
            return True

        handler = context.attach_diagnostic_handler(keep_warning)
        try:
            PassManager.parse(f"builtin.module({passes})").run(module)
        except ir.MLIRError as error:
            raise CompileError(diagnostics_text(error)) from None
        except RuntimeError as error:  # an LLVM fatal error (see _tile)
            raise CompileError(f"{error}: tile-mlir should have rejected this input with a "
                               "diagnostic; please report it. This process cannot compile "
                               "again") from None
        finally:
            handler.detach()
        # At the user's line, as Python reports its own warnings.
        for place, message in found:
            if place:
                warnings.warn_explicit(message, TileWarning, *place)
            else:
                warnings.warn(message, TileWarning, stacklevel=2)
        return len(found)


def _objects(module: ir.Operation) -> Dict[str, bytes]:
    """{name: bytes} per gpu.binary; a binary of several targets gives one
    entry per target, named ``name:chip``, none of them dropped."""
    objects = {}
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        entries = [gpu.ObjectAttr(attr) for attr in ir.ArrayAttr(op.attributes["objects"])]
        for entry in entries:
            key = name
            if len(entries) > 1:
                chip = re.search(r'chip = "([^"]+)"', str(entry.target))
                key = f"{name}:{chip.group(1) if chip else len(objects)}"
            objects[key] = entry.object
    return objects


def compile_module(
    module: Union[ir.Module, str],
    chip: str = "sm_90",
    ptx: int = 0,
    opt_level: int = 3,
    format: str = "isa",
    fold_barriers: str = "auto",
) -> Dict[str, bytes]:
    """Lowers every gpu.module of ``module`` and returns {name: object bytes}.

    With ``format="isa"`` the bytes are PTX text. A module given as text is
    parsed in a new context; an ``ir.Module`` is lowered in place.
    ``fold_barriers`` is as for ``pipeline``.
    """
    passes = pipeline(chip, ptx, opt_level, format, fold_barriers=fold_barriers)[len("builtin.module("):-1]
    if isinstance(module, str):
        with ir.Context():
            try:
                parsed = ir.Module.parse(module)
            except ir.MLIRError as error:
                raise CompileError(diagnostics_text(error)) from None
            return compile_module(parsed, chip, ptx, opt_level, format, fold_barriers)
    _run(module.operation, passes)
    return _objects(module.operation)


def assemble(ptx_text: str, target: str) -> Optional[bytes]:
    """A cubin from ptxas, or None when ptxas is not on PATH."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        source, binary = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(source, "w") as f:
            f.write(ptx_text)
        result = subprocess.run([ptxas, f"-arch={target}", source, "-o", binary],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise CompileError(f"ptxas rejected the PTX for {target}:\n{result.stdout}{result.stderr}")
        with open(binary, "rb") as f:
            return f.read()


def resolve_target(target) -> str:
    """"sm_90" stays; "cuda" is the local GPU's arch, or sm_90 without one;
    {"kind": "cuda", "arch": "sm_100a"} selects that arch."""
    if isinstance(target, dict):
        if target.get("kind", "cuda") != "cuda":
            raise TargetError(f"unsupported target kind {target.get('kind')!r}: only cuda")
        target = target.get("arch", "cuda")
    if not isinstance(target, str):
        raise TargetError(f"a target is a string such as 'sm_90' or 'cuda', got {target!r}")
    if target == "cuda":
        return runtime.local_arch() or "sm_90"
    if not target.startswith("sm_"):
        raise TargetError(f"unknown target {target!r}: expected 'cuda' or an arch such as 'sm_90'")
    # The chip is checked against the known ones before it reaches the pass
    # pipeline text.
    error = _tile.check_options(target, 0, 3, "isa")
    if error:
        raise TargetError(error)
    return target


class CompiledKernel(runtime.Kernel):
    """A runtime kernel that also remembers how it was compiled."""

    mlir: str
    stages: Dict[str, str]
    from_cache: bool


def compile(fn, target="sm_90", opt_level: int = 3, stages: bool = False,
            cubin: bool = True, cache: bool = True, fold_barriers: str = "auto") -> CompiledKernel:
    """Compiles a @T.function kernel. The result has ``.ptx``, ``.cubin``
    (when ptxas is present and ``cubin`` is true), ``.mlir`` (the input
    IR), ``.stages`` (the IR after each pass of the pipeline, if requested),
    ``save(path)`` and ``__call__(*arrays)``, which launches on the local
    GPU. A kernel compiled before, by any process, comes from the on-disk
    cache (tile_mlir.cache; ``cache=False`` or TILE_MLIR_CACHE=0 skips it;
    ``stages`` always compiles); ``.from_cache`` says which.
    ``fold_barriers`` places the barriers against the measured ptxas folds:
    "auto" (where data flow needs them), "always", or "off", which compiles
    exactly what was written and warns (TileWarning) at each line exposed
    to a fold (``pipeline``, docs/design.md)."""
    from . import cache as _cache
    from .frontend.kernel import PrimFunc

    if not isinstance(fn, PrimFunc):
        raise TypeError(f"tile_mlir.compile takes a @T.function kernel, got {type(fn).__name__}")
    try:
        chip = resolve_target(target)
    except TargetError as why:
        raise TargetError(f"{fn.name}: compile(target={target!r}): {why}") from None
    before_sm_90 = int(re.match(r"sm_(\d+)", chip).group(1)) < 90
    if fn.cluster is not None and before_sm_90:
        raise CompileError(f"{fn.name} runs in clusters of {fn.cluster} blocks, which need sm_90 or newer; "
                           f"the target is {chip}")
    if fn.dependent and before_sm_90:
        raise CompileError(f"{fn.name} is launched as a programmatic dependent, which needs sm_90 or newer; "
                           f"the target is {chip}")
    # Options are checked before the cache is asked: a hit must not accept
    # what a miss rejects.
    passes = pipeline(chip, 0, opt_level, "isa", bare_pointers=not fn.dynamic,
                      fold_barriers=fold_barriers)[len("builtin.module("):-1]
    params = fn.runtime_params()
    convention = "descriptor" if fn.dynamic else "bare"
    use_cache = cache and not stages and _cache.enabled()
    if use_cache:
        entry = _cache.key(str(fn.module), chip, opt_level, cubin, fold_barriers)
        hit = _cache.lookup(entry)
        # The code comes from the entry; the signature and launch from this
        # kernel (the IR does not hold the parameters' names).
        if hit is not None and hit.name == fn.name and hit.convention == convention:
            kernel = CompiledKernel(fn.name, hit.ptx, hit.cubin, chip, params, fn.grid, fn.block,
                                    convention, fn.dynamic_shared_bytes, fn.cluster, dependent=fn.dependent)
            kernel.mlir, kernel.stages, kernel.from_cache = str(fn.module), {}, True
            return kernel
    # A clone, not a printed and re-parsed copy: diagnostics keep the
    # kernel's Python locations.
    with fn.context:
        module = fn.module.operation.clone(ip=False)
    recorded: Dict[str, str] = {}
    warned = 0
    if stages:
        for stage in _split_top_level(passes):
            warned += _run(module, stage)
            recorded[stage] = str(module)
    else:
        warned = _run(module, passes)
    ptx_text = _objects(module)["kernels"].decode()
    binary = assemble(ptx_text, chip) if cubin else None
    kernel = CompiledKernel(fn.name, ptx_text, binary, chip, params, fn.grid, fn.block, convention,
                            fn.dynamic_shared_bytes, fn.cluster, dependent=fn.dependent)
    kernel.mlir = str(fn.module)
    kernel.stages = recorded
    kernel.from_cache = False
    # A kernel that warned is compiled again each time, so it warns again.
    if use_cache and not warned:
        _cache.store(entry, kernel)
    return kernel
