"""Where each byte of a register came from, so that an mma's fragments are
checked against the PTX ISA's layout (issue #27).

Which matrix element a register holds is data: a kernel that loads A's
registers from the wrong coordinates multiplies another matrix, and no
verifier can see it. The interpreter can. Every byte of every buffer carries
an origin: the tensor and byte it was loaded from, unchanged, through
ld/st/mov, cp.async, ldmatrix and stmatrix (anything that computes a value
makes its origin unknown). D's bytes get an origin of their own: the mma
that made them and their (row, column).

An mma then checks that each of its fragments is one matrix laid out as
the ISA's tables (tile_mlir.fragments) say: for A and C, every row of the
fragment is a row of memory, its elements one stride apart, the same
stride in every row (rows may come from anywhere: a gather); for B, every
column likewise. Memory that holds the fragments already in register
order (pre-packed: lane, register and element at one stride each, as a
kernel that stores D's registers and loads them back, or weights shuffled
ahead of time) is a layout too. A store of D to global memory checks the
same of where its elements land. A fragment whose bytes are not all known,
or come from more than one tensor, or one value everywhere, is not judged.
"""

from typing import Dict, List, Optional, Tuple

import numpy as np

from .. import fragments

UNKNOWN = -1
# A tensor's byte: (tensor number << TENSOR_SHIFT) + its byte offset.
TENSOR_SHIFT = 40
# A D element's byte: VIRTUAL + (mma instance << INSTANCE_SHIFT) + its byte
# offset in the row-major M x N matrix.
VIRTUAL = 1 << 62
INSTANCE_SHIFT = 24


class FragmentLayoutFault(Exception):
    """An mma fragment (or a store of D) that is not one matrix in the PTX
    ISA's layout."""


