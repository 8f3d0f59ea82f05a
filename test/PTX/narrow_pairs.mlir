// The spec's cvt example: cvt.rn.f16x2.f32 d[i], a[i][1], a[i][0]; the
// first source is the high half.
// RUN: tile-ptx %S/../../examples/narrow_pairs.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// CHECK: ld.global.v2.f32 {[[A00:%r[0-9]+]], [[A01:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: ld.global.v2.f32 {[[A10:%r[0-9]+]], [[A11:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: ld.global.v2.f32 {[[A20:%r[0-9]+]], [[A21:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: ld.global.v2.f32 {[[A30:%r[0-9]+]], [[A31:%r[0-9]+]]}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// CHECK: max.s32 %tile_f1_0, [[A01]], -2147483648; max.s32 %tile_f2_0, [[A00]], -2147483648; cvt.rn.f16x2.f32 [[D0:%r[0-9]+]], %tile_f1_0, %tile_f2_0; }
// CHECK: max.s32 %tile_f1_0, [[A11]], -2147483648; max.s32 %tile_f2_0, [[A10]], -2147483648; cvt.rn.f16x2.f32 [[D1:%r[0-9]+]], %tile_f1_0, %tile_f2_0; }
// CHECK: max.s32 %tile_f1_0, [[A21]], -2147483648; max.s32 %tile_f2_0, [[A20]], -2147483648; cvt.rn.f16x2.f32 [[D2:%r[0-9]+]], %tile_f1_0, %tile_f2_0; }
// CHECK: max.s32 %tile_f1_0, [[A31]], -2147483648; max.s32 %tile_f2_0, [[A30]], -2147483648; cvt.rn.f16x2.f32 [[D3:%r[0-9]+]], %tile_f1_0, %tile_f2_0; }
// CHECK-NOT: cvt.
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D0]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D1]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D2]];
// CHECK: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], [[D3]];
