"""The script front end (``tile_mlir.script``), one module per concern, each
importing only those before it: tracing (errors, locations, types, the
launch and the kernel builder), values (Index, Bool, Scalar), tiles
(Buffer and its views), kernel (@T.function), control (T.if_, T.serial),
instructions (T.cuda.tile.apply), ewise."""
