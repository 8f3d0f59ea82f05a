// One instruction of each family of issue #17, lowered: the asm text and the
// constraint of each register follow the operand widths of the PTX ISA (a
// u32 count or shift amount, a pred 'b' register, mad.wide's 64-bit d and c).
// RUN: tile-opt %s --convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: func.func @families
// CHECK: llvm.inline_asm "min.relu.s32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "max.NaN.xorsign.abs.f32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "and.b32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "not.b64 $0, $1;", "=l,l"
// CHECK: llvm.inline_asm "cnot.b32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_f2_0; max.s32 %tile_f2_0, $2, -2147483648; shl.b64 $0, $1, %tile_f2_0; }", "=l,l,r"
// CHECK: llvm.inline_asm "shr.s32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "popc.b64 $0, $1;", "=r,l"
// CHECK: llvm.inline_asm "clz.b32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "brev.b32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "bfind.shiftamt.u32 $0, $1;", "=r,r"
// A function's parameters may be constants where it is inlined: bfe.s32
// reads its position through the opaque zero (finding 9), as shl.b64 reads
// its amount through the identity max.
// CHECK: llvm.inline_asm "{ .reg .b32 %tile_z2_0; mov.u32 %tile_z2_0, %laneid; shr.u32 %tile_z2_0, %tile_z2_0, 5; add.u32 %tile_z2_0, %tile_z2_0, $2; bfe.s32 $0, $1, %tile_z2_0, $3; }", "=r,r,r,r"
// CHECK: llvm.inline_asm "bfi.b64 $0, $1, $2, $3, $4;", "=l,l,l,r,r"
// CHECK: llvm.inline_asm "prmt.b32.f4e $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: llvm.inline_asm "div.rn.ftz.f32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "rem.u32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "sqrt.approx.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "rcp.rn.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "ex2.approx.f16 $0, $1;", "=h,h"
// CHECK: llvm.inline_asm "lg2.approx.ftz.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "sin.approx.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "copysign.f32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "testp.notanumber.f32 $0, $1;", "=b,r"
// CHECK: llvm.inline_asm "mad.wide.s32 $0, $1, $2, $3;", "=l,r,r,l"
// CHECK: llvm.inline_asm "fma.rn.relu.f16 $0, $1, $2, $3;", "=h,h,h,h"
// CHECK: llvm.inline_asm "setp.ne.and.s32 $0, $1, $2, $3;", "=b,r,r,b"
// CHECK: llvm.inline_asm "selp.f32 $0, $1, $2, $3;", "=r,r,r,b"
// CHECK: llvm.inline_asm "xor.pred $0, $1, $2;", "=b,b,b"
// CHECK: llvm.inline_asm "min.u16x2 $0, $1, $2;", "=r,r,r"
func.func @families(%a: i32, %b: i32, %c: i32, %f: f32, %g: f32, %h: f16, %w: i64, %p: i1) {
  %0 = tile.instr "min.relu.s32"(%a, %b) : (i32, i32) -> i32
  %1 = tile.instr "max.NaN.xorsign.abs.f32"(%f, %g) : (f32, f32) -> f32
  %2 = tile.instr "and.b32"(%a, %b) : (i32, i32) -> i32
  %3 = tile.instr "not.b64"(%w) : (i64) -> i64
  %4 = tile.instr "cnot.b32"(%a) : (i32) -> i32
  %5 = tile.instr "shl.b64"(%w, %a) : (i64, i32) -> i64
  %6 = tile.instr "shr.s32"(%a, %b) : (i32, i32) -> i32
  %7 = tile.instr "popc.b64"(%w) : (i64) -> i32
  %8 = tile.instr "clz.b32"(%a) : (i32) -> i32
  %9 = tile.instr "brev.b32"(%a) : (i32) -> i32
  %10 = tile.instr "bfind.shiftamt.u32"(%a) : (i32) -> i32
  %11 = tile.instr "bfe.s32"(%a, %b, %c) : (i32, i32, i32) -> i32
  %12 = tile.instr "bfi.b64"(%w, %w, %a, %b) : (i64, i64, i32, i32) -> i64
  %13 = tile.instr "prmt.b32.f4e"(%a, %b, %c) : (i32, i32, i32) -> i32
  %14 = tile.instr "div.rn.ftz.f32"(%f, %g) : (f32, f32) -> f32
  %15 = tile.instr "rem.u32"(%a, %b) : (i32, i32) -> i32
  %16 = tile.instr "sqrt.approx.f32"(%f) : (f32) -> f32
  %17 = tile.instr "rcp.rn.f32"(%f) : (f32) -> f32
  %18 = tile.instr "ex2.approx.f16"(%h) : (f16) -> f16
  %19 = tile.instr "lg2.approx.ftz.f32"(%f) : (f32) -> f32
  %20 = tile.instr "sin.approx.f32"(%f) : (f32) -> f32
  %21 = tile.instr "tanh.approx.f32"(%f) : (f32) -> f32
  %22 = tile.instr "copysign.f32"(%f, %g) : (f32, f32) -> f32
  %23 = tile.instr "testp.notanumber.f32"(%f) : (f32) -> i1
  %24 = tile.instr "mad.wide.s32"(%a, %b, %w) : (i32, i32, i64) -> i64
  %25 = tile.instr "fma.rn.relu.f16"(%h, %h, %h) : (f16, f16, f16) -> f16
  %26 = tile.instr "setp.ne.and.s32"(%a, %b, %p) : (i32, i32, i1) -> i1
  %27 = tile.instr "selp.f32"(%f, %g, %p) : (f32, f32, i1) -> f32
  %28 = tile.instr "xor.pred"(%p, %p) : (i1, i1) -> i1
  %29 = tile.instr "min.u16x2"(%a, %b) : (i32, i32) -> i32
  return
}
