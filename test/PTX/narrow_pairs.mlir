// The spec's cvt example: cvt.rn.f16x2.f32 d[i], a[i][1], a[i][0]; the
// first source is the high half. The sources come from loads, which ptxas
// cannot fold into a conversion, so the PTX is exactly what was written:
// four loads, four conversions, four stores, no barrier.
// RUN: tile-ptx %S/../../examples/narrow_pairs.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: ld.global.v2.f32 {[[A00:%r[0-9]+]], [[A01:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: ld.global.v2.f32 {[[A10:%r[0-9]+]], [[A11:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: ld.global.v2.f32 {[[A20:%r[0-9]+]], [[A21:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: ld.global.v2.f32 {[[A30:%r[0-9]+]], [[A31:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: cvt.rn.f16x2.f32 [[D0:%r[0-9]+]], [[A01]], [[A00]];
// CHECK: cvt.rn.f16x2.f32 [[D1:%r[0-9]+]], [[A11]], [[A10]];
// CHECK: cvt.rn.f16x2.f32 [[D2:%r[0-9]+]], [[A21]], [[A20]];
// CHECK: cvt.rn.f16x2.f32 [[D3:%r[0-9]+]], [[A31]], [[A30]];
// CHECK-NOT: {{cvt|max}}.
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D0]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D1]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D2]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D3]];
