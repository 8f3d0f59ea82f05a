// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A wgmma matrix descriptor is derived from its tile, never written by
// hand: each rule it cannot meet is a located error.
gpu.module @m {
  gpu.func @unswizzled() workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %k0 = memref.subview %buf[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op the tile's buffer must be swizzled for wgmma: tile.swizzle with bits = 1, 2 or 3, base = 4 and shift = 3 (rows of 32, 64 or 128 bytes); the unswizzled (interleaved) mode is not supported}}
    %d = tile.matrix_descriptor %k0 : memref<64x16xbf16, strided<[64, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @row_stride(%buf : memref<64x128xbf16, 3>) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x128xbf16, 3>
    %k0 = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x128xbf16, 3> to memref<64x16xbf16, strided<[128, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op element (1, 0) of the tile is 256 bytes from its start, but the descriptor reads 128 there: with 128-byte swizzled rows, a row's K elements are contiguous and rows are 128 bytes apart (strides [64, 1] in elements), got strides [128, 1]}}
    %d = tile.matrix_descriptor %k0 : memref<64x16xbf16, strided<[128, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @past_the_row() workgroup(%buf : memref<64x72xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x72xbf16, 3>
    %k = memref.subview %s[0, 0] [8, 72] [1, 1] : memref<64x72xbf16, 3> to memref<8x72xbf16, strided<[72, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op element (1, 0) of the tile is 144 bytes from its start, but the descriptor reads 128 there}}
    %d = tile.matrix_descriptor %k : memref<8x72xbf16, strided<[72, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @runtime_column(%c: index) workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k = memref.subview %s[0, %c] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1], offset: ?>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op the tile's offset must be known modulo a 128-byte row, to prove its K bytes stay in one swizzled row}}
    %d = tile.matrix_descriptor %k : memref<64x16xbf16, strided<[64, 1], offset: ?>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @unaligned_start() workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k = memref.subview %s[0, 4] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1], offset: 4>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op a descriptor addresses 16-byte units: the tile starts 8 bytes into a swizzled row, not a multiple of 16}}
    %d = tile.matrix_descriptor %k : memref<64x16xbf16, strided<[64, 1], offset: 4>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @under_aligned() workgroup(%buf : memref<64x64xbf16, 3> {llvm.align = 16 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op wgmma swizzles shared addresses, which equals the buffer's swizzle only when the buffer is aligned to the swizzle's repeat of 1024 bytes: got an alignment of 16 (a static shared buffer with align=1024)}}
    %d = tile.matrix_descriptor %k : memref<64x16xbf16, strided<[64, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @rows_of_8() workgroup(%buf : memref<64x32xbf16, 3> {llvm.align = 512 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 2, base = 4, shift = 3} : memref<64x32xbf16, 3>
    %k = memref.subview %s[0, 0] [12, 16] [1, 1] : memref<64x32xbf16, 3> to memref<12x16xbf16, strided<[32, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op rows come in groups of 8 (a core matrix): expected a multiple of 8 rows, got 12}}
    %d = tile.matrix_descriptor %k : memref<12x16xbf16, strided<[32, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @global(%t : memref<64x16xbf16, 1>) kernel {
    // expected-error @+1 {{'tile.matrix_descriptor' op a matrix descriptor describes a shared tile, got 'memref<64x16xbf16, 1>'}}
    %d = tile.matrix_descriptor %t : memref<64x16xbf16, 1>
    gpu.return
  }
}

// -----

// An MN-major operand of several swizzled rows reads each row whole.
gpu.module @m {
  gpu.func @rows_not_whole() workgroup(%buf : memref<2x16x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<2x16x64xbf16, 3>
    %half = memref.subview %s[0, 0, 0] [2, 16, 32] [1, 1, 1] : memref<2x16x64xbf16, 3> to memref<2x16x32xbf16, strided<[1024, 64, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op an operand of 2 swizzled rows reads each row whole: expected 64 columns (the row's 128 bytes), got 32}}
    %d = tile.matrix_descriptor %half : memref<2x16x32xbf16, strided<[1024, 64, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @rows_unaligned(%buf : memref<2x16x64xbf16, strided<[1028, 64, 1]>, 3>) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<2x16x64xbf16, strided<[1028, 64, 1]>, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op the swizzled rows are 2056 bytes apart, but the leading byte offset is a positive multiple of 16 below 262144}}
    %d = tile.matrix_descriptor %s : memref<2x16x64xbf16, strided<[1028, 64, 1]>, 3>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @rank_four() workgroup(%buf : memref<1x2x16x64xbf16, 3> {llvm.align = 1024 : i64}) kernel {
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<1x2x16x64xbf16, 3>
    // expected-error @+1 {{'tile.matrix_descriptor' op expected a statically shaped 2-D tile (rows of M or N, columns of K), or a 3-D one (swizzled rows of an MN-major operand, rows of K, columns of M or N), got 'memref<1x2x16x64xbf16, 3>'}}
    %d = tile.matrix_descriptor %s : memref<1x2x16x64xbf16, 3>
    gpu.return
  }
}

// -----

// A descriptor made in place describes the operand its wgmma reads.
gpu.module @m {
  gpu.func @k_major_too_narrow() workgroup(%buf : memref<128x64xbf16, 3> {llvm.align = 1024 : i64}) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %true = arith.constant true
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<128x64xbf16, 3>
    %t = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<128x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    %d = tile.matrix_descriptor %t : memref<64x16xbf16, strided<[64, 1]>, 3>
    %acc = memref.alloca() : memref<1x1x64xf32, 5>
    // expected-error @+1 {{'tile.apply' op b-desc describes a 64x16 tile, but wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 reads B K-major as 128 rows of N by 16 columns of K (a 2-D tile)}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"(%acc, %d, %d, %true, %one, %one, %zero, %zero)
        : memref<1x1x64xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @rows_read_k_major() workgroup(%a : memref<64x64xbf16, 3> {llvm.align = 1024 : i64},
                                         %b : memref<2x16x64xbf16, 3> {llvm.align = 1024 : i64}) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %true = arith.constant true
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %sa = tile.swizzle %a {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %sb = tile.swizzle %b {bits = 3, base = 4, shift = 3} : memref<2x16x64xbf16, 3>
    %a0 = memref.subview %sa[0, 0] [64, 16] [1, 1] : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    %da = tile.matrix_descriptor %a0 : memref<64x16xbf16, strided<[64, 1]>, 3>
    %db = tile.matrix_descriptor %sb : memref<2x16x64xbf16, 3>
    %acc = memref.alloca() : memref<1x1x64xf32, 5>
    // expected-error @+1 {{'tile.apply' op b-desc describes a 2x16x64 tile, but wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 reads B K-major as 128 rows of N by 16 columns of K (a 2-D tile)}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"(%acc, %da, %db, %true, %one, %one, %zero, %zero)
        : memref<1x1x64xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @element_width() workgroup(%buf : memref<64x32xi8, 3> {llvm.align = 1024 : i64}) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %true = arith.constant true
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %s = tile.swizzle %buf {bits = 1, base = 4, shift = 3} : memref<64x32xi8, 3>
    %t = memref.subview %s[0, 0] [64, 16] [1, 1] : memref<64x32xi8, 3> to memref<64x16xi8, strided<[32, 1]>, 3>
    %d = tile.matrix_descriptor %t : memref<64x16xi8, strided<[32, 1]>, 3>
    %acc = memref.alloca() : memref<1x1x32xf32, 5>
    // expected-error @+1 {{'tile.apply' op a-desc describes a tile of 8-bit elements, but wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 reads bf16 (16 bits)}}
    tile.apply "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"(%acc, %d, %d, %true, %one, %one, %zero, %zero)
        : memref<1x1x32xf32, 5>, i64, i64, i1, i32, i32, i32, i32
    gpu.return
  }
}
