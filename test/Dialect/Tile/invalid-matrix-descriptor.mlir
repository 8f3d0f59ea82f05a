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
