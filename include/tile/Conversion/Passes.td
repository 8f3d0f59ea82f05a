#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm"> {
  let summary = "lower tile.instr and tile views to the LLVM dialect";
  let description = [{
    Each `tile.instr` becomes one `llvm.inline_asm` holding the opcode
    verbatim, with constraint letters derived from the PTX form table
    (h, r, l for 16-, 32- and 64-bit registers, b for the predicate, l for an
    address). Register arithmetic is side-effect free so that unused results
    can be removed; loads and stores are side-effecting so they are neither
    dropped nor reordered. A predicated instruction is guarded with `@p`;
    with `keep` operands each destination is tied to its previous value.
    `tile.view` and `tile.broadcast` become memref descriptor updates
    (`populateTileToNVVMConversionPatterns`). Instructions are lowered by a
    walk rather than dialect conversion: each is replaced 1:1 and its
    register results keep their types, so the framework's bookkeeping bought
    nothing and took most of the pass on large kernels. Memref operands
    cross into LLVM types through unrealized casts, and a memref's base
    address is computed once for all the instructions that address it.
    Run `--tile-expand` first.

    ```mlir
    %1 = tile.instr "add.rn.f16x2"(%a, %b) : (i32, i32) -> i32
    ```
    becomes
    ```mlir
    %1 = llvm.inline_asm "add.rn.f16x2 $0, $1, $2;", "=r,r,r" %a, %b
        : (i32, i32) -> i32
    ```
  }];
  let options = [
    Option<"foldBarriers", "fold-barriers", "std::string", /*default=*/"\"auto\"",
           "where the barriers against measured ptxas folds go: auto (where "
           "data flow needs them), always or off">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def TileLocalAllocas : Pass<"tile-local-allocas"> {
  let summary = "give local-memory allocas the generic form NVPTX lowers correctly";
  let description = [{
    LLVM 22's NVPTX back end, given an `alloca` in address space 5 in a
    module whose data layout allocates in address space 0 (what MLIR's
    lowering produces), addresses the frame with the generic stack pointer
    `%SP` and then uses `st.local`/`ld.local` or a second `cvta.local` on it:
    every access to a register tile that stays in memory (indexed at run
    time) faulted or read the wrong slot on the H200. This pass rewrites each
    such alloca the way clang emits them, a generic alloca cast to address
    space 5, which the back end addresses through the local `%SPL`. Run it
    after the memref lowering (convert-gpu-to-nvvm).

    ```mlir
    %a = llvm.alloca %n x f32 : (i64) -> !llvm.ptr<5>
    ```
    becomes
    ```mlir
    %g = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
    %a = llvm.addrspacecast %g : !llvm.ptr to !llvm.ptr<5>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileExternDynamicShared : Pass<"tile-extern-dynamic-shared"> {
  let summary = "declare the dynamic shared memory as PTX's extern array";
  let description = [{
    MLIR's lowering of `gpu.dynamic_shared_memory` (convert-gpu-to-nvvm)
    makes an internal zero-length global in address space 3. LLVM 22's
    NVPTX back end demotes it into the kernel as a static
    `.shared .align 16 .b8 __dynamic_shmem__0;`: `ptxas -v` counts 1 byte
    of static shared memory, and the kernel's dynamic buffers start at that
    byte instead of at the launch's dynamic region, so their last bytes lie
    past it (measured with ptxas 13.0). Dynamic shared memory is an
    `.extern .shared` array of no size in PTX: this pass gives every
    zero-length address-space-3 global external linkage, which NVPTX prints
    as `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`. Run it after
    convert-gpu-to-nvvm.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileTensorMapParams : Pass<"tile-tensor-map-params"> {
  let summary = "pass tensor maps as 64-byte aligned .param arrays";
  let description = [{
    A TMA reads its tensor map from the kernel's parameter space: the
    128-byte CUtensorMap the runtime encodes is passed by value and its
    generic address (tile.tensor_map) taken in the kernel. MLIR's
    convert-gpu-to-nvvm drops the `llvm.byval` of a gpu.func argument, and
    the NVVM dialect takes `nvvm.grid_constant` on an llvm.func only; so
    convert-tile-to-nvvm marks the llvm.ptrtoint of each tensor map, and
    this pass, run after convert-gpu-to-nvvm, gives its kernel argument
    `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 64` and
    `nvvm.grid_constant`. NVPTX then declares `.param .align 64 .b8
    name[128]` and takes its address with `cvta.param` instead of copying
    it to local memory, where a TMA cannot read it.

    ```mlir
    %a = llvm.ptrtoint %map {tile.tensor_map_param} : !llvm.ptr to i64
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif
