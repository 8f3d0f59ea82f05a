//===- Forms.h - The PTX instruction form table -----------------*- C++ -*-===//
//
// The one source of truth for PTX facts: given an opcode spelling it answers
// whether it is a real instruction form, its operands in order with role,
// register width, register count and state space, and the target floor.
// The verifier, the lowering, the Python API and the docs all ask it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PTX_FORMS_H
#define TILE_PTX_FORMS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "tile/PTX/Folds.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tile::ptx {

/// dst is written, src read, rw read and written (an accumulator that is
/// also the result), imm an immediate value (cp.async's size).
enum class Role { Dst, Src, ReadWrite, Imm };

/// Where an operand lives: a register, or the memory an address points to.
/// SharedCluster is the .shared::cluster window: the block's own shared
/// memory or, through tile.mapa, another block's of its cluster.
enum class Space { Reg, Global, Shared, SharedCluster, Local, Generic, Const, Param };

llvm::StringRef stringifyRole(Role role);
llvm::StringRef stringifySpace(Space space);

struct Operand {
  /// The name used in diagnostics: dst, lhs, rhs, src, src1, ...
  std::string name;
  Role role;
  Space space;
  /// The PTX type token of each register or memory element: f16x2, s32, b32.
  std::string type;
  /// Width in bits of one register (or memory element).
  unsigned bits;
  /// Registers bound from the operand's final axis: 1 for a scalar register,
  /// N for the register side and the memory side of a .vN load or store.
  unsigned count;

  /// The values an immediate operand may take; when empty, every value
  /// from 0 to maxImmediate (lop3's 8-bit lookup table). Negative values
  /// are listed (wgmma's imm-scale-a is -1 or 1).
  llvm::SmallVector<int64_t, 3> immediates;
  unsigned maxImmediate = 0;
  /// Without `immediates`: the values are the multiples of this from 0 to
  /// maxImmediate (a bulk copy's size, of 16).
  unsigned immediateStep = 1;
  /// An rw operand stands at the destination's position and, again, at this
  /// position of the PTX operand list, where it is read: fma d, a, b, d
  /// binds (acc, a, b) with readAt 3. 0: it is read where it stands
  /// (wgmma's d, the accumulator and the result).
  unsigned readAt = 0;
  /// For a memory operand whose size an immediate gives (cp.async's
  /// cp-size), that immediate's name; its elements are then bytes.
  std::string sizedBy;

  bool isMemory() const { return space != Space::Reg && role != Role::Imm; }
  /// Registers the instruction writes: its results (dst, rw).
  bool isWritten() const {
    return !isMemory() && (role == Role::Dst || role == Role::ReadWrite);
  }
  /// Values the instruction reads: its inputs (src, rw, imm).
  bool isRead() const { return !isMemory() && role != Role::Dst; }
  /// Whether an immediate operand may take `value`.
  bool takesImmediate(int64_t value) const;
  /// "4, 8 or 16", "0 to 255".
  std::string immediateText() const;
  /// The exact float element type this register may be carried in
  /// ("f16", "bf16", "f32", "f64"), or "" when only bit containers fit.
  llvm::StringRef floatCarrier() const;
  /// Element types that may carry one register, in MLIR spelling: the
  /// equal-width integers, plus the exact float type for scalar float types.
  std::vector<std::string> carriers() const;
  /// The instruction needs a register of exactly `bits` bits even below 16
  /// (an e2m1x2 pair, the bytes in mov's braces); otherwise 8-bit values sit
  /// in 16-bit registers, as ld/st and cvt allow.
  bool exactRegister = false;

  /// The measured ptxas fold this operand may be exposed to (Folds.h): a
  /// source of cvt, of abs.f16x2/bf16x2 or a 64-bit shift's amount, read
  /// through an identity max where a producer of the class wrote it; an
  /// integer .sat result, moved to its destination through a split and
  /// join where a consumer of the class reads it.
  Fold fold = Fold::None;

  /// A predicate register (.pred), carried as i1.
  bool isPredicate() const { return type == "pred"; }

  /// Width of the PTX register that holds the value.
  unsigned registerBits() const {
    if (isPredicate())
      return 1;
    return bits < 16 && !exactRegister ? 16 : bits;
  }

  /// The registers are written p|q, not {p, q}: setp's predicate and its
  /// complement, or the two lanes of a packed comparison.
  bool joinedByBar = false;
  /// The operand follows the previous one after a bar, not a comma: the
  /// predicate of elect.sync d|p, shfl.sync d|p and match.all d|p.
  bool barBefore = false;