class Origins:
    """The tensors' names and shapes, the mma instances and D's stores."""

    def __init__(self):
        self.tensors: List[Tuple[str, List[int], List[int], int]] = []
        self.instances: List[Tuple[str, str, int, int]] = []  # (point, opcode, n, element bytes)
        self.stores: List[Tuple[np.ndarray, np.ndarray, str, str]] = []  # (origins, addresses, buffer, point)

    def tensor(self, name: str, shape, strides, bits: int, size: int) -> np.ndarray:
        """The origins of a tensor parameter's bytes."""
        self.tensors.append((name, list(shape), list(strides), bits))
        return ((len(self.tensors) - 1) << TENSOR_SHIFT) + np.arange(size, dtype=np.int64)

    def describe(self, origin: int) -> str:
        """`A[3, 10]` for a tensor byte, `the D of the mma at f.py:7 (2, 5)`."""
        if origin >= VIRTUAL:
            instance, offset = (origin - VIRTUAL) >> INSTANCE_SHIFT, (origin - VIRTUAL) & ((1 << INSTANCE_SHIFT) - 1)
            point, _, n, size = self.instances[instance]
            return f"element ({offset // size // n}, {offset // size % n}) of the D made at {point}"
        name, shape, strides, _ = self.tensors[origin >> TENSOR_SHIFT]
        offset = origin & ((1 << TENSOR_SHIFT) - 1)
        index = []
        for stride in strides:
            index.append(offset // stride if stride else 0)
            offset -= index[-1] * stride
        tail = f" + {offset} bytes" if offset else ""
        return f"{name}[{', '.join(map(str, index))}]{tail}"

    def new_instance(self, point: str, opcode: str, n: int, size: int) -> int:
        self.instances.append((point, opcode, n, size))
        return VIRTUAL + ((len(self.instances) - 1) << INSTANCE_SHIFT)


def element_origins(byte_origins: np.ndarray) -> np.ndarray:
    """Per element, the origin of its first byte where its bytes are
    consecutive bytes of one source, else UNKNOWN; byte_origins is
    (elements, bytes)."""
    first = byte_origins[:, :1]
    steps = np.arange(byte_origins.shape[1], dtype=np.int64)
    whole = (first >= 0).ravel() & (byte_origins == first + steps).all(axis=1)
    return np.where(whole, first.ravel(), UNKNOWN)


def _source(origin: np.ndarray) -> np.ndarray:
    return np.where(origin >= VIRTUAL, (origin - VIRTUAL) >> INSTANCE_SHIFT, origin >> TENSOR_SHIFT)


def first_misplaced(origin: np.ndarray, by_rows: bool) -> Optional[Tuple[int, int, int]]:
    """For a matrix of element origins: None when each row (by_rows) or
    each column is a line of memory with one stride shared by all, or when
    the matrix cannot be judged; else (row, column, the origin expected
    there from its line's first element)."""
    if (origin == UNKNOWN).any() or (origin == origin.flat[0]).all():
        return None
    if not (_source(origin) == _source(origin.flat[0])).all():
        return None
    lines = origin if by_rows else origin.T
    stride = lines[0, 1] - lines[0, 0]
    expected = lines[:, :1] + stride * np.arange(lines.shape[1], dtype=np.int64)
    bad = np.argwhere(lines != expected)
    if stride != 0 and not bad.size:
        return None
    i, j = (int(x) for x in (bad[0] if bad.size else (0, 1)))
    row, col = (i, j) if by_rows else (j, i)
    return row, col, int(expected[i, j])


def in_place(origins: np.ndarray, by_rows: bool) -> np.ndarray:
    """Per matrix of `origins` (matrices, rows, cols): whether
    first_misplaced finds it in place (None): it cannot be judged, or
    each row (by_rows) or column is a line of memory with one nonzero
    stride shared by all."""
    flat = origins.reshape(origins.shape[0], -1)
    unknown = (flat == UNKNOWN).any(axis=1)
    uniform = (flat == flat[:, :1]).all(axis=1)
    mixed = ~(_source(flat) == _source(flat[:, :1])).all(axis=1)
    lines = origins if by_rows else origins.transpose(0, 2, 1)
    stride = lines[:, 0, 1] - lines[:, 0, 0]
    expected = lines[:, :, :1] + stride[:, None, None] * np.arange(lines.shape[2], dtype=np.int64)
    straight = (stride != 0) & (lines == expected).all(axis=(1, 2))
    return unknown | uniform | mixed | straight


def affine(coords: np.ndarray, values: np.ndarray) -> bool:
    """Whether integer `values` are an affine function of the integer
    coordinates (rows of `coords`) exactly."""
    if values.size < 2:
        return True
    shift = (values - values[0]).astype(np.float64)
    x = (coords - coords[0]).astype(np.float64)
    slope = np.rint(np.linalg.lstsq(x, shift, rcond=None)[0]).astype(np.int64)
    return bool(((coords - coords[0]) @ slope == values - values[0]).all())


def register_image(where: Dict[Tuple[int, int], Tuple[int, int, int]], placed: Dict[Tuple[int, int], int]) -> bool:
    """Whether the elements sit in memory in register order: lane,
    register and element each at one stride."""
    keys = [key for key in where if placed.get(key, UNKNOWN) != UNKNOWN]
    coords = np.array([where[key] for key in keys], np.int64).reshape(-1, 3)
    return affine(coords, np.array([placed[key] for key in keys], np.int64))


def _tensor_indices(origins: Origins, matrix: np.ndarray) -> Optional[np.ndarray]:
    """The tensor index (one per axis) of each element's origin, as
    matrix.shape + (rank,); None for D's elements."""
    if (matrix >= VIRTUAL).any():
        return None
    _, _, strides, _ = origins.tensors[int(matrix.flat[0]) >> TENSOR_SHIFT]
    offset = matrix & ((1 << TENSOR_SHIFT) - 1)
    index = []
    for stride in strides:
        index.append(offset // stride if stride else np.zeros_like(offset))
        offset = offset - index[-1] * stride
    return np.stack(index, axis=-1)


def offsets_along_k(origins: Origins, matrix: np.ndarray, operand: str) -> Optional[np.ndarray]:
    """For A (B): where each column (row) k sits from the start of its row
    (column), when every line of the fragment has the same offsets, each k
    its own element or all one (a broadcast), and along each line one axis
    of the tensor varies, the same for every line: A's columns (B's rows)
    gathered along the tensor's K axis in one way, as a K split takes
    them. None where the fragment is not such a gather or cannot be
    judged."""
    if operand not in ("a", "b") or (matrix == UNKNOWN).any() or (matrix == matrix.flat[0]).all():
        return None
    if not (_source(matrix) == _source(matrix.flat[0])).all():
        return None
    lines = matrix if operand == "a" else matrix.T
    offsets = lines - lines[:, :1]
    if not (offsets == offsets[0]).all():
        return None
    distinct = np.unique(offsets[0]).size
    if distinct not in (1, offsets.shape[1]):
        return None
    index = _tensor_indices(origins, lines)
    if index is None:
        return None
    varying = (index != index[:, :1]).any(axis=(0, 1))
    return offsets[0] if varying.sum() <= 1 else None


def _declared_as_the_matrix(origins: Origins, matrix: np.ndarray, rows: int, cols: int, kind: str) -> bool:
    """Whether the tensor the fragment came from is declared with the
    matrix's own shape (or its transpose): then it holds the matrix, not
    its registers' image (a 16 x 8 B read by ldmatrix without .trans is
    affine in lane, register and element, and wrong)."""
    if (matrix == UNKNOWN).any() or (matrix >= VIRTUAL).any():
        return False
    _, shape, _, bits = origins.tensors[int(matrix.flat[0]) >> TENSOR_SHIFT]
    return bits == fragments.ELEMENT_BITS[kind] and tuple(shape[-2:]) in ((rows, cols), (cols, rows))


def check_fragment(origins: Origins, point: str, opcode: str, operand: str, kind: str, matrix: np.ndarray,
                   where: np.ndarray) -> Optional[np.ndarray]:
    """Raises FragmentLayoutFault when `operand`'s fragment of one warp
    (matrix: each element's origin, UNKNOWN where none; where: (rows, cols,
    3), the lane, register and element in it that hold each) is not one
    matrix in the ISA's layout. Returns, for A and B, the offsets along K
    (offsets_along_k), which check_k_order compares."""
    found = first_misplaced(matrix, by_rows=operand != "b")
    along_k = offsets_along_k(origins, matrix, operand)
    if found is None or along_k is not None:
        return along_k
    rows, cols = matrix.shape
    cells = {(r, c): tuple(int(x) for x in where[r, c]) for r in range(rows) for c in range(cols)}
    placed = {cell: int(matrix[cell]) for cell in cells}
    if register_image(cells, placed) and not _declared_as_the_matrix(origins, matrix, rows, cols, kind):
        return None
    row, col, expected = found
    lane, register, element = cells[(row, col)]
    line = f"row {row}" if operand != "b" else f"column {col}"
    start = (row, 0) if operand != "b" else (0, col)
    raise FragmentLayoutFault(
        f"{point}: {opcode}: {operand}'s fragment is not one matrix in the PTX ISA's layout: "
        f"lane {lane} register {register}{_part(element, kind)} holds {origins.describe(int(matrix[row, col]))} "
        f"where the layout puts {operand}({row}, {col}); {line} of {operand} starts with "
        f"{origins.describe(int(matrix[start]))}, so {operand}({row}, {col}) would be "
        f"{origins.describe(expected)} (tile_mlir.fragments, T.mma_coordinates)")


def check_k_order(point: str, opcode: str, a_along_k: Optional[np.ndarray], b_along_k: Optional[np.ndarray]):
    """A's columns and B's rows are the same k's: where both are gathers
    along K with a distinct element per k, they take K in one order (a K
    split splits both alike); a broadcast has no order to compare."""
    if a_along_k is None or b_along_k is None:
        return
    if np.unique(a_along_k).size < a_along_k.size or np.unique(b_along_k).size < b_along_k.size:
        return
    a_rank, b_rank = np.argsort(np.argsort(a_along_k)), np.argsort(np.argsort(b_along_k))
    if np.array_equal(a_rank, b_rank):
        return
    k = int(np.flatnonzero(a_rank != b_rank)[0])
    raise FragmentLayoutFault(
        f"{point}: {opcode}: a's columns and b's rows take K in different orders: a({k}) is element "
        f"{int(a_rank[k])} of its row in memory order, b({k}) element {int(b_rank[k])} of its column; a K split "
        "must split A and B alike (tile_mlir.fragments, T.mma_coordinates)")


def _part(element: int, kind: str) -> str:
    per = fragments.per_register(kind)
    return f" (element {element} of {per})" if per > 1 else ""


def check_stores(origins: Origins) -> None:
    """Each mma's D stored to global memory lands as a matrix: its rows as
    lines of one stride (rows anywhere: a scatter), or each element at one
    affine function of (row, column) (a transposed store too), or in
    register order."""
    if not origins.stores:
        return
    origin = np.concatenate([o for o, _, _, _ in origins.stores])
    address = np.concatenate([a for _, a, _, _ in origins.stores])
    buffer = np.concatenate([np.full(o.size, i) for i, (o, _, _, _) in enumerate(origins.stores)])
    instance = (origin - VIRTUAL) >> INSTANCE_SHIFT
    offset = (origin - VIRTUAL) & ((1 << INSTANCE_SHIFT) - 1)
    order = np.lexsort((offset, instance))
    origin, address, buffer, instance, offset = (x[order] for x in (origin, address, buffer, instance, offset))
    starts = np.flatnonzero(np.r_[True, instance[1:] != instance[:-1]])
    for begin, end in zip(starts, np.r_[starts[1:], instance.size]):
        point, opcode, n, size = origins.instances[int(instance[begin])]
        # The element's first byte, where all its bytes went to one place.
        elements = offset[begin:end] // size
        firsts = offset[begin:end] % size == 0
        m = int(elements.max()) // n + 1
        placed = np.full((m, n), UNKNOWN, np.int64)
        placed[elements[firsts] // n, elements[firsts] % n] = address[begin:end][firsts]
        stored = placed != UNKNOWN
        cells = np.argwhere(stored)
        if _lines_agree(placed, stored) or affine(cells, placed[stored]):
            continue
        # Stored in register order (lane, register, element at one stride each).
        kind = fragments.kinds_of(opcode)[0]
        per = fragments.per_register(kind)
        table = fragments.table(opcode, "d")
        where = {cell: (lane, i // per, i % per) for (lane, i), cell in table.items() if cell[0] < m}
        if register_image(where, {cell: int(placed[cell]) for cell in where}):
            continue
        row, col = _first_break(placed, stored)
        store_point, buffer_name = origins.stores[int(buffer[begin])][3], origins.stores[int(buffer[begin])][2]
        raise FragmentLayoutFault(
            f"{store_point}: the D of {opcode} at {point} is not stored in the PTX ISA's layout: its "
            f"element ({row}, {col}) lands at byte {int(placed[row, col])} of {buffer_name}, out of line with "
            f"the rest of row {row} (tile_mlir.fragments, T.mma_coordinates)")


def _lines_agree(placed: np.ndarray, stored: np.ndarray) -> bool:
    """Every row's stored elements lie on one line, all with one stride."""
    if stored.all() and placed.shape[1] > 1:  # every element stored: one comparison
        steps = np.diff(placed, axis=1)
        return bool(steps[0, 0] != 0 and (steps == steps[0, 0]).all())
    stride = None
    for row, mask in zip(placed, stored):
        cols = np.flatnonzero(mask)
        if cols.size < 2:
            continue
        steps = np.diff(row[cols]) // np.diff(cols)
        if (np.diff(row[cols]) != steps * np.diff(cols)).any() or (steps != steps[0]).any() or steps[0] == 0:
            return False
        if stride is not None and steps[0] != stride:
            return False
        stride = steps[0]
    return True


def _first_break(placed: np.ndarray, stored: np.ndarray) -> Tuple[int, int]:
    for r, (row, mask) in enumerate(zip(placed, stored)):
        cols = np.flatnonzero(mask)
        for a, b in zip(cols[1:], cols[2:]):
            if (row[b] - row[a]) * (cols[1] - cols[0]) != (row[cols[1]] - row[cols[0]]) * (b - a):
                return r, int(b)
    first = np.argwhere(stored)
    return tuple(int(x) for x in first[-1])
