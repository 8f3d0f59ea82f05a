"""The interpreter's memory: a buffer's bytes with their defined bits and
its race-tracking state (Buffer), and a memref value over one (View)."""

import numpy as np

# Hazard bookkeeping of a shared byte: no thread, or several.
NOBODY, MANY = -1, -2

# The race check's shadow state is kept per cell of `grain` bytes, a
# power of two up to this: every access so far covered whole cells, each
# cell's bytes by one thread, so all bytes of a cell share one history
# (a float32 store is one entry, not four). An access that splits a cell
# refines the buffer's grain (Buffer.refine).
MAX_GRAIN = 16


def element_bytes(bits):
    """Bytes of one element: a predicate (i1) takes one."""
    return max(bits, 8) // 8


def mask_bits(bits):
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)


class Zeros:
    """A per-byte array that is all zeros until a nonzero value is stored
    in it: the shadow state only some kernels use (cluster stamps,
    mbarrier clocks, copies in flight) takes no memory in the others (a
    tensor's bytes each carry a dozen such fields)."""

    def __init__(self, size, dtype):
        self.size, self.dtype, self.values = size, dtype, None

    def __getitem__(self, index):
        if self.values is None and isinstance(index, np.ndarray) and index.dtype.kind in "iu":
            return np.zeros(index.shape, self.dtype)
        return self.array()[index]

    def __setitem__(self, index, value):
        if self.values is None and not np.any(value):
            return
        self.array()[index] = value

    def repeated(self, factor):
        """Each value `factor` times (a finer grain)."""
        out = Zeros(self.size * factor, self.dtype)
        if self.values is not None:
            out.values = np.repeat(self.values, factor)
        return out

    def array(self):
        """The values as an array (made now if none was stored)."""
        if self.values is None:
            self.values = np.zeros(self.size, self.dtype)
        return self.values


def _filled(value, dtype):
    # (Filled, not np.zeros: pages touched in order here cost less than
    # the same first touches scattered by the accesses.)
    return lambda cells: np.full(cells, value, dtype)


# The shadow fields kept per cell (memory_model's release ids and the
# copies in flight, pending_at, stay per byte), each with how it is made
# for `cells` cells that no access has touched (Buffer.__getattr__, at
# the first use of any).
SHADOW = {
    # Who touched each cell since the last barrier, for the hazard check:
    # the last writer and one reader (MANY: two or more), as thread
    # numbers, and for the readers their block (MANY: two).
    "writer": _filled(NOBODY, np.int32), "reader": _filled(NOBODY, np.int32),
    "reader_block": _filled(NOBODY, np.int32),
    # The block's barrier epoch each access happened in (a barrier orders
    # the accesses of its block's threads before it against those after
    # it) and the program points that made them: int16 until one does not
    # fit (widen), 8 bytes a cell less in the common case.
    "written_epoch": _filled(0, np.int16), "read_epoch": _filled(0, np.int16),
    "written_at": _filled(0, np.int16), "read_at": _filled(0, np.int16),
    # In a kernel with clusters: the cluster arrivals the writer (and the
    # readers, the most of them) had made when it touched the byte; a
    # thread whose barrier.cluster.wait completed more phases than that is
    # ordered after the access.
    "written_stamp": lambda cells: Zeros(cells, np.int64), "read_stamp": lambda cells: Zeros(cells, np.int64),
    # The strength of the last write and the weakest of the reads since
    # (memory_model.py): morally strong accesses do not race with each
    # other.
    "written_strength": lambda cells: np.zeros(cells, np.int8), "read_strength": lambda cells: np.zeros(cells, np.int8),
    # The span (start * 16 + bytes) of the atomic that last wrote and read
    # each byte, once an atomic touches the buffer (None: not an
    # atomic's): atomics are morally strong only where they cover the same
    # bytes (PTX ISA memory model, 8.6.3).
    "written_span": lambda cells: None, "read_span": lambda cells: None,
    # With mbarrier ordering (clocks.py): the writer's and the single
    # reader's counts, and each byte's set of readers.
    "written_clock": lambda cells: Zeros(cells, np.int64), "read_clock": lambda cells: Zeros(cells, np.int64),
    "read_set": lambda cells: Zeros(cells, np.int64),
    # Reads by other blocks of a block's shared bytes (tile.mapa), made
    # when the first one happens (races.track_remote_read).
    "remote_reader": lambda cells: None, "remote_read_stamp": lambda cells: None,
    "remote_read_at": lambda cells: None,
}
SHADOW_FIELDS = tuple(SHADOW)


