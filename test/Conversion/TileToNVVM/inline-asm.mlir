// RUN: tile-opt %s --convert-tile-to-nvvm -split-input-file | FileCheck %s

// Register arithmetic: outputs first, then inputs; no side effects.
// CHECK-LABEL: func.func @packed_add
// CHECK: llvm.inline_asm "add.rn.f16x2 $0, $1, $2;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
func.func @packed_add(%a: i32, %b: i32) -> i32 {
  %0 = tile.instr "add.rn.f16x2"(%a, %b) : (i32, i32) -> i32
  return %0 : i32
}

// -----

// Float carriers travel as their bits.
// CHECK-LABEL: func.func @float_carrier
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK: %[[ABS:.*]] = llvm.inline_asm "abs.f32 $0, $1;", "=r,r" %[[BITS]] : (i32) -> i32
// CHECK: llvm.bitcast %[[ABS]] : i32 to f32
func.func @float_carrier(%x: f32) -> f32 {
  %0 = tile.instr "abs.f32"(%x) : (f32) -> f32
  return %0 : f32
}

// -----

// 16-bit registers use h, 64-bit registers l.
// CHECK-LABEL: func.func @widths
// CHECK: llvm.inline_asm "neg.f16 $0, $1;", "=h,h"
// CHECK: llvm.inline_asm "mul.wide.s32 $0, $1, $2;", "=l,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i64
func.func @widths(%h: f16, %x: i32) -> (f16, i64) {
  %0 = tile.instr "neg.f16"(%h) : (f16) -> f16
  %1 = tile.instr "mul.wide.s32"(%x, %x) : (i32, i32) -> i64
  return %0, %1 : f16, i64
}

// -----

// Loads and stores are side-effecting and address memory through l.
// CHECK-LABEL: func.func @memory
// CHECK: llvm.inline_asm has_side_effects "ld.global.v2.f32 {$0, $1}, [$2];", "=r,=r,l" %{{.*}} : (i64) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.inline_asm has_side_effects "st.global.b32 [$1], $0;", "r,l" %{{.*}}, %{{.*}} : (i32, i64) -> !llvm.void
func.func @memory(%g: memref<4x2xf32, 1>, %o: memref<4x1xi32, 1>, %x: i32) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %v:2 = tile.instr "ld.global.v2.f32"() [%g[%c0, %c0] : memref<4x2xf32, 1>] : () -> (f32, f32)
  tile.instr "st.global.b32"(%x) [%o[%c0, %c0] : memref<4x1xi32, 1>] : (i32) -> ()
  return %v#0, %v#1 : f32, f32
}

// -----

// A predicate guards the instruction with @p; without keep the destination
// is undefined when it is false.
// CHECK-LABEL: func.func @predicated
// CHECK: llvm.inline_asm "@$2 neg.f32 $0, $1;", "=r,r,b" %{{.*}}, %{{.*}} : (i32, i1) -> i32
func.func @predicated(%x: f32, %p: i1) -> f32 {
  %0 = tile.instr "neg.f32"(%x) if %p : (f32) -> f32
  return %0 : f32
}

// -----

// keep ties each destination to its previous value.
// CHECK-LABEL: func.func @preserve
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; .reg .b32 %tile_f2_0; max.s32 %tile_f1_0, $1, -2147483648; max.s32 %tile_f2_0, $2, -2147483648; @$3 cvt.rn.f16x2.f32 $0, %tile_f1_0, %tile_f2_0; }", "=r,r,r,b,0" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i1, i32) -> i32
func.func @preserve(%a: f32, %b: f32, %p: i1, %old: i32) -> i32 {
  %0 = tile.instr "cvt.rn.f16x2.f32"(%a, %b) if %p keep(%old : i32) : (f32, f32) -> i32
  return %0 : i32
}

// -----

// A predicated store: the address comes before the predicate.
// CHECK-LABEL: func.func @predicated_store
// CHECK: llvm.inline_asm has_side_effects "@$2 st.global.f32 [$1], $0;", "r,l,b"
func.func @predicated_store(%o: memref<1x1xf32, 1>, %x: f32, %p: i1) {
  %c0 = arith.constant 0 : index
  tile.instr "st.global.f32"(%x) [%o[%c0, %c0] : memref<1x1xf32, 1>] if %p : (f32) -> ()
  return
}

// -----

