"""The tcgen05 records against the PTX ISA 9.0 (9.7.16) and ptxas 13.0's
measured floors: the operands of each instruction in the ISA's order and
roles, tcgen05.ld/st's register counts from the ISA's shape table, and the
targets (sm_100a/f to sm_110a/f; shift on the arch-specific ones only)."""

import pytest

from tile_mlir import ptx

# PTX ISA 9.7.16.8.3: registers a thread per .num of each shape.
PER_NUM = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}
NUMS = (1, 2, 4, 8, 16, 32, 64, 128)


def signature(form):
    return [(op.name, op.role, op.space, op.type, op.count) for op in form.operands]


@pytest.mark.parametrize("shape", sorted(PER_NUM))
def test_load_and_store_register_counts(shape):
    for num in NUMS:
        registers = PER_NUM[shape] * num
        for op, packing in (("ld", "pack::16b"), ("st", "unpack::16b")):
            for pack in ("", f".{packing}"):
                spelling = f"tcgen05.{op}.sync.aligned.{shape}.x{num}{pack}.b32"
                if registers > 128:
                    with pytest.raises(ptx.PTXFormError, match=r"at most 128 a thread"):
                        ptx.parse(spelling)
                    continue
                form = ptx.parse(spelling)
                regs = next(o for o in form.operands if o.name == "r")
                assert (regs.count, regs.type, regs.role) == (registers, "b32", "dst" if op == "ld" else "src")
                names = [o.name for o in form.operands]
                split = ["immHalfSplitoff"] if shape == "16x32bx2" else []
                assert names == (["r", "taddr"] + split if op == "ld" else ["taddr"] + split + ["r"])
                taddr = form.operands[names.index("taddr")]
                assert (taddr.type, taddr.address) == ("b32", True)


def test_allocation_operands():
    imm, reg = ptx.overloads("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32")
    assert signature(imm)[0] == ("dst", "dst", "shared", "b32", 1)
    assert imm.operands[1].immediates == (32, 64, 128, 256, 512)
    assert signature(reg)[1] == ("nCols", "src", "reg", "u32", 1)
    generic = ptx.parse("tcgen05.alloc.cta_group::1.sync.aligned.b32")
    assert generic.operands[0].space == "generic" and generic.writes_memory and generic.warp_collective
    dealloc = ptx.parse("tcgen05.dealloc.cta_group::1.sync.aligned.b32")
    assert signature(dealloc) == [("taddr", "src", "reg", "b32", 1), ("nCols", "imm", "reg", "b32", 1)]
    assert ptx.parse("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned").operands == ()


def test_commit_copy_and_shift_operands():
    commit = ptx.parse("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64")
    assert signature(commit) == [("mbar", "dst", "shared::cluster", "b64", 1), ("ctaMask", "src", "reg", "b16", 1)]
    assert commit.reads_memory and commit.writes_memory
    assert [o.name for o in ptx.parse("tcgen05.commit.cta_group::2.mbarrier::arrive::one.b64").operands] == ["mbar"]
    copy = ptx.parse("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32")
    assert signature(copy) == [("taddr", "src", "reg", "b32", 1), ("s-desc", "src", "reg", "b64", 1)]
    assert copy.accesses_described_memory
    shift = ptx.parse("tcgen05.shift.cta_group::2.down")
    assert signature(shift) == [("taddr", "src", "reg", "b32", 1)] and shift.operands[0].address


@pytest.mark.parametrize("spelling, message", [
    ("tcgen05.cp.cta_group::1.32x128b", "needs the multicast .warpx4"),
    ("tcgen05.cp.cta_group::1.128x256b.warpx4", "takes no multicast, got .warpx4"),
    ("tcgen05.cp.cta_group::1.64x128b.warpx4", "multicasts with .warpx2::02_13 or .warpx2::01_23, not .warpx4"),
    ("tcgen05.alloc.sync.aligned.b32", "cta_group"),
    ("tcgen05.ld.sync.aligned.32x32b.x1.unpack::16b.b32", "unpack::16b"),
])
def test_refusals_name_the_rule(spelling, message):
    with pytest.raises(ptx.PTXFormError, match=message.replace(".", r"\.")):
        ptx.parse(spelling)


def test_targets():
    fence = "tcgen05.fence::after_thread_sync"
    for target in ("sm_100a", "sm_100f", "sm_103a", "sm_103f"):
        ptx.parse(fence, target=target)
    for target in ("sm_90a", "sm_100", "sm_120a", "sm_121a"):
        with pytest.raises(ptx.PTXFormError, match=r"requires sm_100a/f to sm_110a/f"):
            ptx.parse(fence, target=target)
    # ptxas 13.0 refuses tcgen05.shift on sm_100f.
    ptx.parse("tcgen05.shift.cta_group::1.down", target="sm_100a")
    with pytest.raises(ptx.PTXFormError, match=r"requires sm_100a to sm_110a \(arch-specific targets\)"):
        ptx.parse("tcgen05.shift.cta_group::1.down", target="sm_100f")
    form = ptx.parse(fence)
    assert (form.min_sm, form.max_sm, form.min_ptx, form.arch_specific) == (100, 110, 86, True)
    assert form.lowered and form.orders_memory and form.accesses_tensor_memory


def names(form):
    return [op.name for op in form.operands]