  /// The repeat axes this operand spans, one letter each, for a form whose
  /// repeat space is not one shape shared by every operand: an mma's
  /// repeats are (m, n, k), its D and C span "mn", A "mk" and B "nk".
  /// Empty: the operand spans the apply's whole repeat shape.
  std::string axes;
  /// An accumulator input (mma's C): it feeds the first step along the
  /// axes it does not span (k), the destination each later step.
  bool accumulator = false;
  /// Written in braces even as one register: a fragment ({%r1}) of mma.
  bool braced = false;
  /// A register that holds an address, written in brackets ([%rd1]): the
  /// tensor map of cp.async.bulk.tensor and prefetch.tensormap, the start
  /// of createpolicy.range's range.
  bool address = false;
  /// Written inside the brackets of the address before it, after a comma:
  /// a TMA's coordinates ([%rd1, {%r1, %r2}]).
  bool withinAddress = false;
  /// A memory operand that is one whole tile, the box of the tensor map
  /// operand before it (a TMA's shared destination or source): its shape
  /// is the box's, and it is not repeated.
  bool box = false;
  /// A memory operand of a bulk copy (cp.async.bulk): its `sizedBy` bytes
  /// contiguous from an address aligned to 16 bytes, not to the size.
  bool bulk = false;
  /// An operand that holds or describes a matrix of the multiply (wgmma's
  /// d, a or a-desc, b-desc): the PTX type of the matrix's elements ("f32",
  /// "bf16", "e4m3", "b1") and their width in bits. A descriptor is a b64
  /// and A's register a b32 whatever the elements; these are the elements.
  /// "" and 0 for any other operand.
  std::string matrixType;
  unsigned matrixBits = 0;
};

struct Form {
  /// A multiply's shape: m64n128k16 is {64, 128, 16}.
  struct MatrixShape {
    unsigned m = 0, n = 0, k = 0;
  };

  std::string opcode;
  std::string family;
  llvm::SmallVector<Operand, 4> operands;
  /// The shape qualifier of an mma or wgmma form; none for other forms.
  std::optional<MatrixShape> matrixShape;
  /// Lowest SM version (e.g. 90) and PTX ISA version times ten (e.g. 86).
  unsigned minSm = 0;
  unsigned minPtx = 0;
  /// The form exists only on arch- or family-specific targets (`a`, `f`)
  /// from minSm on.
  bool archSpecific = false;
  /// Only on `a` targets from minSm to maxSm (cvt.rs: sm_100a to sm_103a).
  bool archOnly = false;
  unsigned maxSm = 0;
  bool readsMemory = false;
  bool writesMemory = false;
  /// Every thread of a warp executes it together (mma.sync.aligned).
  bool warpCollective = false;
  /// Every thread of a warpgroup (four warps) executes it together
  /// (wgmma.mma_async.sync.aligned); it is a warp collective too. Its
  /// fragments are the thread's (scope thread) or its warpgroup's (scope
  /// warpgroup).
  bool warpgroupCollective = false;
  /// It reads or writes memory that no operand names, through the
  /// descriptors it takes: the shared tiles of wgmma.mma_async's a-desc and
  /// b-desc, the global tensor of a TMA's tensor map. MLIR sees it read and
  /// write all memory, and its asm clobbers memory.
  bool accessesDescribedMemory = false;
  /// A barrier of the block (bar.sync, barrier.arrive): every thread of the
  /// block, or the count of threads it names, reaches it together. It takes
  /// no guard, and it lowers through NVVM's convergent barrier intrinsics
  /// rather than inline asm, which LLVM may duplicate into divergent paths.
  bool blockBarrier = false;
  /// Its result is the set of threads that execute it together
  /// (activemask). Like a warp collective it is lowered with side effects,
  /// so that LLVM never moves, merges or removes it.
  bool observesWarp = false;
  /// A fence (membar, fence): it has no operands but orders the thread's
  /// memory accesses, so it reads and writes all memory for MLIR and is
  /// side-effecting asm that clobbers memory for LLVM.
  bool ordersMemory = false;
  /// It synchronizes threads through memory with acquire or release
  /// semantics (the mbarrier operations): besides its own operands, it
  /// orders the accesses around it, so its asm clobbers memory.
  bool synchronizes = false;
  /// ptxas (CUDA 13.0) ignores a guard on this instruction (testp: measured
  /// on an H200, at -O3 and -O0): where the guard is false the destination
  /// gets the result anyway. A guarded instruction that keeps its
  /// destination (preserve_dst) therefore writes scoped registers that a
  /// guarded mov moves to it.
  bool guardIgnored = false;
  /// tile.apply and tile.instr take it. A family the table parses and
  /// enumerates before it is lowered (fma, cp.async, mma) is not.
  bool lowered = true;
  /// Its PTX operand list starts with the sink `_`, a result the
  /// instruction has but does not return (an mbarrier arrival on
  /// .shared::cluster); no operand stands for it.
  bool sinkResult = false;
  /// It reads the carry flag CC.CF (addc, subc, madc) or writes it (a .cc
  /// form: add.cc, addc.cc, mad.lo.cc, ...). The flag is state between
  /// instructions: the verifier wants a writer before each reader in its
  /// block, and the lowering keeps the chain's asm in order.
  bool readsCarry = false;
  bool writesCarry = false;
  /// It reads or writes Blackwell's tensor memory (every tcgen05 form),
  /// which no operand names (its addresses are b32 values): MLIR sees it
  /// read and write a TMEM resource, and its asm has side effects, so
  /// nothing reorders, merges or drops it (tcgen05.shift has no result).
  bool accessesTensorMemory = false;
  /// A measured way in which ptxas or the hardware departs from the PTX ISA
  /// for this form, which the lowering reports as a warning; "" for none.
  std::string caveat;