// A static element is addressed as base register plus immediate offset;
// a dynamic index goes through address arithmetic.
// CHECK-LABEL: func.func @address_offsets
// CHECK: llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1+20];", "=r,l"
// CHECK: llvm.getelementptr
// CHECK: llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1];", "=r,l"
func.func @address_offsets(%g: memref<4x2xi32, strided<[2, 1], offset: 1>, 1>, %i: index) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = tile.instr "ld.global.b32"() [%g[%c2, %c0] : memref<4x2xi32, strided<[2, 1], offset: 1>, 1>] : () -> i32
  %1 = tile.instr "ld.global.b32"() [%g[%i, %c1] : memref<4x2xi32, strided<[2, 1], offset: 1>, 1>] : () -> i32
  return %0, %1 : i32, i32
}

// -----

// Offsets past 64 KiB use a base register per 64 KiB window, computed once
// after the memref's base address, and an immediate within the window.
// CHECK-LABEL: func.func @address_windows
// CHECK: %[[BASE:.*]] = llvm.ptrtoint
// CHECK: %[[C:.*]] = llvm.mlir.constant(65536 : i64) : i64
// CHECK: %[[W1:.*]] = llvm.add %[[BASE]], %[[C]] : i64
// CHECK: llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1+65532];", "=r,l" %[[BASE]]
// CHECK: llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1];", "=r,l" %[[W1]]
// CHECK: llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1+4];", "=r,l" %[[W1]]
func.func @address_windows(%g: memref<32768xi32, 1>) -> (i32, i32, i32) {
  %c16383 = arith.constant 16383 : index
  %c16384 = arith.constant 16384 : index
  %c16385 = arith.constant 16385 : index
  %0 = tile.instr "ld.global.b32"() [%g[%c16383] : memref<32768xi32, 1>] : () -> i32
  %1 = tile.instr "ld.global.b32"() [%g[%c16384] : memref<32768xi32, 1>] : () -> i32
  %2 = tile.instr "ld.global.b32"() [%g[%c16385] : memref<32768xi32, 1>] : () -> i32
  return %0, %1, %2 : i32, i32, i32
}

// -----

// A local memref's address is a local address (tile-local-allocas gives
// its alloca the form NVPTX addresses through %SPL), used as it is.
// CHECK-LABEL: func.func @local_memory
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<5> to i64
// CHECK: llvm.inline_asm has_side_effects "ld.local.b32 $0, [$1+4];", "=r,l" %[[ADDR]]
func.func @local_memory(%l: memref<2x1xi32, 5>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = tile.instr "ld.local.b32"() [%l[%c1, %c0] : memref<2x1xi32, 5>] : () -> i32
  return %0 : i32
}

// -----

// mov packs or unpacks registers with braces; `overload` names the form
// among mov.b64's signatures (the first register is the lowest bits).
// CHECK-LABEL: func.func @mov_pack_unpack
// CHECK: llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i64
// CHECK: llvm.inline_asm "mov.b64 {$0, $1, $2, $3}, $4;", "=h,=h,=h,=h,l" %{{.*}} : (i64) -> !llvm.struct<(i16, i16, i16, i16)>
func.func @mov_pack_unpack(%lo: i32, %hi: i32) -> (i16, i16, i16, i16) {
  %w = tile.instr "mov.b64"(%lo, %hi) {overload = 1 : i32} : (i32, i32) -> i64
  %q:4 = tile.instr "mov.b64"(%w) {overload = 4 : i32} : (i64) -> (i16, i16, i16, i16)
  return %q#0, %q#1, %q#2, %q#3 : i16, i16, i16, i16
}

// -----

// Signed and unsigned carriers (the Python front end's uint32 tiles) cross
// to signless LLVM integers and back through casts.
// CHECK-LABEL: func.func @unsigned_carrier
// CHECK-SAME: (%[[X:.*]]: ui32)
// CHECK: %[[IN:.*]] = builtin.unrealized_conversion_cast %[[X]] : ui32 to i32
// CHECK: %[[OUT:.*]] = llvm.inline_asm "neg.s32 $0, $1;", "=r,r" %[[IN]] : (i32) -> i32
// CHECK: %[[BACK:.*]] = builtin.unrealized_conversion_cast %[[OUT]] : i32 to ui32
// CHECK: return %[[BACK]] : ui32
func.func @unsigned_carrier(%x: ui32) -> ui32 {
  %0 = tile.instr "neg.s32"(%x) : (ui32) -> ui32
  return %0 : ui32
}

// -----