class Buffer:
    """Bytes and their defined bits: shape (threads, n) when private to each
    thread (a register tile), (n,) when shared (a global tensor). `nan`
    marks the bytes of a register whose value is a NaN an instruction made:
    PTX leaves its payload to the chip, so it compares as "a NaN" where it
    is stored, and what is computed from its bits is not compared."""

    def __init__(self, data, defined, private, name="", shared=False, block_bytes=0, align=None):
        self.data, self.defined, self.private, self.name = data, defined, private, name
        # What the start is known to be a multiple of: a static shared
        # buffer's declared alignment (None: 16 bytes or more, as a tensor's
        # allocation and the dynamic region are).
        self.align = align
        # A tensor no instruction of the kernel may write (setup.py's
        # written_tensors): its reads cannot race, so they are not tracked.
        self.read_only = False
        # Whether a strong access (memory_model.py) has touched the buffer:
        # until one does, every cell's strengths are weak (0) and a weak
        # access leaves them as they are.
        self.strong_accessed = False
        # Whether a read has been tracked: until one is, a write has no
        # reads to be checked against.
        self.read_tracked = False
        self.shared = shared  # a block's shared memory: its accesses go through the banks
        # Where each byte came from (fragment_origins), when the run tracks it.
        self.origin = None
        # Shared memory holds one copy per block, block_bytes each.
        self.block_bytes = block_bytes
        # The program point of the wgmma whose D holds each register byte
        # (private) or that reads each shared byte, until its wait (0: none;
        # made by the first wgmma).
        self.in_flight = None
        # The program point of the wgmma that still reads each register
        # byte as its A (0: none), until its wait_group.
        self.a_in_flight = None
        self.wgmma_reading = None
        # The program point of the tcgen05.ld that still loads each register
        # byte (0: none), until its warp's tcgen05.wait::ld
        # (tensor_memory.py).
        self.tmem_pending = None
        # The program point of the TMA store that still reads each byte
        # (0: none), once a store reads the buffer (tma.py).
        self.store_reading = None
        # The program point of the TMA store or bulk copy that may still be
        # writing each byte (0: none), until a cp.async.bulk.wait_group
        # (not .read) in its thread covers its bulk group (tma.py).
        self.store_writing = None
        if private:
            self.nan = np.zeros_like(defined)
        # A tensor's or shared buffer's NaN marks are made when first used
        # (__getattr__; has_nan: whether they have been): most hold none.
        if not private:
            self.grain = initial_grain(data.size, block_bytes)
            # The release each byte's last write heads or continues
            # (memory_model.py), made at the first release.
            self.release_id = None
            # The program point of the cp.async whose bytes are in flight to
            # each byte (0: none): per byte, as the copies land.
            self.pending_at = Zeros(data.size, np.int32)
            # The shadow fields are made at their first use (__getattr__,
            # SHADOW), at the grain the first access leaves: a buffer no
            # access touches costs nothing, and one refined before its
            # first access is not made twice.
            self.touched = False  # by an access: refine repeats the cells, else makes new ones

    def __getattr__(self, name):
        """A shadow field, or the NaN marks, read before any is made: made
        now (only attributes not found otherwise come here)."""
        if name == "nan" and not self.private:
            self.nan = np.zeros_like(self.defined)
            return self.nan
        if name not in SHADOW or self.private:
            raise AttributeError(name)
        # All of them at once: made one by one as the accesses first ask,
        # the 4096^2 transpose ran 25-40% slower (their first touches
        # among the instructions' temporaries).
        cells = self.data.size // self.grain
        for field, make in SHADOW.items():
            if field not in self.__dict__:
                setattr(self, field, make(cells))
        return getattr(self, name)

    def has_nan(self):
        """Whether any NaN mark has been made (else none is set)."""
        return "nan" in self.__dict__

    def widen(self, field, largest):
        """The int16 shadow `field` made int32 where `largest` does not
        fit (a kernel of more than 32,767 barriers or program points)."""
        values = getattr(self, field)
        if largest > np.iinfo(values.dtype).max:
            setattr(self, field, values.astype(np.int32))
        return getattr(self, field)

    def refine(self, grain):
        """Keeps the shadow state per cell of `grain` bytes (a divisor of
        the current grain): each cell's entries repeated."""
        factor = self.grain // grain
        if factor <= 1:
            return
        if not self.touched:
            for field in SHADOW_FIELDS:
                self.__dict__.pop(field, None)  # made anew at the new grain when used
            self.grain = grain
            return
        for field in SHADOW_FIELDS:
            values = self.__dict__.get(field)
            if values is not None:
                setattr(self, field, values.repeated(factor) if isinstance(values, Zeros) else
                        np.repeat(values, factor))
        self.grain = grain


