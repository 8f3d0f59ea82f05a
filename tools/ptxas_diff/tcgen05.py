"""The tcgen05 spellings of the differential test (PTX ISA 9.0, 9.7.16):
every form the table lists, and near misses written from the ISA's syntax
(a required qualifier missing, one misplaced or repeated, another
family's, shapes and counts beyond their range, the other direction's
packing), with the ISA's operands for the ones the table rejects. ptxas
judges them on the targets that have tcgen05 and on two that do not:

    python tools/ptxas_diff/ptxas_diff.py --sm100 --out tools/ptxas_diff/results_sm100.json
"""

from __future__ import annotations

import itertools

from tile_mlir import ptx

# sm_100a, sm_100f and sm_103a have tcgen05; sm_90a and sm_120a do not.
# (sm_110a has it too, but needs PTX 9.0, newer than tile-mlir emits.)
TARGETS = ("sm_100a", "sm_100f", "sm_103a", "sm_90a", "sm_120a")

CTA_GROUPS = ("cta_group::1", "cta_group::2")
SHAPES = ("16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2")
NUMS = tuple(f"x{n}" for n in (1, 2, 4, 8, 16, 32, 64, 128))
COPY_SHAPES = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b")
COPY_MULTICASTS = ("warpx2::02_13", "warpx2::01_23", "warpx4")


def _join(*tokens):
    return ".".join(t for t in tokens if t)


def _allocation_spellings():
    for group in CTA_GROUPS + ("cta_group::3", ""):
        for space in ("shared::cta", "", "shared", "shared::cluster", "global"):
            for sync in (("sync", "aligned"), ("aligned", "sync"), ("sync",), ("aligned",), ()):
                for ty in ("b32", "b64", "u32", ""):
                    yield _join("tcgen05.alloc", group, *sync, space, ty)
        for sync in (("sync", "aligned"), ("sync",), ()):
            for ty in ("b32", "b64", ""):
                yield _join("tcgen05.dealloc", group, *sync, ty)
            yield _join("tcgen05.relinquish_alloc_permit", group, *sync)
            yield _join("tcgen05.relinquish_alloc_permit", group, *sync, "b32")


def _synchronization_spellings():
    for fence in ("fence::before_thread_sync", "fence::after_thread_sync", "fence::before", "fence"):
        for extra in ((), ("sync",), ("sync", "aligned"), ("cta_group::1",), ("b32",)):
            yield _join("tcgen05", fence, *extra)
    for wait in ("wait::ld", "wait::st", "wait::mma", "wait"):
        for extra in (("sync", "aligned"), ("aligned", "sync"), ("sync",), ("aligned",), (),
                      ("sync", "aligned", "b32"), ("sync", "aligned", "cta_group::1")):
            yield _join("tcgen05", wait, *extra)
    for group in CTA_GROUPS + ("",):
        for completion in ("mbarrier::arrive::one", "mbarrier::arrive", "mbarrier::complete_tx::bytes", ""):
            for space in ("", "shared::cluster", "shared::cta", "shared"):
                for multicast in ("", "multicast::cluster"):
                    for ty in ("b64", "b32", ""):
                        yield _join("tcgen05.commit", group, completion, space, multicast, ty)
        yield _join("tcgen05.commit", group, "sync", "aligned", "mbarrier::arrive::one", "b64")
        for direction in ("down", "up", ""):
            yield _join("tcgen05.shift", group, direction)
        yield _join("tcgen05.shift", group, "down", "b32")


def _move_spellings():
    for op, packing, wrong in (("ld", "pack::16b", "unpack::16b"), ("st", "unpack::16b", "pack::16b")):
        for shape in SHAPES:
            for num in NUMS:
                for pack in ("", packing, wrong):
                    yield _join("tcgen05", op, "sync", "aligned", shape, num, pack, "b32")
            for ty in ("u32", "b64", "b16", "f32", ""):
                yield _join("tcgen05", op, "sync", "aligned", shape, "x2", ty)
            for sync in (("aligned", "sync"), ("sync",), ("aligned",), ()):
                yield _join("tcgen05", op, *sync, shape, "x4", "b32")
            yield _join("tcgen05", op, "sync", "aligned", shape, "x3", "b32")
            yield _join("tcgen05", op, "sync", "aligned", shape, "x256", "b32")
            yield _join("tcgen05", op, "sync", "aligned", shape, "b32")
            yield _join("tcgen05", op, "sync", "aligned", shape, "x1", "cta_group::1", "b32")
        for shape in ("32x64b", "16x512b", "32x32bx2", ""):
            yield _join("tcgen05", op, "sync", "aligned", shape, "x1", "b32")


