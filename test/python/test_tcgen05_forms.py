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
    assert not form.lowered and form.orders_memory
