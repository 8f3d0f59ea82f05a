"""The interpreter's fast paths (issue 56, part 3: speed) compute what the
general code computes: decode and encode by numpy views against the
formats' bit fields, f32/f64 add, sub and mul .rn by the CPU against the
exact result rounded once, and the race check's grouping of addresses
that are not in increasing order (no sort where none repeats) against
the PTX memory model's rule that two threads' stores to one byte in one
instruction race."""

import numpy as np
import pytest

import tile_mlir
from tile_mlir import script as T
from tile_mlir.interpreter import reference as R

RNG = np.random.default_rng(56)


def special_patterns(kind):
    """Bit patterns of `kind` that rounding and signs get wrong first: both
    zeros, the smallest and largest subnormals, the smallest normal, one,
    the largest finite, the infinities, a quiet and a signaling NaN, each
    with either sign, and random ones of every exponent."""
    e, m, _ = R.FORMATS[kind]
    width = 1 + e + m
    top = (1 << e) - 1
    magnitudes = [0, 1, (1 << m) - 1, 1 << m, ((top >> 1) << m), ((top - 1) << m) | ((1 << m) - 1),
                  top << m, (top << m) | (1 << (m - 1)), (top << m) | 1]
    fields = [x | (s << (width - 1)) for x in magnitudes for s in (0, 1)]
    random = RNG.integers(0, 1 << min(width, 63), 4000, dtype=np.uint64)
    uint = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    return np.concatenate([np.array(fields, np.uint64), random]).astype(uint)


def same_floats(x, y):
    """Equal as values, NaN equal to NaN, and zeros of one sign."""
    return np.array_equal(x, y, equal_nan=True) and np.array_equal(np.signbit(x), np.signbit(y))


@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_every_16_bit_pattern_decodes_and_encodes_as_the_bit_fields_say(kind):
    bits = np.arange(1 << 16, dtype=np.uint64)
    values = R.decode(bits, kind)
    assert same_floats(values, R.decode_fields(bits, kind))
    assert np.array_equal(R.encode(values, kind), R.encode_fields(values, kind))


@pytest.mark.parametrize("kind", ["f32", "f64"])
def test_f32_and_f64_patterns_decode_and_encode_as_the_bit_fields_say(kind):
    bits = special_patterns(kind)
    values = R.decode(bits, kind)
    assert same_floats(values, R.decode_fields(bits, kind))
    assert np.array_equal(R.encode(values, kind), R.encode_fields(values, kind))


@pytest.mark.parametrize("kind", ["f32", "f64"])
@pytest.mark.parametrize("family", ["add", "sub", "mul"])
def test_the_cpus_rounding_is_the_exact_result_rounded_once(kind, family):
    # Every pair of the special patterns, and random pairs; sums of
    # opposite-signed equal values make the signed zeros of IEEE 754.
    specials = special_patterns(kind)
    a, b = (x.reshape(-1) for x in np.meshgrid(specials[:18], specials[:18]))
    a = np.concatenate([a, specials, specials])
    b = np.concatenate([b, specials[::-1], specials ^ np.array(1 << (R.bits_of(kind) - 1), specials.dtype)])
    assert R.ieee_hardware()
    native = R.native_arith(family, kind, a, b)
    if kind == "f64":  # the exact model runs each f64 pair through fractions: a sample
        a, b, native = a[::20], b[::20], native[::20]
    assert np.array_equal(native.astype(np.uint64), R.exact_arith(family, kind, {"rn"}, a, b).astype(np.uint64))


def test_without_ieee_subnormals_the_exact_model_runs(monkeypatch):
    # A process with flush-to-zero set (some libraries set it when
    # loaded) would flush the CPU's subnormal sums: the model is used.
    tiny = np.array([1], np.uint32)  # the smallest f32 subnormal
    monkeypatch.setattr(R, "native_arith", lambda *args: pytest.fail("the CPU's arithmetic was used"))
    monkeypatch.setattr(R, "ieee_hardware", lambda: False)
    assert R.float_arith("add", "f32", {"rn"}, tiny, tiny)[0] == 2


def stores(target_of_thread):
    @T.function
    def scattered(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[t:t + 1])
        i = target_of_thread(t)
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[i:i + 1], r)  # the scattered store
    return scattered


