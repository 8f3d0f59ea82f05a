// The integer families of issue #58 (item 0) and rsqrt, lowered: one
// instruction each, as written, with each register's constraint from the
// form's operand widths (sad.u16's 16-bit 'h', slct's 64-bit data and f32
// selector, dp4a's and fns's 32-bit words).
// RUN: tile-opt %s --convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: func.func @integer_families
// CHECK: llvm.inline_asm "mul24.hi.u32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "mad24.hi.sat.s32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: llvm.inline_asm "sad.u16 $0, $1, $2, $3;", "=h,h,h,h"
// CHECK: llvm.inline_asm "sad.s64 $0, $1, $2, $3;", "=l,l,l,l"
// CHECK: llvm.inline_asm "dp4a.s32.u32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: llvm.inline_asm "dp2a.lo.u32.u32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: llvm.inline_asm "bmsk.wrap.b32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "szext.clamp.s32 $0, $1, $2;", "=r,r,r"
// CHECK: llvm.inline_asm "fns.b32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: llvm.inline_asm "shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: llvm.inline_asm "slct.ftz.u64.f32 $0, $1, $2, $3;", "=l,l,l,r"
// CHECK: llvm.inline_asm "rsqrt.approx.ftz.f64 $0, $1;", "=l,l"
func.func @integer_families(%a: i32, %b: i32, %c: i32, %f: f32, %h: i16, %w: i64, %d: f64) {
  %0 = tile.instr "mul24.hi.u32"(%a, %b) : (i32, i32) -> i32
  %1 = tile.instr "mad24.hi.sat.s32"(%a, %b, %c) : (i32, i32, i32) -> i32
  %2 = tile.instr "sad.u16"(%h, %h, %h) : (i16, i16, i16) -> i16
  %3 = tile.instr "sad.s64"(%w, %w, %w) : (i64, i64, i64) -> i64
  %4 = tile.instr "dp4a.s32.u32"(%a, %b, %c) : (i32, i32, i32) -> i32
  %5 = tile.instr "dp2a.lo.u32.u32"(%a, %b, %c) : (i32, i32, i32) -> i32
  %6 = tile.instr "bmsk.wrap.b32"(%a, %b) : (i32, i32) -> i32
  %7 = tile.instr "szext.clamp.s32"(%a, %b) : (i32, i32) -> i32
  %8 = tile.instr "fns.b32"(%a, %b, %c) : (i32, i32, i32) -> i32
  %9 = tile.instr "shf.l.wrap.b32"(%a, %b, %c) : (i32, i32, i32) -> i32
  %10 = tile.instr "slct.ftz.u64.f32"(%w, %w, %f) : (i64, i64, f32) -> i64
  %11 = tile.instr "rsqrt.approx.ftz.f64"(%d) : (f64) -> f64
  return
}
