#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"
include "mlir/Dialect/LLVMIR/LLVMTypes.td"

def Tile_ApplyOp : Tile_Op<"apply", [AttrSizedOperandSegments]> {
  let summary = "apply one PTX instruction form to every repeat of register tiles";
  let description = [{
    Operands follow the PTX operand order of `opcode`, destination first. Each
    tensor operand is a statically shaped memref whose leading axes are the
    repeat axes and whose final axis holds the instruction's native registers.
    A scalar SSA value may stand for a single-register read input and is
    broadcast over all repeats.

    ```mlir
    tile.apply "add.rn.f16x2"(%d, %a, %b)
        : memref<8x1xi32, 5>, memref<8x1xi32, 5>, memref<8x1xi32, 5>
    tile.apply "abs.f32"(%r, %r) if %p {preserve_dst}
        : memref<4x1xf32, 5>, memref<4x1xf32, 5>
    ```

    With `pred`, the instruction executes only where the predicate is true;
    the destination is then undefined unless `preserve_dst` is set, which keeps
    its previous value. The predicate is an `i1` value, the same for every
    repeat, or a predicate tile (an `i1` register tile that `setp` wrote,
    with the repeat shape and one register) giving each repeat its own,
    written with its type:

    ```mlir
    tile.apply "setp.lt.s32"(%p, %a, %b)
        : memref<4x1xi1, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
    tile.apply "neg.s32"(%a, %a) if (%p : memref<4x1xi1, 5>)
        : memref<4x1xi32, 5>, memref<4x1xi32, 5>
    ```
  }];
  let arguments = (ins StrAttr:$opcode,
                       Variadic<AnyType>:$args,
                       Optional<AnyTypeOf<[I1, AnyMemRef]>>:$pred,
                       DefaultValuedStrAttr<StrAttr, "thread">:$scope,
                       UnitAttr:$preserve_dst);
  let assemblyFormat = [{
    $opcode `(` $args `)` (`if` custom<Predicate>($pred, type($pred))^)?
    attr-dict (`:` type($args)^)?
  }];
  let extraClassDeclaration = [{
    /// The rules of a predicate tile: an i1 register tile of the repeat
    /// shape (group axes included) and one register, owned at the scope.
    ::mlir::LogicalResult verifyPredicateTile(::mlir::MemRefType tile,
                                              ::llvm::ArrayRef<int64_t> repeatShape,
                                              unsigned groupRank);
  }];
  let hasVerifier = 1;
}

def Tile_InstrOp : Tile_Op<"instr", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "one PTX instruction on SSA register values";
  let description = [{
    The result of `--tile-expand`: one instruction. `overload` selects the
    form among the operand signatures of `opcode` (ptx::lookupForms), as
    tile.apply's operands selected it; 0, the primary form, is not printed.
    `results` are the registers the form writes (dst and rw operands) in
    order; `inputs` are the values it reads (src and rw registers, and imm
    operands as integer constants) in order; a memory operand (for ld/st) is
    an element address given as a memref and indices. `keep` carries the
    previous values of the dst registers of a predicated instruction with
    `preserve_dst`.

    ```mlir
    %v = tile.instr "ld.global.b32"() [%A[%i, %c0] : memref<8x1xi32, 1>] : () -> i32
    %s = tile.instr "add.rn.f16x2"(%v, %w) : (i32, i32) -> i32
    %p = tile.instr "mov.b64"(%lo, %hi) {overload = 1 : i32} : (i32, i32) -> i64
    ```
  }];
  let arguments = (ins StrAttr:$opcode,
                       Variadic<AnyType>:$inputs,
                       Optional<AnyMemRef>:$memref,
                       Variadic<Index>:$indices,
                       Optional<I1>:$pred,
                       Variadic<AnyType>:$keep,
                       DefaultValuedAttr<I32Attr, "0">:$overload);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $opcode `(` $inputs `)`
    (`[` $memref^ `[` $indices `]` `:` type($memref) `]`)?
    (`if` $pred^)?
    (`keep` `(` $keep^ `:` type($keep) `)`)?
    attr-dict `:` functional-type($inputs, $results)
  }];
  let extraClassDeclaration = [{
    /// The form `overload` selects; null, with `error` set, when the opcode
    /// is not a lowered form or has no such overload.
    const ::mlir::tile::ptx::Form *lookupForm(std::string &error);
  }];
  let hasVerifier = 1;
}