// A cvt reads its source through an identity max, so ptxas cannot fuse it
// with the instruction that produced it (the float-to-integer cvt before).
// CHECK-LABEL: func.func @integer_cvt_source
// CHECK: llvm.inline_asm "{ .reg .b64 %tile_f1_0; max.s64 %tile_f1_0, $1, -9223372036854775808; cvt.s32.s64 $0, %tile_f1_0; }", "=r,l" %{{.*}} : (i64) -> i32
func.func @integer_cvt_source(%a: i64) -> i32 {
  %0 = tile.instr "cvt.s32.s64"(%a) : (i64) -> i32
  return %0 : i32
}

// -----

// An 8-bit source sits in a 16-bit register; the guard covers the cvt only.
// CHECK-LABEL: func.func @integer_cvt_byte_source
// CHECK: llvm.inline_asm "{ .reg .b16 %tile_f1_0; max.s16 %tile_f1_0, $1, -32768; @$2 cvt.s32.s8 $0, %tile_f1_0; }", "=r,h,b,0"
func.func @integer_cvt_byte_source(%a: i8, %p: i1, %old: i32) -> i32 {
  %0 = tile.instr "cvt.s32.s8"(%a) if %p keep(%old : i32) : (i8) -> i32
  return %0 : i32
}

// -----

// So does a float one: ptxas folded neg.ftz into a following cvt wrongly.
// CHECK-LABEL: func.func @float_to_integer_cvt
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.rzi.u32.f32 $0, %tile_f1_0; }", "=r,r" %{{.*}} : (i32) -> i32
func.func @float_to_integer_cvt(%a: f32) -> i32 {
  %0 = tile.instr "cvt.rzi.u32.f32"(%a) : (f32) -> i32
  return %0 : i32
}

// -----

// fma reads three registers; it has no fusion barrier (not a cvt).
// CHECK-LABEL: func.func @fma
// CHECK: llvm.inline_asm "fma.rn.ftz.f32 $0, $1, $2, $3;", "=r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32) -> i32
func.func @fma(%a: f32, %b: f32, %c: f32) -> f32 {
  %0 = tile.instr "fma.rn.ftz.f32"(%a, %b, %c) : (f32, f32, f32) -> f32
  return %0 : f32
}

// -----

// An rw operand is an output with its input tied to it ("0"), written at
// the destination's position and read again where PTX reads the addend.
// CHECK-LABEL: func.func @fma_tied
// CHECK-SAME: (%[[ACC:.*]]: f32, %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-DAG: %[[ACCR:.*]] = llvm.bitcast %[[ACC]] : f32 to i32
// CHECK-DAG: %[[AR:.*]] = llvm.bitcast %[[A]] : f32 to i32
// CHECK-DAG: %[[BR:.*]] = llvm.bitcast %[[B]] : f32 to i32
// CHECK: llvm.inline_asm "fma.rn.f32 $0, $1, $2, $0;", "=r,r,r,0" %[[AR]], %[[BR]], %[[ACCR]] : (i32, i32, i32) -> i32
func.func @fma_tied(%acc: f32, %a: f32, %b: f32) -> f32 {
  %0 = tile.instr "fma.rn.f32"(%acc, %a, %b) {overload = 1 : i32} : (f32, f32, f32) -> f32
  return %0 : f32
}

// -----

// A predicated rw instruction keeps its accumulator through the tie; keep
// preserves dst registers only, so there is none to pass.
// CHECK-LABEL: func.func @fma_tied_predicated
// CHECK: llvm.inline_asm "@$3 fma.rn.f32 $0, $1, $2, $0;", "=r,r,r,b,0"
func.func @fma_tied_predicated(%acc: f32, %a: f32, %b: f32, %p: i1) -> f32 {
  %0 = tile.instr "fma.rn.f32"(%acc, %a, %b) if %p {overload = 1 : i32} : (f32, f32, f32) -> f32
  return %0 : f32
}

// -----

// Predicates are i1 values in "b" registers, written and read; setp's
// pair is written p|q.
// CHECK-LABEL: func.func @predicates
// CHECK: %[[P:.*]] = llvm.inline_asm "setp.lt.s32 $0, $1, $2;", "=b,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i1
// CHECK: llvm.inline_asm "setp.lt.f16x2 $0|$1, $2, $3;", "=b,=b,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> !llvm.struct<(i1, i1)>
// CHECK: llvm.inline_asm "and.pred $0, $1, $2;", "=b,b,b" %[[P]], %[[P]] : (i1, i1) -> i1
// CHECK: llvm.inline_asm "selp.b32 $0, $1, $2, $3;", "=r,r,r,b" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i1) -> i32
func.func @predicates(%a: i32, %b: i32) -> i32 {
  %p = tile.instr "setp.lt.s32"(%a, %b) : (i32, i32) -> i1
  %pq:2 = tile.instr "setp.lt.f16x2"(%a, %b) : (i32, i32) -> (i1, i1)
  %both = tile.instr "and.pred"(%p, %p) : (i1, i1) -> i1
  %s = tile.instr "selp.b32"(%a, %b, %both) : (i32, i32, i1) -> i32
  return %s : i32
}

