// The spec's packed add, end to end: exactly 16 ld.global.b32, 8
// add.rn.f16x2 and 8 st.global.b32, and ptxas accepts the PTX.
// RUN: tile-ptx %S/../../examples/packed_add.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=LD < %t.ptx
// RUN: FileCheck %s --check-prefix=ADD < %t.ptx
// RUN: FileCheck %s --check-prefix=ST < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin

// LD-COUNT-16: ld.global.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}{{(\+[0-9]+)?}}];
// LD-NOT: ld.global

// ADD-COUNT-8: add.rn.f16x2 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// ADD-NOT: add.rn.f16x2

// ST-COUNT-8: st.global.b32 [%rd{{[0-9]+}}{{(\+[0-9]+)?}}], %r{{[0-9]+}};
// ST-NOT: st.global