def Tile_ViewOp : Tile_Op<"view", [Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "reinterpret the register carriers of a tile";
  let description = [{
    Reinterprets the bits of the final (register) axis with another element
    type, e.g. (4,1) 32-bit words as (4,2) 16-bit halves, low half first. It
    changes no value and selects no operation. The final axis must be
    contiguous; its extent scales by the width ratio, the other strides and
    the offset are rescaled to the new element.

    ```mlir
    %h = tile.view %w : memref<4x1xi32, 5> to memref<4x2xi16, 5>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "a zero-stride view that repeats a tile along unit axes";
  let description = [{
    Expands unit axes of the source to the result's extents with stride 0, so
    one register is read by every repeat. Legal only as an instruction input.

    ```mlir
    %b = tile.broadcast %s : memref<1x1xf32, 5> to memref<8x1xf32, strided<[0, 1]>, 5>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

def Tile_SwizzleOp : Tile_Op<"swizzle", [Pure, AllTypesMatch<["source", "result"]>,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "a shared tile whose bytes are placed by an XOR swizzle";
  let description = [{
    The same shared buffer, its bytes permuted by the swizzle CuTe calls
    `Swizzle<bits, base, shift>`, counted in bytes: the byte at offset `o`
    from the buffer's start lives at

        o ^ ((o >> shift) & (((1 << bits) - 1) << base))

    so bits [base + shift, base + shift + bits) of the offset select which
    of the 2^bits units of 2^base bytes a unit trades places with inside its
    run of 2^(base + bits) bytes. Every view taken from the result (subview,
    reshape, tile.view) addresses through the swizzle; the buffer itself
    does not. An access must stay inside one 2^base-byte unit, which keeps
    it contiguous and aligned: the verifier of every tile.apply proves it.
    The TMA and wgmma modes over 128-byte rows are bits 1, 2, 3 (32, 64, 128
    bytes) with base 4 and shift 3.

    ```mlir
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xi16, 3>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, I64Attr:$bits, I64Attr:$base,
                       I64Attr:$shift);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source)";
  let extraClassDeclaration = [{
    /// The address of the byte at `offset` from the buffer's start.
    int64_t apply(int64_t offset) {
      int64_t mask = ((int64_t(1) << getBits()) - 1) << getBase();
      return offset ^ ((offset >> getShift()) & mask);
    }
  }];
  let hasVerifier = 1;
}

def Tile_MatrixDescriptorOp : Tile_Op<"matrix_descriptor", [Pure]> {
  let summary = "the wgmma matrix descriptor of a swizzled shared tile";
  let description = [{
    The 64-bit descriptor (PTX ISA 9.7.15.5.1, "Matrix Descriptor Format")
    with which wgmma.mma_async reads `tile`, a K-major operand: its rows are
    A's M or B's N, its columns K. The tile lives in a shared buffer that
    `tile.swizzle` places with bits 1, 2 or 3, base 4 and shift 3 (the 32-,
    64- and 128-byte modes): rows are 16 << bits bytes apart within each
    group of eight, and groups eight rows apart. The descriptor holds the
    tile's start address, that group stride (the stride byte offset), the
    mode and a leading byte offset of 16 (unused by the swizzled K-major
    modes); none of it is written by hand. The verifier walks every element
    of the tile and proves that the descriptor addresses it where the tile
    does, that each row's K bytes stay inside one swizzled row, and that
    the buffer is aligned to the swizzle's repeat (8 rows).

    A 3-D tile (atoms, rows, columns) describes an MN-major operand
    (`imm-trans-a` or `-b` 1) wider than one swizzled row: its rows are K,
    its columns M or N, each atom a whole swizzled row wide, and the
    leading byte offset is the atoms' stride (PTX ISA: "the stride from the
    first column to the second column of the 8x2 tile of core matrices" in
    the MN dimension). A 2-D tile's MN-major operand is one row wide.

    ```mlir
    %s = tile.swizzle %buf {bits = 3, base = 4, shift = 3} : memref<64x64xbf16, 3>
    %k0 = memref.subview %s[0, 0] [64, 16] [1, 1]
        : memref<64x64xbf16, 3> to memref<64x16xbf16, strided<[64, 1]>, 3>
    %d = tile.matrix_descriptor %k0 : memref<64x16xbf16, strided<[64, 1]>, 3>
    ```

    `{format = "tcgen05"}` gives the same fields in the sm_100 layout that
    tcgen05.mma's a-desc and b-desc and tcgen05.cp's s-desc read (PTX ISA
    9.7.16.4.1): the version field (bits 46-47) is 1. The verifier's walk
    is the same; a wgmma reads only the default format and a tcgen05
    instruction only this one.
  }];
  let arguments = (ins AnyMemRef:$tile,
                       DefaultValuedStrAttr<StrAttr, "wgmma">:$format);
  let results = (outs I64:$descriptor);
  let assemblyFormat = "$tile attr-dict `:` type($tile)";
  let extraClassDeclaration = [{
    /// Whether it is the sm_100 shared-memory descriptor that tcgen05.mma
    /// and tcgen05.cp read ({format = "tcgen05"}): wgmma's fields, and the
    /// version field (bits 46-47) set to 1; the three swizzles' layout
    /// types (bits 61-63: 2, 4, 6) are wgmma's (bits 62-63: 1, 2, 3).
    bool isTcgen05() { return getFormat() == "tcgen05"; }
    /// The bytes between consecutive rows of one group of eight: 32, 64 or
    /// 128 (the swizzle's mode).
    int64_t getRowBytes();
    /// The descriptor's layout type field (bits 62-63): 1 for 128-byte
    /// rows, 2 for 64, 3 for 32.
    int64_t getLayoutType();
    /// The descriptor's leading byte offset (bits 16-29, / 16): the stride
    /// of a 3-D tile's atoms in bytes, else 16 (unused).
    int64_t getLeadingByteOffset();
  }];
  let hasVerifier = 1;
}

def Tile_TensorMapOp : Tile_Op<"tensor_map", [Pure]> {
  let summary = "the address of a kernel's tensor map, and the box it copies";
  let description = [{
    A TMA tensor map (CUtensorMap, 128 bytes) that the runtime encodes on
    the host for the global tensor `tensor` and passes as the kernel
    parameter `param`: `!llvm.ptr`, which the lowering declares a 64-byte
    aligned `.param` of 128 bytes whose address the kernel may take
    (`nvvm.grid_constant`). The result is that parameter's generic address,
    the `tensorMap` operand of `cp.async.bulk.tensor` and
    `prefetch.tensormap`. `box` is the extent of each copy, outermost
    first as the tensor's axes are (the tensor map's boxDim reversed);
    `swizzle` the bytes of the swizzle span (0, 32, 64 or 128). Elements
    out of the tensor's bounds are read as zero and not written. The
    verifier checks what cuTensorMapEncodeTiled demands that the types
    show: rank 1 to 5, box extents 1 to 256, an innermost box of a
    multiple of 16 bytes and, swizzled, of the span exactly, and global
    strides of multiples of 16 bytes. Every tile.apply that copies a box
    checks its shared tile against it.

    ```mlir
    %map = tile.tensor_map %param for %A {box = array<i64: 64, 64>, swizzle = 128 : i64}
        : memref<256x256xbf16, 1>
    ```
  }];
  let arguments = (ins LLVM_PointerInAddressSpace<0>:$param, AnyMemRef:$tensor,
                       DenseI64ArrayAttr:$box, I64Attr:$swizzle);
  let results = (outs I64:$address);
  let assemblyFormat = [{
    $param `for` $tensor attr-dict `:` type($tensor)
  }];
  let extraClassDeclaration = [{
    /// The bytes of one box element.
    int64_t getElementBytes() {
      return getTensor().getType().getElementTypeBitWidth() / 8;
    }
  }];
  let hasVerifier = 1;
}

def Tile_MapaOp : Tile_Op<"mapa", [Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "another block's copy of a shared tile, in the cluster window";
  let description = [{
    The shared tile `source` as the block of rank `rank` in the issuing
    block's cluster holds it: `mapa.shared::cluster` (PTX ISA 9.0, the
    mapa instruction) maps the tile's base address into the `.shared::cluster`
    window (address space 7), and every element keeps its offset from
    there, since each block's shared memory is one contiguous piece of the
    window. The result has the source's shape, element type and layout;
    only instructions spelled with `.shared::cluster` address it (ld, st,
    atom, red, mbarrier), which the verifier of every tile.apply checks. A
    rank outside the cluster is undefined in PTX; the interpreter reports
    it. A swizzled tile is not mapped (tile.swizzle's verifier says so).

    ```mlir
    %peer = tile.mapa %buf, %rank : memref<64xf32, 3> to memref<64xf32, 7>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, I32:$rank);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $source `,` $rank attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TILE_OPS_TD