// -----

// A 64-bit shift reads its amount through an identity max: ptxas (CUDA
// 13.0) turned neg.f32 then shr.b64 into F2I.U64.TRUNC of the negated float
// (measured on an H200), at -O0 as at -O3.
// CHECK-LABEL: func.func @wide_shift_amount
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f2_0; max.s32 %tile_f2_0, $2, -2147483648; shr.b64 $0, $1, %tile_f2_0; }", "=l,l,r" %{{.*}}, %{{.*}} : (i64, i32) -> i64
func.func @wide_shift_amount(%a: i64, %n: i32) -> i64 {
  %0 = tile.instr "shr.b64"(%a, %n) : (i64, i32) -> i64
  return %0 : i64
}

// -----

// A 32-bit shift does not: ptxas computes it right after neg.f32.
// CHECK-LABEL: func.func @narrow_shift_amount
// CHECK: llvm.inline_asm "shl.b32 $0, $1, $2;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
func.func @narrow_shift_amount(%a: i32, %n: i32) -> i32 {
  %0 = tile.instr "shl.b32"(%a, %n) : (i32, i32) -> i32
  return %0 : i32
}

// -----

// abs of packed halves reads its source through an identity max: ptxas
// (CUDA 13.0) -O3 dropped abs.f16x2 after an f32 result it knew was not
// negative (mul.rp.sat.f32), so the low half kept its sign.
// CHECK-LABEL: func.func @packed_half_abs
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; abs.ftz.f16x2 $0, %tile_f1_0; }", "=r,r" %{{.*}} : (i32) -> i32
func.func @packed_half_abs(%a: i32) -> i32 {
  %0 = tile.instr "abs.ftz.f16x2"(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// A scalar f16 abs does not.
// CHECK-LABEL: func.func @half_abs
// CHECK: llvm.inline_asm "abs.f16 $0, $1;", "=h,h" %{{.*}} : (i16) -> i16
func.func @half_abs(%a: i16) -> i16 {
  %0 = tile.instr "abs.f16"(%a) : (i16) -> i16
  return %0 : i16
}

// -----

// An integer .sat result leaves through a split into 16-bit pieces and a join:
// ptxas (CUDA 13.0) -O3 took the integer saturation for the float .sat and
// dropped a later min.f32 (measured on an H200), identity max and all.
// CHECK-LABEL: func.func @saturated_add
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_s0_0; .reg .b16 %tile_s0_0p0, %tile_s0_0p1; add.sat.s32 %tile_s0_0, $1, $2; mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b32 $0, {%tile_s0_0p0, %tile_s0_0p1}; }", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
func.func @saturated_add(%a: i32, %b: i32) -> i32 {
  %0 = tile.instr "add.sat.s32"(%a, %b) : (i32, i32) -> i32
  return %0 : i32
}

// -----

// The same add without .sat writes its destination directly.
// CHECK-LABEL: func.func @wrapping_add
// CHECK: llvm.inline_asm "add.s32 $0, $1, $2;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
func.func @wrapping_add(%a: i32, %b: i32) -> i32 {
  %0 = tile.instr "add.s32"(%a, %b) : (i32, i32) -> i32
  return %0 : i32
}

// -----

// A saturating integer cvt passes both barriers: its source through the
// identity max, its 64-bit result through a split into four 16-bit pieces
// (32-bit halves did not stop ptxas dropping a min.f64, measured).
// CHECK-LABEL: func.func @saturated_cvt_s64
// CHECK: llvm.inline_asm "{ .reg .b64 %tile_s0_0; .reg .b16 %tile_s0_0p0, %tile_s0_0p1, %tile_s0_0p2, %tile_s0_0p3; .reg .b64 %tile_f1_0; max.s64 %tile_f1_0, $1, -9223372036854775808; cvt.sat.s64.u64 %tile_s0_0, %tile_f1_0; mov.b64 {%tile_s0_0p0, %tile_s0_0p1, %tile_s0_0p2, %tile_s0_0p3}, %tile_s0_0; mov.b64 $0, {%tile_s0_0p0, %tile_s0_0p1, %tile_s0_0p2, %tile_s0_0p3}; }", "=l,l" %{{.*}} : (i64) -> i64
func.func @saturated_cvt_s64(%a: i64) -> i64 {
  %0 = tile.instr "cvt.sat.s64.u64"(%a) : (i64) -> i64
  return %0 : i64
}

// -----

// A 16-bit result splits into bytes.
// CHECK-LABEL: func.func @saturated_cvt_s16
// CHECK: llvm.inline_asm "{ .reg .b16 %tile_s0_0; .reg .b8 %tile_s0_0p0, %tile_s0_0p1; .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.sat.s16.s32 %tile_s0_0, %tile_f1_0; mov.b16 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b16 $0, {%tile_s0_0p0, %tile_s0_0p1}; }", "=h,r" %{{.*}} : (i32) -> i16
func.func @saturated_cvt_s16(%a: i32) -> i16 {
  %0 = tile.instr "cvt.sat.s16.s32"(%a) : (i32) -> i16
  return %0 : i16
}

// -----

// A float .sat result is in [0.0, 1.0] indeed: no barrier.
// CHECK-LABEL: func.func @saturated_float_cvt
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f1_0; max.s32 %tile_f1_0, $1, -2147483648; cvt.sat.f32.f32 $0, %tile_f1_0; }", "=r,r" %{{.*}} : (i32) -> i32
func.func @saturated_float_cvt(%a: f32) -> f32 {
  %0 = tile.instr "cvt.sat.f32.f32"(%a) : (f32) -> f32
  return %0 : f32
}

