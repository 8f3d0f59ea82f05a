// The record interpreter, one behaviour per kind of rule (lib/PTX/
// FormRecords.h), through python -m tile_mlir.parse_form. The spellings'
// verdicts are ptxas's (tools/ptxas_diff); this pins the messages and the
// forms the interpreter builds.
// RUN: python -m tile_mlir.parse_form --target sm_100a add.sat.cc.s32 cvt.rn.relu.f16.f64 add.cc.u16 mul.wide.s64 mul.s32.lo cp.async.ca.global.shared ld.mmio.global.b32 min.xorsign.f32 cvt.pack.u8.s32.b32 ld.global.v8.b64 cvt.rm.ftz.f16.f32 bfe.u64 | FileCheck %s --check-prefix=RULE
// RUN: python -m tile_mlir.parse_form --target sm_90 setp.s32 add.rn.rz.f32 add.foo.f32 add.sat.sat.f32 cvt.sat.s32.s8 | FileCheck %s --check-prefix=SLOT
// RUN: python -m tile_mlir.parse_form --target sm_90 add.bf16 min.NaN.f32 min.abs.f32 st.param.b32 cvt.rs.f16x2.f32 | FileCheck %s --check-prefix=FLOOR
// RUN: python -m tile_mlir.parse_form --target sm_100a min.f32 min.abs.f32 fma.rn.f32 lop3.b32 setp.lt.s32 setp.lt.and.f16x2 cp.async.cg.shared.global | FileCheck %s --check-prefix=SIGNATURE

// Excludes, Chosen, NarrowerThan, AtLeast, SlotAfterType, Before,
// RequiresAny, Requires, Absent, Hook, Caveat (by a qualifier, by a type):
// RULE: add.sat.cc.s32: error: 'sat' cannot be combined with 'cc' in add.s32
// RULE: cvt.rn.relu.f16.f64: error: 'relu' is only available for cvt.f16.f32 and cvt.bf16.f32
// RULE: add.cc.u16: error: 'cc' is not available for add.u16: carry-out needs a 32- or 64-bit type
// RULE: mul.wide.s64: error: 'wide' is not available for mul.s64: wide multiplies 16- and 32-bit operands only
// RULE: mul.s32.lo: error: 'lo' must come before the type in mul.s32: ptxas takes mul's mode first (mul.lo.s32)
// RULE: cp.async.ca.global.shared: error: 'global' must follow the destination space in cp.async: cp.async copies from global to shared memory (cp.async.ca.shared.global)
// RULE: ld.mmio.global.b32: error: 'mmio' needs relaxed.sys in ld.b32
// RULE: min.xorsign.f32: error: 'xorsign' needs 'abs' in min.f32: the qualifier is xorsign.abs
// RULE: cvt.pack.u8.s32.b32: error: cvt.pack needs 'sat': its conversions always saturate
// RULE: ld.global.v8.b64: error: 'v8' is not available for ld.b64: a vector access moves at most 128 bits (256 bits with global v8 of 32-bit or v4 of 64-bit elements)
// RULE: cvt.rm.ftz.f16.f32#0: cvt (dst:dst:f16, src:src:f32) any target caveat: ptxas (CUDA 13.0) assembles cvt.f16.f32 with rm or rp without its .ftz
// RULE: bfe.u64#0: bfe (dst:dst:u64, a:src:u64, pos:src:u32, len:src:u32) any target caveat: ptxas (CUDA 13.0) computes 64-bit bfe with the whole 32-bit position and length

// Slots: a required one, one token per slot, an unknown qualifier, a
// repeatable one, a slot that exists only for some types (cvt's integer
// .sat, an escape hook):
// SLOT: setp.s32: error: setp.s32 needs a comparison: one of eq, ne, lt, le, gt, ge
// SLOT: add.rn.rz.f32: error: 'rz' cannot follow 'rn' in add.f32: one rounding mode of rn, rz, rm, rp
// SLOT: add.foo.f32: error: 'foo' is not a qualifier of add.f32: expected rounding mode (rn, rz, rm, rp), ftz, sat
// SLOT: add.sat.sat.f32#0: add (dst:dst:f32, lhs:src:f32, rhs:src:f32) any target
// SLOT: cvt.sat.s32.s8: error: 'sat' is not a qualifier of cvt.s32.s8, which takes none

// Floors by type, by qualifier, of a variant that extends another, with
// a highest target, arch-only:
// FLOOR: add.bf16#0: add (dst:dst:bf16, lhs:src:bf16, rhs:src:bf16) sm_90 ptx 7.8
// FLOOR: min.NaN.f32#0: min (dst:dst:f32, lhs:src:f32, rhs:src:f32) sm_80 ptx 7.0
// FLOOR: min.abs.f32: error: min.abs.f32 requires sm_100 or newer and PTX ISA 8.8, but the target is sm_90
// FLOOR: st.param.b32: error: st.param.b32 requires a target up to sm_89, but the target is sm_90
// FLOOR: cvt.rs.f16x2.f32: error: cvt.rs.f16x2.f32 requires sm_100a to sm_103a (arch-specific targets) and PTX ISA 8.7, but the target is sm_90

// Signatures: a variant that extends the previous one (min.f32's three
// inputs), one only the extension takes (min.abs.f32), an rw accumulator
// read again at position 3, an immediate range, a p|q pair, a boolean
// operation's extra predicate, memory operands sized by an immediate:
// SIGNATURE: min.f32#0: min (dst:dst:f32, lhs:src:f32, rhs:src:f32) any target
// SIGNATURE-NEXT: min.f32#1: min (dst:dst:f32, a:src:f32, b:src:f32, c:src:f32) sm_100 ptx 8.8
// SIGNATURE-NEXT: min.abs.f32#0: min (dst:dst:f32, a:src:f32, b:src:f32, c:src:f32) sm_100 ptx 8.8
// SIGNATURE-NEXT: fma.rn.f32#0: fma (dst:dst:f32, a:src:f32, b:src:f32, c:src:f32) any target
// SIGNATURE-NEXT: fma.rn.f32#1: fma (acc:rw:f32@3, a:src:f32, b:src:f32) any target
// SIGNATURE-NEXT: lop3.b32#0: lop3 (dst:dst:b32, a:src:b32, b:src:b32, c:src:b32, lut:imm:b32=0..255) sm_50 ptx 4.3
// SIGNATURE-NEXT: setp.lt.s32#0: setp (p:dst:pred, a:src:s32, b:src:s32) any target
// SIGNATURE-NEXT: setp.lt.s32#1: setp (pq:dst:predx2|, a:src:s32, b:src:s32) any target
// SIGNATURE-NEXT: setp.lt.and.f16x2#0: setp (pq:dst:predx2|, a:src:f16x2, b:src:f16x2, c:src:pred) sm_53 ptx 4.2
// SIGNATURE-NEXT: cp.async.cg.shared.global#0: cp.async (dst:dst:b8@shared, src:src:b8@global, cp-size:imm:u32=16) sm_80 ptx 7.0