def test_mma_signatures():
    # PTX ISA 9.7.16.10.9: A through a descriptor or from tensor memory;
    # disable-output-lane optional (4 registers for cta_group::1, 8 for
    # ::2); scale-input-d, an immediate 0-15, for kind::f16 and tf32 only.
    head = ["d-tmem", "a-desc", "b-desc", "idesc"]
    f16 = ptx.overloads("tcgen05.mma.cta_group::2.kind::f16")
    assert len(f16) == 8
    assert names(f16[0]) == head + ["enable-input-d"]
    assert names(f16[1])[1] == "a-tmem" and f16[1].operands[1].address
    lanes = f16[2].operands[4]
    assert (lanes.name, lanes.count, lanes.type) == ("disable-output-lane", 8, "b32")
    scale = f16[-1].operands[-1]
    assert (scale.name, scale.role, scale.max_immediate) == ("scale-input-d", "imm", 15)
    assert ptx.overloads("tcgen05.mma.cta_group::1.kind::tf32")[2].operands[4].count == 4
    assert len(ptx.overloads("tcgen05.mma.cta_group::1.kind::f8f6f4")) == 4
    assert all("scale-input-d" not in names(f) for f in ptx.overloads("tcgen05.mma.cta_group::1.kind::i8"))
    # .ashift: A in tensor memory only.
    assert all(names(f)[1] == "a-tmem" for f in ptx.overloads("tcgen05.mma.cta_group::1.kind::f16.ashift"))
    block = ptx.overloads("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale")
    assert [names(f) for f in block] == [head + ["scale-A-tmem", "scale-B-tmem", "enable-input-d"],
                                         ["d-tmem", "a-tmem", "b-desc", "idesc", "scale-A-tmem", "scale-B-tmem",
                                          "enable-input-d"]]
    ws = ptx.overloads("tcgen05.mma.ws.cta_group::1.kind::i8.collector::b3::discard")
    assert [names(f)[-1] for f in ws] == ["enable-input-d"] * 2 + ["zero-column-mask-desc"] * 2
    assert all(f.accesses_described_memory and not f.warp_collective for f in ws)


@pytest.mark.parametrize("spelling, target, message", [
    # ptxas 13.0: kind::i8 on sm_100a (and sm_110a) only.
    ("tcgen05.mma.cta_group::1.kind::i8", "sm_103a", r"requires sm_100a \(an arch-specific target, and no later one\)"),
    ("tcgen05.mma.ws.cta_group::1.kind::i8", "sm_100f", r"requires sm_100a \(an arch-specific target, and no later one\)"),
    # scale_vec::NX on the arch-specific targets; blockN (or none) from PTX 8.8.
    ("tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X", "sm_100f",
     r"requires sm_100a to sm_110a \(arch-specific targets\) and PTX ISA 8\.6"),
])
def test_mma_floors(spelling, target, message):
    with pytest.raises(ptx.PTXFormError, match=message):
        ptx.parse(spelling, target=target)


def test_mma_ptx_versions():
    versions = {s: ptx.parse(s).min_ptx for s in (
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale",
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32",
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16")}
    assert list(versions.values()) == [86, 88, 88, 87, 88]
    ptx.parse("tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32", target="sm_100f")


@pytest.mark.parametrize("spelling, message", [
    ("tcgen05.mma.cta_group::1", "tcgen05.mma needs a kind"),
    ("tcgen05.mma.cta_group::1.kind::mxf4", r"needs \.block_scale"),
    ("tcgen05.mma.cta_group::1.kind::f16.block_scale", r"block_scale takes \.kind::mxf8f6f4"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale",
     "needs a scale_vectorsize: one of scale_vec::2X, scale_vec::4X, block16, block32"),
    ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::2X", "'scale_vec::2X' is not a qualifier"),
    ("tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::fill", "'collector::a::fill' is not a qualifier"),
    ("tcgen05.mma.ws.cta_group::2.kind::f16", "'cta_group::2' is not a qualifier"),
    ("tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill", "'collector::a::fill' is not a qualifier"),
])
def test_mma_refusals(spelling, message):
    with pytest.raises(ptx.PTXFormError, match=message):
        ptx.parse(spelling)


def test_sm100_descriptor_from_python():
    # buffer[...].matrix_descriptor(format="tcgen05"): the fields of wgmma's
    # (128-byte swizzle: stride 1024, layout 2 at bit 61) with the version
    # 1 at bit 46 (PTX ISA 9.7.16.4.1); the interpreter's has the same
    # fields beside its start address (in its own shared window).
    import numpy as np

    import tile_mlir
    from tile_mlir import script as T

    @T.function
    def described(Out: T.Tensor((1, 1), "uint64")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        s = T.alloc_shared((64, 64), "uint16", align=1024).swizzle("128B")
        T.cuda.tile.apply(T.ptx["st.global.b64"], Out[0:1, :], s[0:64, 0:16].matrix_descriptor(format="tcgen05"))

    ptx_text = tile_mlir.compile(described, target="sm_100a").ptx
    fields = (1 << 16) | (1024 // 16 << 32) | (1 << 46) | (2 << 61)
    assert str(fields) in ptx_text
    out = np.zeros((1, 1), np.uint64)
    tile_mlir.interpret(described, out, target="sm_100a")
    assert int(out[0, 0]) & ~0x3FFF == fields