def test_stores_in_decreasing_order_that_meet_race(line_of):
    # Threads 2k and 2k + 1 store to element 15 - k: addresses fall as
    # the threads rise, so no sort finds the pairs; the check must.
    a = np.arange(32, dtype="uint32").reshape(32, 1) + 100
    out = np.zeros((32, 1), "uint32")
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(stores(lambda t: (31 - t) // 2), a, out)
    (hazard,) = caught.value.hazards
    assert hazard.kind == "write-after-write" and hazard.buffer == "Out"
    assert hazard.first == hazard.second == line_of("# the scattered store")
    threads = sorted(hazard.threads)
    assert threads[1] == threads[0] + 1 and threads[0] % 2 == 0 and hazard.byte // 4 == 15 - threads[0] // 2


def test_stores_in_decreasing_order_that_do_not_meet_are_no_race():
    a = np.arange(32, dtype="uint32").reshape(32, 1) + 100
    out = np.zeros((32, 1), "uint32")
    tile_mlir.interpret(stores(lambda t: 31 - t), a, out)
    assert np.array_equal(out, a[::-1])


def shared_reads(read_index, size):
    """Every thread reads A[read_index(t)]; then thread 1 stores to A[0]
    with no barrier between."""
    @T.function
    def readers(A: T.Tensor((size, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        i = read_index(t)
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[i:i + 1])  # the shared read
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], r)
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[0:1], r, pred=(t == 1))  # thread 1's store
    return readers


@pytest.mark.parametrize("read_index, size", [
    (lambda t: t * 0, 32),               # every thread one word: a narrow range, grouped in slots
    (lambda t: (t % 2) * t * 1000, 32000),  # the even threads word 0, the odd ones far apart: sorted
], ids=["slots", "sorted"])
def test_a_word_many_threads_read_is_read_by_several_and_a_store_races_with_them(read_index, size, line_of):
    a = np.arange(size, dtype="uint32").reshape(size, 1) + 7
    out = np.zeros((32, 1), "uint32")
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(shared_reads(read_index, size), a, out)
    (hazard,) = caught.value.hazards
    assert hazard.kind == "write-after-read" and hazard.buffer == "A" and hazard.byte == 0
    assert hazard.first == line_of("# the shared read") and hazard.second == line_of("# thread 1's store")
    assert hazard.threads == ("(several)", 1)


@pytest.mark.parametrize("spans", [(5, 300, 7), (1 << 40, 1 << 30, 3), (1, 1, 1)])
def test_rows_made_unique_packed_equal_numpys_unique_rows(spans):
    # clocks.unique_rows packs each row of non-negative integers into one
    # int64 where the columns' ranges fit (else numpy's unique along an
    # axis, as (2^40, 2^30, 3) needs): the same rows, in the same order,
    # and the same inverse, with repeats and an empty input.
    from tile_mlir.interpreter.clocks import unique_rows
    columns = [RNG.integers(0, span, 5000, dtype=np.int64) for span in spans]
    unique, inverse = unique_rows(columns)
    want, want_inverse = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
    assert np.array_equal(unique, want) and np.array_equal(inverse, want_inverse.reshape(-1))
    empty, empty_inverse = unique_rows([np.zeros(0, np.int64)] * 3)
    assert empty.shape == (0, 3) and empty_inverse.size == 0


# The race check keeps its state per cell of up to 16 bytes while every
# access covers whole cells (memory.MAX_GRAIN); a narrower access refines
# the cells. These kernels mix word and half-word accesses of one tensor,
# so the verdicts and the bytes reported are those of a byte-wise check.

def words_and_halves(half_reader, barrier):
    """Thread 0 stores word 0 (bytes 0-3); threads 2 and 3 store the
    halves of word 1 (bytes 4-5 and 6-7); then thread `half_reader`
    loads the half at bytes 2-3 and thread 0 loads word 1, after a
    bar.sync or not."""
    @T.function
    def mixed(A: T.Tensor((16,), "uint32"), Out: T.Tensor((32,), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        halves = A.view("uint16")
        word = T.alloc_local((1,), "uint32")
        half = T.alloc_local((1,), "uint16")
        T.cuda.tile.apply(T.ptx["mov.b32"], word, T.uint32(0x11223344))
        T.cuda.tile.apply(T.ptx["mov.b16"], half, T.uint16(0x5566))
        T.cuda.tile.apply(T.ptx["st.global.b32"], A[0:1], word, pred=(t == 0))  # the word store
        T.cuda.tile.apply(T.ptx["st.global.b16"], halves[t:t + 1], half, pred=(t == 2) | (t == 3))  # the half stores
        if barrier:
            T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        T.cuda.tile.apply(T.ptx["ld.global.b16"], half, halves[1:2], pred=(t == half_reader))  # the half load
        T.cuda.tile.apply(T.ptx["ld.global.b32"], word, A[1:2], pred=(t == 0))  # the word load
        T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], word, pred=(t == 0))
    return mixed


def test_a_half_of_another_threads_word_races_at_its_own_bytes(line_of):
    a, out = np.zeros(16, "uint32"), np.zeros(32, "uint32")
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(words_and_halves(half_reader=1, barrier=False), a, out)
    found = {(h.kind, h.first, h.second): h for h in caught.value.hazards}
    half = found["read-after-write", line_of("# the word store"), line_of("# the half load")]
    assert half.byte == 2 and half.threads == (0, 1)
    word = found["read-after-write", line_of("# the half stores"), line_of("# the word load")]
    assert word.byte == 4 and word.threads == (2, 0)
    assert len(found) == 2


def test_halves_and_words_of_one_thread_or_across_a_barrier_do_not_race():
    a, out = np.zeros(16, "uint32"), np.zeros(32, "uint32")
    tile_mlir.interpret(words_and_halves(half_reader=0, barrier=True), a, out)
    assert a[0] == 0x11223344 and a[1] == 0x55665566 and out[0] == 0x55665566


def test_epochs_and_program_points_widen_past_int16():
    # The race state keeps barrier epochs and program points as int16
    # until one does not fit: then the field is int32 with every earlier
    # entry kept (a kernel past 32,767 barriers still orders by epoch).
    from tile_mlir.interpreter.memory import Buffer
    buffer = Buffer(np.zeros(64, np.uint8), np.ones(64, bool), False, "A")
    epochs = buffer.widen("read_epoch", 32767)
    epochs[:] = np.arange(epochs.size) * 1000
    assert epochs.dtype == np.int16
    wide = buffer.widen("read_epoch", 40000)
    wide[1] = 40000
    assert buffer.read_epoch.dtype == np.int32 and buffer.read_epoch[1] == 40000
    assert list(buffer.read_epoch[[0, 2, 3]]) == [0, 2000, 3000]


# Reads of a tensor that no instruction of the kernel may write are not
# race-checked (setup.written_tensors): they cannot race. A tensor written
# through a view of a view, by an atomic, or through another parameter
# that aliases it is written, and its reads are checked.

def read_then_written(writer):
    """Every thread loads A[0]; then thread 1 writes it (`writer`), with no
    barrier between."""
    @T.function
    def kernel(A: T.Tensor((32, 1), "uint32"), B: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A[0:1])  # the read
        if writer == "view":
            halves = A.view("uint16")
            T.cuda.tile.apply(T.ptx["st.global.b16"], halves[0:1, 0:1],  # the view's write
                              r.view("uint16")[0:1, 0:1], pred=(t == 1))
        elif writer == "atomic":
            T.cuda.tile.apply(T.ptx["red.global.add.u32"], A[0:1], r, pred=(t == 1))  # the atomic's write
        elif writer == "address":
            flag = T.alloc_local((1,), "bool")
            T.cuda.tile.apply(T.ptx["isspacep.global"], flag, A.view("uint8")[0, 0:1].generic())  # writes nothing
        else:
            T.cuda.tile.apply(T.ptx["st.global.b32"], B[0:1], r, pred=(t == 1))  # the alias's write
    return kernel


@pytest.mark.parametrize("writer", ["view", "atomic", "alias"])
def test_reads_of_a_tensor_written_by_a_view_an_atomic_or_an_alias_are_race_checked(writer, line_of):
    a = np.arange(32, dtype="uint32").reshape(32, 1)
    b = a if writer == "alias" else np.zeros_like(a)
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(read_then_written(writer), a, b)
    (hazard,) = caught.value.hazards
    assert hazard.kind == "write-after-read" and hazard.byte == 0
    assert hazard.second == line_of(f"# the {writer}'s write")
    # (An atomic's own read joins the reads its write is checked against,
    # so its report names its line for the readers too.)
    assert hazard.first == line_of("# the atomic's write" if writer == "atomic" else "# the read")


def test_a_tensor_only_loaded_is_read_only_and_one_stored_to_is_not():
    from tile_mlir.interpreter.setup import written_tensors
    # An address read as a value (isspacep) reads and writes no byte.
    for writer, written in (("alias", ["B"]), ("view", ["A"]), ("atomic", ["A"]), ("address", [])):
        kernel = read_then_written(writer)
        func = kernel.module.body.operations[0].regions[0].blocks[0].operations[0]
        with kernel.context:
            tensors = list(func.regions[0].blocks[0].arguments)
            names = dict(zip(tensors, "AB"))
            assert sorted(names[t] for t in written_tensors(func, tensors)) == written, writer
