"""``from tvm.script import tirx as T``: the tile_mlir script front end."""

from ....script import *  # noqa: F401,F403
from ....script import prim_func, function  # noqa: F401
