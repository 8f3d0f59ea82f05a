"""``tvm.tirx.compile``."""

def compile(fn, target="cuda", pipeline="tirx"):
    """Compiles a kernel. ``target`` is "cuda" (the local GPU's arch, or sm_90
    where there is none), an arch such as "sm_100a", or a TVM-style
    ``{"kind": "cuda", "arch": ...}`` dict. Only the "tirx" pipeline exists."""
    if pipeline != "tirx":
        raise ValueError(f"unknown pipeline {pipeline!r}: only 'tirx'")
    from ...compiler import compile as compile_kernel  # needs MLIR, unlike the runtime

    return compile_kernel(fn, target=target)
