"""The outside probe's findings (issue 53), each a test that failed before
its fix: silent wrong results, missed hazards, false positives, what the
interpreter ran though compile or launch refuses it, and diagnostics
without a location. Expected values come from the PTX ISA and what the
GPU does (named at each test), never from the interpreter's own output."""

import warnings

import numpy as np
import pytest

import tile_mlir
from tile_mlir import fragments
from tile_mlir import script as T


# -- Silent wrong results ----------------------------------------------------

@T.function
def negate_in_place(A: T.Tensor((4, 1), "float32"), Out: T.Tensor((4, 1), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    r = T.alloc_local((4, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A)
    T.cuda.tile.apply(T.ptx["neg.f32"], r, r)
    T.cuda.tile.apply(T.ptx["st.global.f32"], Out, r)


def test_one_array_for_a_read_and_a_written_parameter_receives_the_stores():
    # A launch with one pointer for A and Out negates the array in place.
    x = np.array([[1], [2], [3], [4]], np.float32)
    tile_mlir.interpret(negate_in_place, x, x)
    assert x.ravel().tolist() == [-1, -2, -3, -4]


@T.function
def three_of_four(A: T.Tensor((32, 4), "float32"), Out: T.Tensor((32, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    r = T.alloc_local((4, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r[0:3], A[t:t + 1, 0:3].reshape((3, 1)))
    T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[t:t + 1], r.reshape((1, 4)))


def test_a_vector_store_with_one_undefined_register_moves_the_other_three():
    # st.global.v4 writes each of its four registers to its own word: the
    # three defined ones arrive, the undefined fourth is left (and counted:
    # 32 elements, one a thread).
    a = np.arange(128, dtype=np.float32).reshape(32, 4)
    out = np.full((32, 4), -1, np.float32)
    with pytest.warns(tile_mlir.InterpretWarning, match=r"three_of_four: 32 of 128 elements of Out were stored "
                                                        r"undefined"):
        tile_mlir.interpret(three_of_four, a, out)
    assert np.array_equal(out[:, :3], a[:, :3])
    assert (out[:, 3] == -1).all()


@T.function
def shared_three_of_four(A: T.Tensor((32, 4), "float32"), Out: T.Tensor((32, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.thread_id()
    s = T.alloc_shared((32, 4), "float32")
    r = T.alloc_local((4, 1), "float32")
    q = T.alloc_local((1, 4), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r[0:3], A[t:t + 1, 0:3].reshape((3, 1)))
    T.cuda.tile.apply(T.ptx["st.shared.v4.f32"], s[t:t + 1], r.reshape((1, 4)))
    T.cuda.tile.apply(T.ptx["ld.shared.v4.f32"], q, s[t:t + 1])
    T.cuda.tile.apply(T.ptx["st.global.v4.f32"], Out[t:t + 1], q)


def test_a_shared_vector_load_moves_its_defined_words():
    a = np.arange(128, dtype=np.float32).reshape(32, 4)
    out = np.full((32, 4), -1, np.float32)
    with pytest.warns(tile_mlir.InterpretWarning, match=r"32 of 128 elements of Out"):
        tile_mlir.interpret(shared_three_of_four, a, out)
    assert np.array_equal(out[:, :3], a[:, :3])


@pytest.mark.parametrize("operand", ["a", "b", "d"])
def test_fragment_tables_refuse_a_wgmma_spelling(operand):
    # wgmma's D rows follow the warp of the warpgroup (PTX ISA 9.7.15.5.1):
    # mma.sync's tables would place 896 of 1,024 elements wrong.
    wgmma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"
    with pytest.raises(ValueError, match=r"is a wgmma form, not an mma\.sync"):
        fragments.table(wgmma, operand)


def test_mma_coordinates_refuses_a_wgmma_spelling():
    with pytest.raises(T.TileError, match=r"mma_coordinates: wgmma\.mma_async\S* is a wgmma form, not an "
                                          r"mma\.sync"):
        @T.function
        def coordinates(Out: T.Tensor((32, 2), "int32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            T.mma_coordinates("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "d", 0)


def _under_aligned(opcode, shape, dtype, words):
    @T.function
    def under_aligned(A: T.Tensor((32, words), dtype), Out: T.Tensor((32, words), dtype)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        s = T.alloc_shared((32, words), dtype, align=4)
        r = T.alloc_local((1, words), dtype)
        T.cuda.tile.apply(T.ptx["ld.global.v%d.%s" % (words, opcode)] if words > 1 else T.ptx["ld.global." + opcode],
                          r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx[("st.shared.v%d.%s" % (words, opcode)) if words > 1 else "st.shared." + opcode],
                          s[t:t + 1], r)
    return under_aligned


@pytest.mark.parametrize("opcode,dtype,words,nbytes", [("f32", "float32", 4, 16), ("b64", "uint64", 1, 8)])
def test_a_static_shared_buffer_aligned_below_the_access_is_a_fault(opcode, dtype, words, nbytes):
    # ptxas placed such a buffer at 0x404 and issued STS.128 on it: the
    # access is not provably aligned, whatever its offset in the buffer.
    kernel = _under_aligned(opcode, None, dtype, words)
    a = np.zeros((32, words), dtype)
    with pytest.raises(tile_mlir.InterpretError, match=rf"under_aligned: \S*test_probe_findings\.py:\d+: "
                                                       rf"st\.shared\S*: thread 0: accesses {nbytes} bytes of the "
                                                       rf"shared buffer of \S+, which is declared align=4"):
        tile_mlir.interpret(kernel, a, a.copy())


def test_an_mbarrier_in_a_buffer_aligned_to_four_is_a_fault():
    @T.function
    def barrier_at_four(Out: T.Tensor((1, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        bar = T.alloc_shared((1,), "uint64", align=4)
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared.b64"], bar[0:1], T.uint32(32), pred=T.thread_id() == 0)

    with pytest.raises(tile_mlir.InterpretError, match=r"mbarrier\.init\S*: thread 0: accesses 8 bytes of the "
                                                       r"shared buffer of \S+, which is declared align=4"):
        tile_mlir.interpret(barrier_at_four, np.zeros((1, 1), np.uint32))


# -- Diagnostics ---------------------------------------------------------------

@pytest.mark.parametrize("start", [lambda t: t % 8, lambda t: t // 2, lambda t: (t & 7) ^ 1, lambda t: t & 7,
                                   lambda t: T.minimum(t, 7), lambda t: T.maximum(t - 8, 0)],
                         ids=["mod", "floordiv", "xor", "and", "minimum", "maximum"])
def test_a_slice_whose_start_is_derived_keeps_its_static_extent(start, request):
    kind = request.node.callspec.id
    # A[f(t) : f(t) + 1] is "stop as start + a constant", as the error said
    # to write it: one expression written twice is one value.
    @T.function
    def gather(A: T.Tensor((8, 1), "float32"), Out: T.Tensor((16, 1), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=16))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "float32")
        T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[start(t):start(t) + 1])
        T.cuda.tile.apply(T.ptx["st.global.f32"], Out[t:t + 1], r)

    a = np.arange(8, dtype=np.float32).reshape(8, 1) + 100
    out = np.zeros((16, 1), np.float32)
    tile_mlir.interpret(gather, a, out)
    rows = {"mod": [t % 8 for t in range(16)], "floordiv": [t // 2 for t in range(16)],
            "xor": [(t & 7) ^ 1 for t in range(16)], "and": [t & 7 for t in range(16)],
            "minimum": [min(t, 7) for t in range(16)], "maximum": [max(t - 8, 0) for t in range(16)]}
    assert out.ravel().tolist() == [100 + r for r in rows[kind]]


def test_a_nested_artifact_is_an_artifact_error(tmp_path):
    from tile_mlir import runtime
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(runtime.ArtifactError, match=r"deep\.json: not an artifact: JSON nested deeper than "
                                                    r"Python's recursion limit"):
        runtime.load(str(path))


@pytest.mark.parametrize("target,why", [("sm_9O", r"unknown chip 'sm_9O'"), ("gfx90a", r"unknown target 'gfx90a'"),
                                        (90, r"a target is a string")])
def test_a_bad_target_is_a_target_error_naming_the_kernel(target, why):
    with pytest.raises(tile_mlir.TargetError, match=rf"^negate_in_place: compile\(target={target!r}\): {why}"):
        tile_mlir.compile(negate_in_place, target=target)
    # Still what it was for code that caught it.
    assert issubclass(tile_mlir.TargetError, ValueError) and issubclass(tile_mlir.TargetError,
                                                                       tile_mlir.CompileError)


def test_a_fixed_cluster_bounds_its_registers():
    # A launch of clusters of 4 blocks: %cluster_ctarank is 0 to 3 and
    # %cluster_nctarank 4, so a division by the latter is by at least 1.
    from tile_mlir.frontend.tracing import _builder
    seen = {}

    @T.function
    def ranks(Out: T.Tensor((16, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=(2, 2), block=4, cluster=(2, 2)))
        builder = _builder.current
        seen["rank"] = builder.range_of(T.cluster_ctarank())
        seen["blocks"] = builder.range_of(T.cluster_nctarank())
        seen["x"] = builder.range_of(T.cluster_block_id("x"))
        seen["z"] = builder.range_of(T.cluster_block_id("z"))
        i = T.block_id() * 4 + T.thread_id()  # 0 to 7
        seen["quotient"] = builder.range_of(i // T.cluster_nctarank())

    assert seen == {"rank": (0, 3), "blocks": (4, 4), "x": (0, 1), "z": (0, 0), "quotient": (0, 1)}


def test_what_the_interpreter_does_not_model_is_located(line_of):
    @T.function
    def doubled(A: T.Tensor((4, 1), "int32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        r = T.alloc_local((4, 1), "int32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], r, A)
        for i in T.serial(0, 1):
            T.ewise(lambda x: T.fabs(x), r, r)  # not modelled
    with pytest.raises(tile_mlir.InterpretError, match="^doubled: " + line_of("# not modelled") +
                       r": the interpreter does not model math\.absi"):
        tile_mlir.interpret(doubled, np.ones((4, 1), "int32"))


# -- The interpreter refuses what compile and launch refuse -------------------

@T.function
def static_64k(A: T.Tensor((32, 1), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((16384, 1), "float32")
    t = T.thread_id()
    r = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["st.shared.f32"], s[t:t + 1], r)


@T.function
def dynamic_240000(A: T.Tensor((32, 1), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_dynamic_shared((60000, 1), "float32")
    t = T.thread_id()
    r = T.alloc_local((1, 1), "float32")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], r, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["st.shared.f32"], s[t:t + 1], r)


@T.function
def full_mask_of_48(A: T.Tensor((48, 1), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=48))
    t = T.thread_id()
    r = T.alloc_local((1, 1), "uint32")
    T.cuda.tile.apply(T.ptx["ld.global.u32"], r, A[t:t + 1])
    T.cuda.tile.apply(T.ptx["shfl.sync.bfly.b32"], r, r, T.uint32(1), T.uint32(31), T.uint32(0xFFFFFFFF))
    T.cuda.tile.apply(T.ptx["st.global.u32"], A[t:t + 1], r)


@T.function
def swizzled_of_block(Out: T.Tensor((2, 32), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
    s = T.alloc_shared((8, 32), "uint32", align=1024)
    remote = s.swizzle("128B").of_block(1 - T.cluster_ctarank())
    r = T.alloc_local((1, 1), "uint32")
    t = T.thread_id()
    T.cuda.tile.apply(T.ptx["ld.shared::cluster.u32"], r, remote[0:1, t:t + 1])


@pytest.mark.parametrize("kernel,arrays,why", [
    (static_64k, [(32, 1, "float32")], r"a kernel declares at most 49152 \(48 KiB\) of static shared memory"),
    (dynamic_240000, [(32, 1, "float32")], r"dynamic_240000 needs 240000 bytes of shared memory per block \(0 "
                                           r"static, 240000 dynamic\); sm_90a gives a block at most 232448"),
    (full_mask_of_48, [(48, 1, "uint32")], r"membermask 0xffffffff names lanes 16-31 of the last warp, which a "
                                           r"block of 48 threads does not have"),
    (swizzled_of_block, [(2, 32, "uint32")], r"'tile\.mapa' would not"),
], ids=["static-64k", "dynamic-240000", "full-mask-48", "swizzled-of-block"])
def test_the_interpreter_refuses_what_compile_refuses(kernel, arrays, why):
    args = [np.zeros(shape[:2], shape[2]) for shape in arrays]
    with pytest.raises(tile_mlir.CompileError, match=why) as compiled:
        tile_mlir.compile(kernel, target="sm_90a", cubin=False)
    with pytest.raises(tile_mlir.CompileError, match=why) as interpreted:
        tile_mlir.interpret(kernel, *args)
    assert str(interpreted.value) == str(compiled.value)


@pytest.mark.parametrize("columns", [10, 2])
def test_the_interpreter_refuses_a_tensor_map_a_launch_refuses(columns):
    # Rows of 40 or 8 bytes: cuTensorMapEncodeTiled needs strides that are
    # multiples of 16 bytes, so a launch refuses the array; so does
    # interpret, before anything runs.
    @T.function
    def boxes(A: T.Tensor((None, None), "float32", tma=T.TensorMap((8, 4))), Out: T.Tensor((8, 4), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=None, block=32))
        box = T.alloc_shared((8, 4), "float32", align=128)
        bar = T.alloc_shared((1,), "uint64")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared.b64"], bar[0:1], T.uint32(1), pred=T.thread_id() == 0)

    from tile_mlir import runtime
    with pytest.raises(runtime.ArgumentError, match=rf"A: a tensor map \(box \(8, 4\), swizzle none\): the "
                                                    rf"stride along axis 0 is {4 * columns} bytes, not a multiple "
                                                    "of 16"):
        tile_mlir.interpret(boxes, np.zeros((8, columns), np.float32), np.zeros((8, 4), np.float32), grid=1)


# -- Hazards that were missed ----------------------------------------------------

def _store_then_read(wait, fence=True):
    """Thread 0 stores a shared box to Out by TMA, then (no barrier needed:
    the same thread) reads Out's first element back, after `wait`: None,
    "cp.async.bulk.wait_group.read" or "cp.async.bulk.wait_group". The
    box is written by st.shared, then fenced for the async proxy if
    `fence`."""
    @T.function
    def k(Out: T.Tensor((16, 16), "uint16", tma=T.TensorMap((16, 16), "32B")),
          Seen: T.Tensor((1, 1), "uint16")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        box = T.alloc_shared((16, 16), "uint16", align=256).swizzle("32B")
        t = T.thread_id()
        v = T.alloc_local((1, 1), "uint16")
        T.cuda.tile.apply(T.ptx["mov.b16"], v, T.uint16(7))
        with T.if_(t < 16):
            for r in range(16):
                T.cuda.tile.apply(T.ptx["st.shared.b16"], box[r:r + 1, t:t + 1], v)  # the staging
        if fence:
            T.cuda.tile.apply(T.ptx["fence.proxy.async.shared::cta"])
        T.cuda.tile.apply(T.ptx["bar.sync"], T.uint32(0))
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"], Out.tensor_map,  # store
                              (0, 0), box)
            T.cuda.tile.apply(T.ptx["cp.async.bulk.commit_group"])
            if wait:
                T.cuda.tile.apply(T.ptx[wait], T.uint32(0))
            T.cuda.tile.apply(T.ptx["ld.global.u16"], v, Out[0:1, 0:1])  # read back
            T.cuda.tile.apply(T.ptx["st.global.u16"], Seen, v)
    return k


@pytest.mark.parametrize("wait", [None, "cp.async.bulk.wait_group.read"])
def test_reading_a_tma_store_target_before_its_wait_is_a_hazard(wait, line_of):
    # .read waits for the source to be read, not for the target to be
    # written (PTX ISA 9.7.9.25.4): only a full wait_group makes it visible.
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_store_then_read(wait), np.zeros((16, 16), np.uint16), np.zeros((1, 1), np.uint16))
    (hazard,) = caught.value.hazards
    assert hazard.kind == "TMA store target before its wait"
    assert str(hazard).startswith(f"{line_of('# read back')}: ld.global.u16 reads Out byte 0, which "
                                  "the bulk store at ")
    assert str(hazard).endswith("may still be writing: no cp.async.bulk.wait_group (without .read) covers its "
                                "bulk group")


def test_reading_a_tma_store_target_after_its_wait_group_is_clean():
    out, seen = np.zeros((16, 16), np.uint16), np.zeros((1, 1), np.uint16)
    tile_mlir.interpret(_store_then_read("cp.async.bulk.wait_group"), out, seen)
    assert (out == 7).all() and seen[0, 0] == 7


def _collective(opcode, masks, operands):
    """One warp runs `opcode`; lanes below 16 pass membermask masks[0],
    the others masks[1]."""
    @T.function
    def k(A: T.Tensor((32, 1), "uint32"), Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        t = T.thread_id()
        r = T.alloc_local((1, 1), "uint32")
        m = T.alloc_local((1, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.u32"], r, A[t:t + 1])
        T.cuda.tile.apply(T.ptx["mov.b32"], m, T.uint32(masks[1]))
        with T.if_(t < 16):
            T.cuda.tile.apply(T.ptx["mov.b32"], m, T.uint32(masks[0]))
        T.cuda.tile.apply(T.ptx[opcode], *operands(r, m))  # the collective
        T.cuda.tile.apply(T.ptx["st.global.u32"], Out[t:t + 1], r)
    return k


COLLECTIVES = {
    "shfl": ("shfl.sync.bfly.b32", lambda r, m: (r, r, T.uint32(1), T.uint32(31), m)),
    "match": ("match.any.sync.b32", lambda r, m: (r, r, m)),
    "redux": ("redux.sync.add.u32", lambda r, m: (r, r, m)),
}


@pytest.mark.parametrize("name", sorted(COLLECTIVES))
def test_lanes_passing_different_membermasks_to_one_collective_is_a_hazard(name, line_of):
    opcode, operands = COLLECTIVES[name]
    a = np.arange(32, dtype=np.uint32).reshape(32, 1)
    # The lower half names the whole warp; the upper half, in it, names
    # itself alone.
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_collective(opcode, (0xFFFFFFFF, 0xFFFF0000), operands), a,
                            np.zeros((32, 1), np.uint32))
    hazards = [str(h) for h in caught.value.hazards if "passes membermask" in str(h)]
    assert hazards == [f"{line_of('# the collective')}: {opcode} in thread 0 (lane 0) passes membermask 0xffffffff, "
                       "but lane 16 of it passes 0xffff0000: lanes of one membermask pass the same one"]


@pytest.mark.parametrize("name", sorted(COLLECTIVES))
def test_lanes_passing_one_membermask_are_clean(name):
    opcode, operands = COLLECTIVES[name]
    a = np.arange(32, dtype=np.uint32).reshape(32, 1)
    tile_mlir.interpret(_collective(opcode, (0xFFFFFFFF, 0xFFFFFFFF), operands), a, np.zeros((32, 1), np.uint32))


def _atomics_on_one_word(half):
    """Thread 0 adds 1 to word 0 of W with atom.add.u32; thread 1, with no
    barrier between, swaps its low half (a b16 atom.cas) or, without
    `half`, adds to the whole word too."""
    @T.function
    def k(W: T.Tensor((1, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=2))
        t = T.thread_id()
        old = T.alloc_local((1, 1), "uint32")
        old16 = T.alloc_local((1, 1), "uint16")
        with T.if_(t == 0):
            T.cuda.tile.apply(T.ptx["atom.global.add.u32"], old, W, T.uint32(1))
        with T.if_(t == 1):
            if half:
                half_word = W.view("uint16")[0:1, 0:1]
                T.cuda.tile.apply(T.ptx["atom.global.cas.b16"], old16, half_word, T.uint16(0), T.uint16(5))  # cas
            else:
                T.cuda.tile.apply(T.ptx["atom.global.add.u32"], old, W, T.uint32(2))
    return k


def test_atomics_of_different_widths_on_one_word_race(line_of):
    # Morally strong accesses overlap completely (PTX ISA 8.6.3): a u32
    # atomic and a b16 one on half of its word do not, so they race.
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_atomics_on_one_word(True), np.zeros((1, 1), np.uint32))
    hazards = caught.value.hazards
    assert sorted(h.kind for h in hazards) == ["read-after-write", "write-after-write"]
    assert all(h.second == line_of("# cas") and h.threads == (0, 1) and h.byte == 0
               for h in hazards)


def test_atomics_of_one_width_on_one_word_do_not_race():
    w = np.zeros((1, 1), np.uint32)
    tile_mlir.interpret(_atomics_on_one_word(False), w)
    assert w[0, 0] == 3


def test_a_tma_store_of_unfenced_generic_writes_is_a_hazard(line_of):
    # st.shared writes through the generic proxy, the TMA store reads
    # through the async proxy: fence.proxy.async must order them (PTX ISA
    # 8.6, Proxies).
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_store_then_read("cp.async.bulk.wait_group", fence=False),
                            np.zeros((16, 16), np.uint16), np.zeros((1, 1), np.uint16))
    (hazard,) = caught.value.hazards
    assert hazard.kind == "async-proxy read without fence.proxy.async"
    assert str(hazard).startswith(f"{line_of('# store')}: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
                                  "reads the shared buffer of ")
    assert str(hazard).endswith(f"through the async proxy, which the write at {line_of('# the staging')} made "
                                "through the generic proxy: no fence.proxy.async between them")


def test_a_wgmma_read_of_unfenced_generic_writes_is_a_hazard():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "gpu"))
    import wgmma_check as W
    spec = {**W.CASES["bf16_n8_64B_accumulate"]}
    _, arrays = W.case_arrays(spec)
    tile_mlir.interpret(W.wgmma_tile(**spec), *arrays)
    with pytest.raises(tile_mlir.HazardError, match=r"wgmma_check.py:\d+: wgmma.mma_async\S* reads the shared "
                                                    r"buffer of \S+ byte \d+ through the async proxy, which the "
                                                    r"write at \S*wgmma_check.py:\d+ made through the generic "
                                                    r"proxy: no fence.proxy.async between them"):
        tile_mlir.interpret(W.wgmma_tile(**spec, fence=False), *W.case_arrays(spec)[1])


# -- False positives ---------------------------------------------------------------

def _cluster_handoff(wait):
    """Block 0 of a cluster of two writes block 1's tile through
    st.shared::cluster, each thread then arrives (.release.cluster) on
    block 1's mbarrier; block 1 waits for the phase (.acquire.cluster,
    if `wait`) and reads the tile."""
    @T.function
    def handoff(Out: T.Tensor((32, 1), "uint32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
        t = T.thread_id()
        rank = T.cluster_ctarank()
        bar = T.alloc_shared((1,), "uint64")
        tile = T.alloc_shared((32, 1), "uint32")
        v = T.alloc_local((1, 1), "uint32")
        done = T.alloc_local((1,), "bool")
        T.cuda.tile.apply(T.ptx["mbarrier.init.shared.b64"], bar[0:1], T.uint32(32), pred=t == 0)
        T.cuda.tile.apply(T.ptx["fence.mbarrier_init.release.cluster"], pred=t == 0)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
        with T.if_(rank == 0):
            T.cuda.tile.apply(T.ptx["mov.b32"], v, T.uint32(t + 100))
            T.cuda.tile.apply(T.ptx["st.shared::cluster.b32"], tile.of_block(1)[t:t + 1], v)  # remote write
            T.cuda.tile.apply(T.ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"], bar.of_block(1)[0:1])
        with T.if_(rank == 1):
            if wait:
                with T.until(done):
                    T.cuda.tile.apply(T.ptx["mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"], done,
                                      bar[0:1], T.uint32(0))
            T.cuda.tile.apply(T.ptx["ld.shared.b32"], v, tile[t:t + 1])  # the read
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out[t:t + 1], v)
        T.cuda.tile.apply(T.ptx["barrier.cluster.arrive.aligned"])
        T.cuda.tile.apply(T.ptx["barrier.cluster.wait.aligned"])
    return handoff


def test_a_handoff_through_another_blocks_mbarrier_is_no_race():
    out = np.zeros((32, 1), np.uint32)
    tile_mlir.interpret(_cluster_handoff(True), out)
    assert out.ravel().tolist() == list(range(100, 132))


def test_the_same_handoff_without_the_wait_is_a_race(line_of):
    with pytest.raises(tile_mlir.HazardError) as caught:
        tile_mlir.interpret(_cluster_handoff(False), np.zeros((32, 1), np.uint32))
    assert any(h.kind == "read-after-write" and h.first == line_of("# remote write") and
               h.second == line_of("# the read") for h in caught.value.hazards)
