# The generated op classes import their helpers from a sibling _ods_common,
# as upstream dialects do; these are the mlir package's own.
from mlir.dialects._ods_common import *  # noqa: F401,F403
from mlir.dialects._ods_common import _cext  # noqa: F401
