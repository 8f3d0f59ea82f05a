// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @predicate_tile_of_words(%a: memref<4x1xi32, 5>, %p: memref<4x1xi16, 5>) {
  // expected-error @+1 {{'tile.apply' op pred: a predicate tile is a register tile of i1 (a memref in address space 5), got 'memref<4x1xi16, 5>'}}
  tile.apply "neg.s32"(%a, %a) if (%p : memref<4x1xi16, 5>) : memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @predicate_tile_in_global_memory(%a: memref<4x1xi32, 5>, %p: memref<4x1xi1, 1>) {
  // expected-error @+1 {{'tile.apply' op pred: a predicate tile is a register tile of i1 (a memref in address space 5), got 'memref<4x1xi1, 1>'}}
  tile.apply "neg.s32"(%a, %a) if (%p : memref<4x1xi1, 1>) : memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @predicate_tile_shape(%a: memref<4x1xi32, 5>) {
  %p = memref.alloca() : memref<2x1xi1, 5>
  // expected-error @+1 {{'tile.apply' op pred: a predicate tile holds one predicate per repeat: expected shape (4, 1), got (2, 1)}}
  tile.apply "neg.s32"(%a, %a) if (%p : memref<2x1xi1, 5>) : memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

// A predicate register is carried as i1 and nothing else.
func.func @setp_into_words(%p: memref<4x1xi8, 5>, %a: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op p: expected a 1-bit carrier for pred (i1), got i8}}
  tile.apply "setp.lt.s32"(%p, %a, %a) : memref<4x1xi8, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @packed_compare_writes_two(%p: memref<4x1xi1, 5>, %a: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op pq: the final axis counts the registers of one instruction and must have extent 2 for setp.lt.f16x2, got (4, 1)}}
  tile.apply "setp.lt.f16x2"(%p, %a, %a) : memref<4x1xi1, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @setp_needs_a_comparison(%p: memref<4x1xi1, 5>, %a: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op setp.s32 needs a comparison: one of eq, ne, lt, le, gt, ge}}
  tile.apply "setp.s32"(%p, %a, %a) : memref<4x1xi1, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

func.func @unsigned_compare_on_signed(%p: memref<4x1xi1, 5>, %a: memref<4x1xi32, 5>) {
  // expected-error @+1 {{'tile.apply' op 'lo' is not a qualifier of setp.s32: expected comparison (eq, ne, lt, le, gt, ge)}}
  tile.apply "setp.lo.s32"(%p, %a, %a) : memref<4x1xi1, 5>, memref<4x1xi32, 5>, memref<4x1xi32, 5>
  return
}

// -----

// ptxas: "Predicate output not allowed" for f16 and bf16.
func.func @no_pair_for_f16(%p: memref<4x2xi1, 5>, %a: memref<4x1xf16, 5>) {
  // expected-error @+1 {{'tile.apply' op p: the final axis counts the registers of one instruction and must have extent 1, got (4, 2); add a singleton register axis}}
  tile.apply "setp.lt.f16"(%p, %a, %a) : memref<4x2xi1, 5>, memref<4x1xf16, 5>, memref<4x1xf16, 5>
  return
}