def _copy_spellings():
    for group in CTA_GROUPS + ("",):
        for shape in COPY_SHAPES + ("256x128b", ""):
            for multicast in ("",) + COPY_MULTICASTS + ("warpx2",):
                for formats in ((), ("b8x16", "b6x16_p32"), ("b8x16", "b4x16_p64"), ("b6x16_p32", "b8x16"),
                                ("b8x16",), ("b4x16_p64",), ("b8x16", "b8x16")):
                    yield _join("tcgen05.cp", group, shape, multicast, *formats)
        yield _join("tcgen05.cp", group, "128x256b", "b64")
        yield _join("tcgen05.cp", group, "sync", "aligned", "128x256b")


KINDS = ("kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8")
BLOCK_KINDS = ("kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4")
SCALE_VECTORS = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")


def _mma_spellings():
    """tcgen05.mma (9.7.16.10.9) and .ws: every kind with and without
    .block_scale and each scale vector size, each collector usage of the
    other form, .ashift with each, the CTA groups (and .ws's cta_group::2),
    a kind missing or doubled, .sync.aligned that ptxas refuses."""
    for group in CTA_GROUPS + ("",):
        for kind in KINDS + BLOCK_KINDS + ("",):
            for block in ((), ("block_scale",)) + tuple(("block_scale", v) for v in SCALE_VECTORS):
                yield _join("tcgen05.mma", group, kind, *block)
            for usage in ("collector::a::fill", "collector::a::discard", "collector::b0::use", "collector::b3::fill"):
                yield _join("tcgen05.mma", group, kind, usage)
                yield _join("tcgen05.mma.ws", group, kind, usage)
                yield _join("tcgen05.mma", group, kind, "ashift", usage)
                yield _join("tcgen05.mma", group, kind, "block_scale", "block32", usage)
            yield _join("tcgen05.mma", group, kind, "ashift")
            yield _join("tcgen05.mma", group, kind, "block_scale", "ashift")
            yield _join("tcgen05.mma.ws", group, kind)
            yield _join("tcgen05.mma.ws", group, kind, "block_scale")
            yield _join("tcgen05.mma", group, kind, "sync", "aligned")
            yield _join("tcgen05.mma", group, kind, "f32")
        yield _join("tcgen05.mma", group, "kind::f16", "kind::tf32")
        yield _join("tcgen05.mma", group, "kind::f16", "block_scale", "kind::mxf4")


def spellings():
    """Every legal tcgen05 form, then the near misses, once each."""
    seen = set()
    for spelling in itertools.chain(ptx.forms("tcgen05"), _allocation_spellings(), _synchronization_spellings(),
                                    _move_spellings(), _copy_spellings(), _mma_spellings()):
        if spelling not in seen:
            seen.add(spelling)
            yield spelling


def _registers(tokens):
    """tcgen05.ld/st's registers a thread (PTX ISA 9.7.16.8.3): the .num
    times the shape's (2 for 16x128b, 4 for 16x256b, else 1)."""
    num = next((int(t[1:]) for t in tokens if t in NUMS), 1)
    return num * {"16x128b": 2, "16x256b": 4}.get(next((t for t in tokens if t in SHAPES), ""), 1)


def operand_choices(tokens):
    """The ISA's operands of a spelling the table rejects, in ptxas_diff's
    (bits, count, memory, bar, bar_before, braced, address) form."""
    u32, b64, memory = (32, 1, False), (64, 1, False), (64, 1, True)
    taddr = (32, 1, False, False, False, False, True)
    name = tokens[1].split("::")[0] if len(tokens) > 1 else ""
    if name == "alloc":
        return [[memory, ("imm", 32, False)], [memory, u32]]
    if name == "dealloc":
        return [[u32, ("imm", 32, False)], [u32, u32]]
    if name in ("ld", "st"):
        regs = (32, _registers(tokens), False, False, False, True)
        split = [("imm", 1, False)] if "16x32bx2" in tokens else []
        return [[regs, taddr] + split] if name == "ld" else [[taddr] + split + [regs]]
    if name == "commit":
        return [[memory, (16, 1, False)]] if "multicast::cluster" in tokens else [[memory]]
    if name == "shift":
        return [[taddr]]
    if name == "cp":
        return [[taddr, b64]]
    if name == "mma":
        pred = (1, 1, False)
        head = [taddr, b64, b64, u32]
        lanes = (32, 8 if "cta_group::2" in tokens else 4, False, False, False, True)
        if "block_scale" in tokens:
            return [head + [taddr, taddr, pred], [taddr, taddr] + head[2:] + [taddr, taddr, pred]]
        return [head + [pred], [taddr, taddr] + head[2:] + [pred], head + [lanes, pred]]
    return [[]]
