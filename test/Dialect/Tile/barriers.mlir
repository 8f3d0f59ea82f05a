// RUN: tile-opt %s -split-input-file -verify-diagnostics

// The barrier forms of PTX ISA 9.0 (bar.sync a{, b}; bar.arrive a, b;
// barrier.sync{.aligned} a{, b}; barrier.arrive{.aligned} a, b): a is one
// of 16 barriers, b a thread count, a multiple of 32 up to 1024.
func.func @barrier_id_out_of_range() {
  %a = arith.constant 16 : i32
  // expected-error @+1 {{'tile.apply' op a: immediate 16 is not legal for bar.sync: expected 0 to 15}}
  tile.apply "bar.sync"(%a) : i32
  return
}

// -----

func.func @thread_count_not_whole_warps() {
  %a = arith.constant 1 : i32
  %b = arith.constant 48 : i32
  // expected-error @+1 {{'tile.apply' op b: immediate 48 is not legal for barrier.sync.aligned}}
  tile.apply "barrier.sync.aligned"(%a, %b) : i32, i32
  return
}

// -----

func.func @arrive_needs_a_count() {
  %a = arith.constant 1 : i32
  // expected-error @+1 {{'tile.apply' op expected 2 operands for bar.arrive (a, b), got 1}}
  tile.apply "bar.arrive"(%a) : i32
  return
}

// -----

// A guard would leave part of the block behind.
func.func @guarded_barrier(%p: i1) {
  %a = arith.constant 0 : i32
  // expected-error @+1 {{'tile.apply' op bar.sync takes no predicate: a barrier is reached by every thread it counts, and a guard would leave part of them behind}}
  tile.apply "bar.sync"(%a) if %p : i32
  return
}

// -----

func.func @barrier_at_warp_scope() {
  %a = arith.constant 0 : i32
  // expected-error @+1 {{'tile.apply' op bar.sync is issued by each thread: scope "thread", got "warp"}}
  tile.apply "bar.sync"(%a) {scope = "warp"} : i32
  return
}

// -----

func.func @bar_has_no_aligned_qualifier() {
  %a = arith.constant 0 : i32
  // expected-error @+1 {{'tile.apply' op 'aligned' is not a qualifier of bar: expected cta, sync}}
  tile.apply "bar.sync.aligned"(%a) : i32
  return
}

// -----

// A reduction's type follows its operation (ptxas 13.0: popc takes .u32,
// and and or .pred); the message names the family.
func.func @barrier_reduction_type(%d: memref<1x1xi32, 5>, %p: i1) {
  %a = arith.constant 0 : i32
  // expected-error @+1 {{'tile.apply' op bar.red takes popc with .u32, or and/or with .pred}}
  tile.apply "bar.red.popc.b32"(%d, %a, %p) : memref<1x1xi32, 5>, i32, i1
  return
}

// -----

// .cta comes right after the name, and needs PTX ISA 7.8 (measured).
func.func @cta_after_the_operation() {
  %a = arith.constant 0 : i32
  // expected-error @+1 {{'tile.apply' op 'cta' must come right after the name in bar (bar.cta.sync)}}
  tile.apply "bar.sync.cta"(%a) : i32
  return
}

// -----

func.func @aligned_before_arrive() {
  %a = arith.constant 0 : i32
  %b = arith.constant 32 : i32
  // expected-error @+1 {{'tile.apply' op 'aligned' must follow 'arrive' in barrier (barrier.arrive.aligned)}}
  tile.apply "barrier.aligned.arrive"(%a, %b) : i32, i32
  return
}

// -----

func.func @guarded_barrier_instr(%p: i1) {
  %a = arith.constant 0 : i32
  // expected-error @+1 {{'tile.instr' op bar.sync takes no predicate: a barrier is reached by every thread it counts}}
  tile.instr "bar.sync"(%a) if %p : (i32) -> ()
  return
}