def initial_grain(size, block_bytes):
    """The largest power of two up to MAX_GRAIN that divides the buffer
    (and each block's copy of a shared one)."""
    grain = MAX_GRAIN
    while size % grain or block_bytes % grain:
        grain //= 2
    return grain


def uniform_span(buffer, address, nbytes):
    """The bytes `address` .. + `nbytes` of a register buffer as a slice
    when every thread's address is the same one inside it (a register
    tile indexed alike in every thread, the common case: its bytes are a
    column block of the (threads, bytes) arrays, read and written without
    a gather), else None."""
    if nbytes not in (1, 2, 4, 8) or address.size == 0:
        return None
    first = int(address[0])
    if first < 0 or first + nbytes > buffer.data.shape[1] or not (address == first).all():
        return None
    return slice(first, first + nbytes)


def as_words(byte_rows):
    """(n, nbytes) uint8 rows (little-endian, nbytes 1, 2, 4 or 8) as n
    uint64 values."""
    nbytes = byte_rows.shape[1]
    if nbytes not in (1, 2, 4, 8):
        return sum(byte_rows[:, i].astype(np.uint64) << np.uint64(8 * i) for i in range(nbytes))
    return np.ascontiguousarray(byte_rows).view(f"<u{nbytes}").reshape(-1).astype(np.uint64)


def as_bytes(values, nbytes):
    """n values as (n, nbytes) uint8 rows, little-endian: as_words'
    inverse."""
    return np.asarray(values).astype(f"<u{nbytes}").view(np.uint8).reshape(-1, nbytes)


def all_flags(nbytes):
    """The word of `nbytes` bool flags that are all set (0x01 bytes)."""
    return int.from_bytes(b"\x01" * nbytes, "little")


def all_set(flag_rows):
    """Per row of an (n, nbytes) bool array: every flag set (compared as
    one word, not reduced along the short axis)."""
    return as_words(flag_rows.view(np.uint8)) == np.uint64(all_flags(flag_rows.shape[1]))


def any_set(flag_rows):
    return as_words(flag_rows.view(np.uint8)) != 0


def word_indices(buffer, address, nbytes):
    """Where every address is a multiple of `nbytes` (1, 2, 4 or 8) of a
    tensor or shared buffer whose size is one too: each one's word index,
    so that the element is one word of the buffer's arrays viewed as
    words (read and written without per-byte arrays); else None."""
    if nbytes not in (1, 2, 4, 8) or buffer.data.size % nbytes or (address & (nbytes - 1)).any():
        return None
    return address >> (nbytes.bit_length() - 1)


def read_words(buffer, words, nbytes):
    """(value as uint64, defined, nan) of the words at `words`
    (word_indices)."""
    return _read_in_words(buffer, lambda array: array.view(f"<u{nbytes}"), words, nbytes)


def write_words(buffer, words, nbytes, value, defined, nan):
    _write_in_words(buffer, lambda array: array.view(f"<u{nbytes}"), words, nbytes, (value, defined, nan))


