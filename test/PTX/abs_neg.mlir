// The spec's abs/neg example: four abs.f32 then four neg.f32, in that
// order, each neg reading the matching abs.
// RUN: tile-ptx %S/../../examples/abs_neg.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: ld.global.f32 [[X0:%r[0-9]+]]
// CHECK: ld.global.f32 [[X1:%r[0-9]+]]
// CHECK: ld.global.f32 [[X2:%r[0-9]+]]
// CHECK: ld.global.f32 [[X3:%r[0-9]+]]
// CHECK: abs.f32 [[A0:%r[0-9]+]], [[X0]];
// CHECK: abs.f32 [[A1:%r[0-9]+]], [[X1]];
// CHECK: abs.f32 [[A2:%r[0-9]+]], [[X2]];
// CHECK: abs.f32 [[A3:%r[0-9]+]], [[X3]];
// CHECK-NOT: abs.f32
// CHECK: neg.f32 [[N0:%r[0-9]+]], [[A0]];
// CHECK: neg.f32 [[N1:%r[0-9]+]], [[A1]];
// CHECK: neg.f32 [[N2:%r[0-9]+]], [[A2]];
// CHECK: neg.f32 [[N3:%r[0-9]+]], [[A3]];
// CHECK-NOT: neg.f32
// CHECK: st.global.f32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[N0]];
// CHECK: st.global.f32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[N1]];
// CHECK: st.global.f32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[N2]];
// CHECK: st.global.f32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[N3]];
