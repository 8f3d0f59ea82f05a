// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A TMA copies the box its tensor map states (tile.tensor_map): each rule
// cuTensorMapEncodeTiled or the copy sets that the types show, and each
// disagreement between the box and the shared tile, is a located error.
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @not_a_parameter(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %p = llvm.mlir.zero : !llvm.ptr
    // expected-error @+1 {{'tile.tensor_map' op the tensor map must be a parameter of the kernel: the runtime encodes it on the host and passes its 128 bytes by value}}
    %m = tile.tensor_map %p for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @shared_tensor(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op a tensor map describes a global tensor, got 'memref<64x64xbf16, 3>'}}
    %m = tile.tensor_map %map for %buf {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<64x64xbf16, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_rank(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op the box has one extent per axis of the tensor, 1 to 5 of them: the tensor has rank 2, the box 3}}
    %m = tile.tensor_map %map for %A {box = array<i64: 2, 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_extent(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op box extent 512 of axis 0 is not 1 to 256}}
    %m = tile.tensor_map %map for %A {box = array<i64: 512, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @inner_bytes(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op the innermost box extent must span a multiple of 16 bytes, got 4 x 2 bytes}}
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 4>, swizzle = 0 : i64} : memref<128x256xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @swizzle_bytes(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op swizzle is the bytes of the swizzle span: 0, 32, 64 or 128, got 96}}
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 96 : i64} : memref<128x256xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @swizzle_span(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op a swizzled box's innermost extent spans the swizzle's 128 bytes, got 64}}
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 32>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @global_stride(%A: memref<64x12xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // expected-error @+1 {{'tile.tensor_map' op the tensor's stride along axis 0 is 24 bytes; a tensor map needs multiples of 16}}
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 8>, swizzle = 0 : i64} : memref<64x12xbf16, 1>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @map_from_elsewhere(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    %m = arith.constant 0 : i64
    // expected-error @+1 {{'tile.apply' op dstMem: the box is the tensor map's: tensorMap must come from tile.tensor_map, which states it}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bar)
        : memref<64x64xbf16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @prefetch_param(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    // expected-error @+1 {{'tile.apply' op 'prefetch.param.tensormap' is a PTX form the table knows, but tile-mlir does not lower this form of the prefetch.tensormap family yet}}
    tile.apply "prefetch.param.tensormap"(%m) : i64
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_shape(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %t = memref.subview %s[0, 0] [32, 64] [1, 1] : memref<64x64xbf16, 3> to memref<32x64xbf16, strided<[64, 1]>, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the tile is the tensor map's box, (64, 64), got 'memref<32x64xbf16, strided<[64, 1]>, 3>'}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%t, %m, %coords, %bar)
        : memref<32x64xbf16, strided<[64, 1]>, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_element(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %v = tile.view %buf : memref<64x64xbf16, 3> to memref<64x64xi16, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the tensor map swizzles 128-byte spans: the tile must be a view of tile.swizzle with bits = 3, base = 4 and shift = 3}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%v, %m, %coords, %bar)
        : memref<64x64xi16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_width(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %f = memref.alloca() : memref<64x64xf32, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the box holds 16-bit elements of 'memref<128x256xbf16, 1>', got 'f32'}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%f, %m, %coords, %bar)
        : memref<64x64xf32, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @unswizzled_tile(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the tensor map swizzles 128-byte spans: the tile must be a view of tile.swizzle with bits = 3, base = 4 and shift = 3}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%buf, %m, %coords, %bar)
        : memref<64x64xbf16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @swizzled_tile(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 0 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the tensor map does not swizzle, but the tile is a view of tile.swizzle}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bar)
        : memref<64x64xbf16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_offset(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 32, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %t = memref.subview %s[4, 0] [32, 64] [1, 1] : memref<64x64xbf16, 3> to memref<32x64xbf16, strided<[64, 1], offset: 256>, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the box must start on a multiple of 1024 bytes of its buffer: it starts 512 bytes past one}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%t, %m, %coords, %bar)
        : memref<32x64xbf16, strided<[64, 1], offset: 256>, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_alignment(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 128 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the box's buffer must be aligned to 1024 bytes: got an alignment of 128 (a static shared buffer with align=1024)}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bar)
        : memref<64x64xbf16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_strides(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 32, 64>, swizzle = 0 : i64} : memref<128x256xbf16, 1>
    %t = memref.subview %buf[0, 0] [32, 64] [2, 1] : memref<64x64xbf16, 3> to memref<32x64xbf16, strided<[128, 1]>, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: the box is written row-major and contiguous, got 'memref<32x64xbf16, strided<[128, 1]>, 3>'}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%t, %m, %coords, %bar)
        : memref<32x64xbf16, strided<[128, 1]>, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @box_dims(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %coords = memref.alloca() : memref<3xi32, 5>
    // expected-error @+1 {{'tile.apply' op dstMem: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes copies a 3-d box, but the tensor map's box has rank 2}}
    tile.apply "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bar)
        : memref<64x64xbf16, 3>, i64, memref<3xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @repeated(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %coords = memref.alloca() : memref<2x2xi32, 5>
    %bars = memref.alloca() : memref<2x1xi64, 3>
    // expected-error @+1 {{'tile.apply' op cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes copies one box and is not repeated: its register operands have no repeat axes, got repeat shape (2)}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bars)
        : memref<64x64xbf16, 3>, i64, memref<2x2xi32, 5>, memref<2x1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_80">] {
  gpu.func @floor(%A: memref<128x256xbf16, 1>, %map: !llvm.ptr) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}, %bar : memref<1xi64, 3> {llvm.align = 8 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %m = tile.tensor_map %map for %A {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<128x256xbf16, 1>
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %coords = memref.alloca() : memref<2xi32, 5>
    // expected-error @+1 {{'tile.apply' op cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes requires sm_90 or newer and PTX ISA 8.0}}
    tile.apply "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %m, %coords, %bar)
        : memref<64x64xbf16, 3>, i64, memref<2xi32, 5>, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @prefetch_elsewhere() kernel {
    %m = arith.constant 0 : i64
    // expected-error @+1 {{'tile.apply' op tensorMap: expected the address of a tensor map, which tile.tensor_map gives}}
    tile.apply "prefetch.tensormap"(%m) : i64
    gpu.return
  }
}

// -----

// cp.async.bulk (not a tensor's): the tiles hold the immediate size, a
// multiple of 16 bytes, contiguous from 16-byte aligned addresses.
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @eight(%g: memref<4xbf16, 1>) workgroup(%s : memref<4xbf16, 3>, %bar : memref<1xi64, 3>) kernel {
    %size = arith.constant 8 : i32
    // expected-error @+1 {{'tile.apply' op size: immediate 8 is not legal for cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: expected a multiple of 16 from 0 to 1048560}}
    tile.apply "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %g, %size, %bar) : memref<4xbf16, 3>, memref<4xbf16, 1>, i32, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @mismatch(%g: memref<64xbf16, 1>) workgroup(%s : memref<64xbf16, 3>, %bar : memref<1xi64, 3>) kernel {
    %size = arith.constant 64 : i32
    // expected-error @+1 {{'tile.apply' op dstMem: the final axis holds the size bytes of one copy: 64, got (64) of 'bf16'}}
    tile.apply "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"(%s, %g, %size, %bar) : memref<64xbf16, 3>, memref<64xbf16, 1>, i32, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @offset(%g: memref<64xbf16, 1>) workgroup(%s : memref<72xbf16, 3>, %bar : memref<1xi64, 3>) kernel {
    %size = arith.constant 128 : i32
    %v = memref.subview %s[4] [64] [1] : memref<72xbf16, 3> to memref<64xbf16, strided<[1], offset: 4>, 3>
    // expected-error @+1 {{'tile.apply' op dstMem: a bulk copy of 16-bit elements must be aligned to 16 bytes, but layout strided<[1], offset: 4> places an access at an element offset that is not a multiple of 8}}
    tile.apply "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"(%v, %g, %size, %bar) : memref<64xbf16, strided<[1], offset: 4>, 3>, memref<64xbf16, 1>, i32, memref<1xi64, 3>
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @runtime(%g: memref<64xbf16, 1>, %size: i32) workgroup(%s : memref<64xbf16, 3>, %bar : memref<1xi64, 3>) kernel {
    // expected-error @+1 {{'tile.apply' op dstMem: the final axis holds the size bytes of one copy, so size must be a constant}}
    tile.apply "cp.async.bulk.global.shared::cta.bulk_group"(%g, %s, %size) : memref<64xbf16, 1>, memref<64xbf16, 3>, i32
    gpu.return
  }
}

// -----

gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @strided(%g: memref<64xbf16, 1>) workgroup(%s : memref<128xbf16, 3>, %bar : memref<1xi64, 3>) kernel {
    %size = arith.constant 128 : i32
    %v = memref.subview %s[0] [64] [2] : memref<128xbf16, 3> to memref<64xbf16, strided<[2]>, 3>
    // expected-error @+1 {{'tile.apply' op srcMem: a bulk copy needs a contiguous final axis (stride 1), got layout strided<[2]>}}
    tile.apply "cp.async.bulk.global.shared::cta.bulk_group"(%g, %v, %size) : memref<64xbf16, 1>, memref<64xbf16, strided<[2]>, 3>, i32
    gpu.return
  }
}