def _read_in_words(buffer, as_words_of, index, nbytes):
    """(value as uint64, defined, nan) of elements `index` of the buffer's
    arrays seen as words by `as_words_of` (a view: flat words, or a
    register column); NaN marks not made yet are none."""
    value = as_words_of(buffer.data)[index].astype(np.uint64)
    defined = as_words_of(buffer.defined)[index] == np.uint64(all_flags(nbytes))
    nan = as_words_of(buffer.nan)[index] != 0 if buffer.has_nan() else np.zeros(value.shape, bool)
    return value, defined, nan


def _write_in_words(buffer, as_words_of, index, nbytes, element):
    """_read_in_words' write of `element` (value, defined, nan); NaN marks
    are made only where a NaN is stored."""
    value, defined, nan = element
    kind = f"<u{nbytes}"
    ones = np.array(all_flags(nbytes), kind)
    as_words_of(buffer.data)[index] = value.astype(kind)
    as_words_of(buffer.defined)[index] = np.where(defined, ones, 0)
    if buffer.has_nan() or nan.any():
        as_words_of(buffer.nan)[index] = np.where(nan, ones, 0)


def undefine_words(buffer, words, nbytes):
    buffer.defined.view(f"<u{nbytes}")[words] = 0


def read_registers(buffer, rows, span):
    """(value as uint64, defined, nan) of the element at `span` (a slice,
    or per row its byte columns) of the register rows `rows`
    (little-endian bytes)."""
    column = aligned_column(buffer, span)
    if column is not None:
        return _read_in_words(buffer, column, rows, span.stop - span.start)
    return (as_words(buffer.data[rows, span]), all_set(buffer.defined[rows, span]),
            any_set(buffer.nan[rows, span]))


def aligned_column(buffer, span):
    """For an element `span` (a slice) at a multiple of its size in rows
    that are whole elements of that size: a function taking one of the
    buffer's (threads, bytes) arrays to the element of every row as a
    word, read in place (a strided column, no copy of the bytes)."""
    if not isinstance(span, slice):
        return None
    nbytes = span.stop - span.start
    if span.start % nbytes or buffer.data.shape[1] % nbytes or nbytes not in (1, 2, 4, 8):
        return None
    return lambda array: array.view(f"<u{nbytes}")[:, span.start // nbytes]


def write_registers(buffer, rows, span, value, defined, nan):
    nbytes = span.stop - span.start if isinstance(span, slice) else span.shape[1]
    column = aligned_column(buffer, span)
    if column is not None:
        _write_in_words(buffer, column, rows, nbytes, (value, defined, nan))
        return
    buffer.data[rows, span] = as_bytes(value, nbytes)
    buffer.defined[rows, span] = defined[:, None]
    buffer.nan[rows, span] = nan[:, None]


class View:
    """A memref value: a buffer, a byte offset per thread, byte strides, a
    shape and an element width in bits; `swizzle`, when it is taken from a
    tile.swizzle, is (the swizzled buffer's start per thread, bits, base,
    shift)."""

    def __init__(self, buffer, offset, strides, shape, bits, swizzle=None):
        self.buffer, self.offset, self.strides, self.shape, self.bits = buffer, offset, strides, shape, bits
        self.swizzle = swizzle
        # The last constant coordinate's addresses: an access asks for
        # them three times (alignment, banks, the bytes). A view is not
        # changed once made, nor are the arrays it returns written.
        self.last = None

    def addresses(self, coord):
        """The byte address of element `coord` for every thread: through
        the swizzle, the byte at offset o from the swizzled buffer's start
        is at o ^ ((o >> shift) & (2^bits - 1) << base) (tile.swizzle)."""
        key = tuple(coord) if all(isinstance(c, int) for c in coord) else None
        if key is not None and self.last is not None and self.last[0] == key:
            return self.last[1]
        address = self.offset + sum(c * s for c, s in zip(coord, self.strides))
        if self.swizzle is not None:
            start, bits, base, shift = self.swizzle
            offset = address - start
            address = start + (offset ^ ((offset >> shift) & (((1 << bits) - 1) << base)))
        if key is not None and isinstance(address, np.ndarray):
            address.flags.writeable = False  # shared by the callers: none may write it
            self.last = (key, address)
        return address