// -----

// Under a predicate the moves are guarded too, so an inactive lane keeps
// its destination.
// CHECK-LABEL: func.func @predicated_saturated_mad
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_s0_0; .reg .b16 %tile_s0_0p0, %tile_s0_0p1; @$4 mad.hi.sat.s32 %tile_s0_0, $1, $2, $3; @$4 mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; @$4 mov.b32 $0, {%tile_s0_0p0, %tile_s0_0p1}; }", "=r,r,r,r,b,0" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i1, i32) -> i32
func.func @predicated_saturated_mad(%a: i32, %b: i32, %c: i32, %p: i1, %d: i32) -> i32 {
  %0 = tile.instr "mad.hi.sat.s32"(%a, %b, %c) if %p keep(%d : i32) : (i32, i32, i32) -> i32
  return %0 : i32
}

// -----

// cvt.pack always saturates: its packed u32 leaves through the split too.
// CHECK-LABEL: func.func @saturated_pack
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_s0_0; .reg .b16 %tile_s0_0p0, %tile_s0_0p1; .reg .b32 %tile_f1_0; .reg .b32 %tile_f2_0; max.s32 %tile_f1_0, $1, -2147483648; max.s32 %tile_f2_0, $2, -2147483648; cvt.pack.sat.s16.s32 %tile_s0_0, %tile_f1_0, %tile_f2_0; mov.b32 {%tile_s0_0p0, %tile_s0_0p1}, %tile_s0_0; mov.b32 $0, {%tile_s0_0p0, %tile_s0_0p1}; }", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
func.func @saturated_pack(%a: i32, %b: i32) -> i32 {
  %0 = tile.instr "cvt.pack.sat.s16.s32"(%a, %b) : (i32, i32) -> i32
  return %0 : i32
}

// -----

// ptxas (CUDA 13.0) ignores the guard of a testp (docs/difftest.md,
// finding 8): one that keeps its destination tests into a scoped register
// that a guarded mov.pred moves to it. Without preserve_dst the
// destination is undefined where the guard is false, so the guard stays.
// CHECK-LABEL: func.func @kept_testp
// CHECK: llvm.inline_asm "{ .reg .pred %tile_g0_0; testp.notanumber.f32 %tile_g0_0, $1; @$2 mov.pred $0, %tile_g0_0; }", "=b,r,b,0"
// CHECK: llvm.inline_asm "@$2 testp.notanumber.f32 $0, $1;", "=b,r,b"
func.func @kept_testp(%a: f32, %g: i1, %old: i1) -> (i1, i1) {
  %p = tile.instr "testp.notanumber.f32"(%a) if %g keep(%old : i1) : (f32) -> i1
  %q = tile.instr "testp.notanumber.f32"(%a) if %g : (f32) -> i1
  return %p, %q : i1, i1
}
