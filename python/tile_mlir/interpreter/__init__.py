"""The reference interpreter: runs a kernel on the CPU over numpy arrays,
with PTX's semantics written from the ISA (reference.py), and reports
races. ``tile_mlir.interpret`` is its entry (launch.py); the difftest judges
its campaigns with the same machine (machine.py).

This package imports no MLIR at module level: the GPU machine, which has
numpy but no MLIR, imports ``tile_mlir.interpreter.reference`` for the
conformance suite."""