  /// Its memory operand is an address it reads as a value, written without
  /// brackets (isspacep.space p, a; cvta; getctarank): it takes a view's
  /// address as every memory operand does, and no byte there is read or
  /// written.
  bool addressValue = false;

  bool accessesMemory() const { return readsMemory || writesMemory; }
  /// It takes an address: it accesses memory, or reads an address as a
  /// value (addressValue).
  bool takesAddress() const { return accessesMemory() || addressValue; }
  /// The index of the memory operand, if any.
  std::optional<unsigned> memoryOperand() const;
  /// "sm_100 or newer and PTX ISA 8.6"
  std::string floorText() const;
};

/// A compilation target such as sm_90 or sm_100a.
struct Target {
  unsigned sm = 0;
  /// 'a' for arch-specific, 'f' for family-specific, 0 for neither.
  char suffix = 0;

  static std::optional<Target> parse(llvm::StringRef chip);
  std::string str() const;
  /// The newest PTX ISA version (times ten) that this toolchain emits.
  static unsigned maxPtx();
  /// Whether `ptx` (times ten) names a PTX ISA version that exists and that
  /// this toolchain emits: 6.0-6.5, 7.0-7.8, 8.0 up to maxPtx().
  static bool isKnownPtx(unsigned ptx);
  /// The lowest PTX ISA version (times ten) that knows this target.
  unsigned minPtx() const;
  /// The most shared memory (static and dynamic) one block may use once a
  /// kernel opts in (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), in
  /// bytes: the CUDA C++ Programming Guide's table per compute capability.
  unsigned maxSharedPerBlock() const;
};

/// Parses an opcode spelling. On failure returns std::nullopt and sets
/// `error` to a message naming the offending token and what is legal there.
std::optional<Form> parseForm(llvm::StringRef opcode, std::string &error);

/// Checks that `form` exists on `target`; on failure sets `error`, e.g.
/// "add.rn.f32x2 requires sm_100 or newer and PTX ISA 8.6".
bool isAvailableOn(const Form &form, const Target &target, std::string &error);

/// Every form a spelling names, one per operand signature of its record:
/// `primary` first, then e.g. for mov.b16..b128 the forms that pack
/// registers into one or unpack one into several with braces (mov.b64 d,
/// {a, b}; mov.b64 {a, b}, d; mov.b32 d, {a, b, c, d} of bytes), fma's tied
/// accumulator, setp's p|q. Which one an instruction means follows from its
/// operands.
std::vector<Form> overloadsOf(const Form &primary);

/// overloadsOf(the form `opcode` spells): its primary form first. Empty, with
/// `error` set as parseForm sets it, when the spelling is not legal. Legal
/// spellings are parsed once per thread and their forms live as long as the
/// thread: the verifier, the expansion and the lowering ask for the forms of
/// every instruction of a kernel that spells a handful of opcodes.
llvm::ArrayRef<Form> lookupForms(llvm::StringRef opcode, std::string &error);

/// Every family tile.apply takes, for documentation and generators.
llvm::ArrayRef<llvm::StringRef> families();

/// Every family the table parses, lowered or not.
llvm::ArrayRef<llvm::StringRef> tableFamilies();

/// Every legal spelling of `family`, one per qualifier set, its qualifiers
/// in the order the family's record lists them (for cvt, cvt.pack's too).
std::vector<std::string> enumerateForms(llvm::StringRef family);

} // namespace mlir::tile::ptx

#endif // TILE_PTX_FORMS_H
