//===- TileExpand.cpp - Unroll tile.apply into tile.instr -----------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "PredicateStorage.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseMap.h"

#include <map>


namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXPAND
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Index constants shared by every apply of a function: created once, in
/// increasing order, at the start of the entry block of the closest
/// isolated-from-above ancestor, so each instruction's loads, instruction
/// and stores stay together in the output and large expansions do not
/// repeat them.
class IndexPool {
public:
  Value get(Operation *user, int64_t value) {
    Operation *scope = user->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    Block *block = &scope->getRegion(0).front();
    SmallVector<Value> &pool = pools[block];
    if (value < static_cast<int64_t>(pool.size()))
      return pool[value];
    OpBuilder builder(user->getContext());
    if (pool.empty())
      builder.setInsertionPointToStart(block);
    else
      builder.setInsertionPointAfter(pool.back().getDefiningOp());
    for (int64_t i = pool.size(); i <= value; ++i)
      pool.push_back(arith::ConstantIndexOp::create(builder, user->getLoc(), i));
    return pool[value];
  }

private:
  llvm::DenseMap<Block *, SmallVector<Value>> pools;
};

/// The value of a register read before anything wrote it: zero. The PTX
/// ISA leaves such a register's value unspecified, but ptxas (CUDA 13.0)
/// does more with an undefined source of an instruction it implements with
/// a subroutine (div, rcp and sqrt with IEEE rounding): on an H200 the warp
/// then runs diverged for the rest of the kernel, so a later barrier never
/// returns or later shuffles, collectives and barrier-ordered accesses go
/// wrong (docs/difftest.md, findings 11 and 12). Zero is one of the values
/// the ISA allows, and only a kernel that reads a register it never wrote
/// gets it.
Value undefinedValue(OpBuilder &builder, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(floatType, 0.0));
  auto integer = cast<IntegerType>(type);
  if (integer.isSignless())
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(integer, 0));
  // A signed or unsigned carrier (ui32) is the zero of its signless twin,
  // cast the way the lowering casts every such carrier.
  Value zero = arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(
                        builder.getIntegerType(integer.getWidth()), 0));
  return UnrealizedConversionCastOp::create(builder, loc, type, zero)
      .getResult(0);
}

/// `value` as `type` of the same width, one side of which is a signless
/// integer: a bitcast for a float, the cast the lowering uses for signed and
/// unsigned carriers (ui32) otherwise. The op is marked kViewBitsAttrName.
Value castBits(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  Operation *cast =
      isa<FloatType>(value.getType()) || isa<FloatType>(type)
          ? arith::BitcastOp::create(builder, loc, type, value).getOperation()
          : UnrealizedConversionCastOp::create(builder, loc, type, value)
                .getOperation();
  cast->setAttr(kViewBitsAttrName, builder.getUnitAttr());
  return cast->getResult(0);
}

/// Bits of a register value: the signless integer of its width.
Value toBits(OpBuilder &builder, Location loc, Value value) {
  return castBits(builder, loc, value,
                  builder.getIntegerType(value.getType().getIntOrFloatBitWidth()));
}

template <typename OpTy, typename... Args>
Value markedOp(OpBuilder &builder, Location loc, Args &&...args) {
  auto op = OpTy::create(builder, loc, std::forward<Args>(args)...);
  op->setAttr(kViewBitsAttrName, builder.getUnitAttr());
  return op;
}

unsigned widthOf(Value value) {
  return value.getType().getIntOrFloatBitWidth();
}

/// `width` bits of `value` from bit `offset` (low bit first), as signless
/// bits.
Value extractBits(OpBuilder &builder, Location loc, Value value,
                  unsigned offset, unsigned width) {
  Value bits = toBits(builder, loc, value);
  Type type = bits.getType();
  if (offset) {
    Value amount = arith::ConstantOp::create(
        builder, loc, builder.getIntegerAttr(type, offset));
    bits = markedOp<arith::ShRUIOp>(builder, loc, bits, amount);
  }
  if (width < widthOf(bits))
    bits = markedOp<arith::TruncIOp>(builder, loc,
                                     builder.getIntegerType(width), bits);
  return bits;
}

/// The register tiles whose values expansion forwards instead of storing and
/// reloading: a `memref.alloca` in the register space with a static shape
/// whose every use, through subviews, reshapes, broadcasts and dtype views
/// (tile.view), is a tile.apply register operand, or a memref.load or
/// memref.store with constant indices, in the allocation's block. Each read
/// takes the bits last written to its place and the tile disappears, so the
/// expansion is one op per instruction and LLVM receives SSA registers
/// instead of an alloca to take apart. A register is kept as fragments, each
/// the value last written to its bits: a read of exactly a written fragment
/// is that value, and a dtype view that reads part of one, or several, takes
/// the bits out or joins them with shifts, truncations and extensions
/// (marked kViewBitsAttrName). Tiles used in nested regions, addressed as
/// memory (ld.local) or through a view at a runtime offset or stride keep
/// their memory.
class RegisterValues {
public:
  explicit RegisterValues(Operation *root) {
    root->walk([&](memref::AllocaOp alloca) {
      if (getAddressSpace(alloca.getType()) != kRegisterAddressSpace ||
          hasElementCountOverflow(alloca.getType()) ||
          !hasStaticLayout(alloca.getType()))
        return;
      SmallVector<Operation *> tileViews;
      if (!collectUses(alloca.getResult(), alloca->getBlock(),
                       alloca.getType().getElementType(), tileViews))
        return;
      tiles.push_back(alloca);
      owners[alloca.getResult()] = alloca;
      for (Operation *view : tileViews) {
        owners[view->getResult(0)] = alloca;
        views.push_back(view);
      }
    });
  }

  /// The allocation whose slots `tile` addresses, when they are forwarded.
  memref::AllocaOp owner(Value tile) const { return owners.lookup(tile); }

  /// The value of type `type` at bit `position` of `tile`'s registers
  /// (counted from the allocation, an element's width per element): the
  /// fragment last written there, else its bits taken from the fragments
  /// that hold them, undefined where none does (a register read before any
  /// write holds no defined value).
  Value read(OpBuilder &builder, Location loc, memref::AllocaOp tile,
             int64_t position, Type type) {
    std::map<int64_t, Value> &parts = fragments[tile];
    unsigned width = type.getIntOrFloatBitWidth();
    auto exact = parts.find(position);
    if (exact != parts.end() && widthOf(exact->second) == width)
      return exact->second.getType() == type
                 ? exact->second
                 : castBits(builder, loc, toBits(builder, loc, exact->second),
                            type);
    // Pieces of the read, low bits first: (offset in the read, bits).
    SmallVector<std::pair<unsigned, Value>> pieces;
    int64_t end = position + width;
    for (int64_t cursor = position; cursor < end;) {
      auto next = parts.upper_bound(cursor);
      auto holder = next == parts.begin() ? parts.end() : std::prev(next);
      if (holder != parts.end() &&
          holder->first + widthOf(holder->second) > cursor) {
        int64_t stop =
            std::min<int64_t>(holder->first + widthOf(holder->second), end);
        pieces.emplace_back(cursor - position,
                            extractBits(builder, loc, holder->second,
                                        cursor - holder->first, stop - cursor));
        cursor = stop;
        continue;
      }
      int64_t stop = next == parts.end() ? end : std::min(next->first, end);
      if (cursor == position && stop == end)
        return undefined(tile, type);
      pieces.emplace_back(cursor - position,
                          undefined(tile, builder.getIntegerType(stop - cursor)));
      cursor = stop;
    }
    Value joined;
    for (auto [offset, bits] : pieces) {
      Value piece = bits;
      if (widthOf(piece) < width)
        piece = markedOp<arith::ExtUIOp>(builder, loc,
                                         builder.getIntegerType(width), piece);
      if (offset) {
        Value amount = arith::ConstantOp::create(
            builder, loc, builder.getIntegerAttr(piece.getType(), offset));
        piece = markedOp<arith::ShLIOp>(builder, loc, piece, amount);
      }
      joined = joined ? markedOp<arith::OrIOp>(builder, loc, joined, piece)
                      : piece;
    }
    return castBits(builder, loc, joined, type);
  }

  /// Makes `value` the fragment at bit `position` of `tile`'s registers;
  /// the bits of older fragments it overlaps and does not cover stay, taken
  /// out as fragments of their own.
  void write(OpBuilder &builder, Location loc, memref::AllocaOp tile,
             int64_t position, Value value) {
    std::map<int64_t, Value> &parts = fragments[tile];
    int64_t end = position + widthOf(value);
    SmallVector<std::pair<int64_t, Value>> kept;
    auto it = parts.upper_bound(position);
    if (it != parts.begin())
      --it;
    while (it != parts.end() && it->first < end) {
      int64_t start = it->first, stop = start + widthOf(it->second);
      if (stop <= position) {
        ++it;
        continue;
      }
      if (start < position)
        kept.emplace_back(start, extractBits(builder, loc, it->second, 0,
                                             position - start));
      if (stop > end)
        kept.emplace_back(end, extractBits(builder, loc, it->second,
                                           end - start, stop - end));
      it = parts.erase(it);
    }
    for (auto [start, bits] : kept)
      parts[start] = bits;
    parts[position] = value;
  }

  /// Drops the forwarded tiles once every access is expanded.
  void eraseTiles() {
    for (Operation *view : llvm::reverse(views))
      view->erase();
    for (memref::AllocaOp tile : tiles)
      tile.erase();
  }

private:
  Value undefined(memref::AllocaOp tile, Type type) {
    OpBuilder builder(tile);
    return undefinedValue(builder, tile.getLoc(), type);
  }

  static bool collectUses(Value tile, Block *block, Type elementType,
                          SmallVectorImpl<Operation *> &tileViews) {
    for (OpOperand &use : tile.getUses()) {
      Operation *user = use.getOwner();
      if (user->getBlock() != block)
        return false;
      if (auto apply = dyn_cast<ApplyOp>(user)) {
        // A tile that an instruction addresses as memory (ld.local) needs
        // its storage.
        std::string error;
        ArrayRef<ptx::Form> forms = ptx::lookupForms(apply.getOpcode(), error);
        // A predicate tile is read as registers.
        if (use.get() == apply.getPred())
          continue;
        unsigned arg =
            use.getOperandNumber() - apply.getArgs().getBeginOperandIndex();
        if (forms.empty() || arg >= apply.getArgs().size())
          return false;
        const ptx::Form &form = selectForm(forms, apply.getArgs());
        if (arg >= form.operands.size() || form.operands[arg].isMemory())
          return false;
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        if (!getStaticElementOffset(load.getMemRefType(), load.getIndices()))
          return false;
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user)) {
        if (use.getOperandNumber() != 1 ||
            !getStaticElementOffset(store.getMemRefType(), store.getIndices()))
          return false;
        continue;
      }
      if (!isa<memref::SubViewOp, memref::ExpandShapeOp,
               memref::CollapseShapeOp, BroadcastOp, ViewOp>(user))
        return false;
      // A slot is found at compile time only through a static layout; a view
      // at a runtime offset or stride keeps the tile in memory, where the
      // address is computed when the kernel runs.
      auto viewType = cast<MemRefType>(user->getResult(0).getType());
      if (!hasStaticLayout(viewType))
        return false;
      Type viewElement = viewType.getElementType();
      // A dtype view reads bits of whole bytes; predicates have no view.
      if (isa<ViewOp>(user)
              ? !isByteWide(viewElement) || !isByteWide(elementType)
              : viewElement != elementType)
        return false;
      tileViews.push_back(user);
      if (!collectUses(user->getResult(0), block, viewElement, tileViews))
        return false;
    }
    return true;
  }

  static bool isByteWide(Type type) {
    return type.isIntOrFloat() && type.getIntOrFloatBitWidth() % 8 == 0;
  }

  static bool hasStaticLayout(MemRefType type) {
    SmallVector<int64_t> strides;
    int64_t offset;
    return type.hasStaticShape() &&
           succeeded(type.getStridesAndOffset(strides, offset)) &&
           !ShapedType::isDynamic(offset) &&
           llvm::none_of(strides, ShapedType::isDynamic);
  }

  SmallVector<memref::AllocaOp> tiles;
  SmallVector<Operation *> views;
  llvm::DenseMap<Value, memref::AllocaOp> owners;
  /// Per tile, its fragments by bit position.
  llvm::DenseMap<Operation *, std::map<int64_t, Value>> fragments;
};

constexpr int64_t kMaxInstructions = int64_t(1) << 24;

/// The repeats one apply issues. Usually one repeat shape that every
/// operand shares; for a form whose operands span named axes (an mma's m,
/// n and k), the letters and their extents, the reduction axes (those no
/// written operand spans: k) first, so that every instruction of one
/// reduction step precedes the step that reads its results and the
/// independent ones sit together.
struct RepeatSpace {
  /// One letter per axis; empty when the operands share one shape.
  std::string letters;
  SmallVector<int64_t> extents;
  /// The number of leading reduction axes.
  unsigned reductions = 0;

  int64_t size() const {
    int64_t total = 1;
    for (int64_t extent : extents) {
      if (extent == 0)
        return 0;
      total = total > kMaxInstructions / extent ? kMaxInstructions + 1
                                                : total * extent;
    }
    return total;
  }

  /// The repeat coordinate of an operand spanning `axes`, at `point` of the
  /// space; every axis when `axes` is empty.
  SmallVector<int64_t> project(StringRef axes, ArrayRef<int64_t> point) const {
    if (axes.empty() || letters.empty())
      return SmallVector<int64_t>(point);
    SmallVector<int64_t> coord;
    for (char letter : axes)
      coord.push_back(point[letters.find(letter)]);
    return coord;
  }

  /// Whether `point` is past the first step of the reduction axes.
  bool pastFirstReduction(ArrayRef<int64_t> point) const {
    return llvm::any_of(point.take_front(reductions),
                        [](int64_t c) { return c != 0; });
  }
};

RepeatSpace repeatSpaceOf(ApplyOp apply, const ptx::Form &form,
                          unsigned groupRank) {
  RepeatSpace space;
  bool named = llvm::any_of(
      form.operands, [](const ptx::Operand &o) { return !o.axes.empty(); });
  if (!named) {
    // A box (a TMA's shared tile) is one whole operand, not repeated.
    for (auto [arg, operand] : llvm::zip(apply.getArgs(), form.operands))
      if (auto type = dyn_cast<MemRefType>(arg.getType()); type && !operand.box) {
        llvm::append_range(space.extents,
                           type.getShape().drop_front(groupRank).drop_back());
        break;
      }
    return space;
  }
  std::string written, all;
  llvm::StringMap<int64_t> extents;
  for (auto [arg, operand] : llvm::zip(apply.getArgs(), form.operands)) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    for (auto [i, letter] : llvm::enumerate(operand.axes)) {
      if (all.find(letter) == std::string::npos)
        all += letter;
      if (operand.isWritten() && written.find(letter) == std::string::npos)
        written += letter;
      // The verifier proved every spanning operand agrees; a scalar spans
      // nothing.
      if (type)
        extents[StringRef(&letter, 1)] = type.getShape()[groupRank + i];
    }
  }
  for (char letter : all)
    if (written.find(letter) == std::string::npos)
      space.letters += letter;
  space.reductions = space.letters.size();
  for (char letter : all)
    if (written.find(letter) != std::string::npos)
      space.letters += letter;
  // An axis that only scalars span (a wgmma's k, when both descriptors are
  // scalar values) has one step: each scalar stands for every repeat.
  for (char letter : space.letters) {
    auto it = extents.find(StringRef(&letter, 1));
    space.extents.push_back(it == extents.end() ? 1 : it->second);
  }
  return space;
}

/// Emits the instructions of one tile.apply.
class ApplyExpander {
public:
  ApplyExpander(ApplyOp apply, ArrayRef<ptx::Form> forms,
                const ptx::Form &form, IndexPool &indices,
                RegisterValues &registers)
      : apply(apply), form(form), overload(&form - forms.data()),
        builder(apply), indices(indices), registers(registers) {
    // checkLimits rejected unknown scopes before any apply is expanded.
    groupRank = getScopeGroupShape(apply.getScope(), apply)->size();
    values.assign(apply.getArgs().begin(), apply.getArgs().end());
    // A predicate tile is read per repeat like a source, after the args.
    if (Value pred = apply.getPred(); pred && isa<MemRefType>(pred.getType()))
      values.push_back(pred);
    for (Value arg : values) {
      Tile &tile = tiles.emplace_back();
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        continue;
      tile.owner = registers.owner(arg);
      // A forwarded tile's layout is static (the analysis checked it).
      if (tile.owner)
        (void)type.getStridesAndOffset(tile.strides, tile.offset);
    }
  }

  void expand() {
    if (groupRank)
      groupCoordinates();
    RepeatSpace space = repeatSpaceOf(apply, form, groupRank);
    ArrayRef<int64_t> repeats = space.extents;
    // An empty repeat axis expands to nothing, next to however large an
    // axis: no index constants either (2^40 of them ran out of memory).
    int64_t total = space.size();
    if (total == 0)
      return;
    int64_t maxIndex = 1;
    for (int64_t extent : repeats)
      maxIndex = std::max(maxIndex, extent);
    for (const ptx::Operand &operand : form.operands)
      maxIndex = std::max<int64_t>(maxIndex, operand.count);
    indices.get(apply, maxIndex - 1);
    SmallVector<int64_t> point(repeats.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
      emitInstruction(space, point);
      for (int i = static_cast<int>(repeats.size()) - 1; i >= 0; --i) {
        if (++point[i] < repeats[i])
          break;
        point[i] = 0;
      }
    }
  }

private:
  /// How one operand's register slots are reached: forwarded values of
  /// `owner`, at the element `offset + sum(index * stride)`, or memory.
  struct Tile {
    memref::AllocaOp owner;
    SmallVector<int64_t> strides;
    int64_t offset = 0;
  };

  /// This thread's coordinates in the group: (lane) for warp, (warp % 4,
  /// lane) for warpgroup, (warp, lane) for cta, from the linear thread id.
  void groupCoordinates() {
    Location loc = apply.getLoc();
    auto id = [&](gpu::Dimension dim) -> Value {
      return gpu::ThreadIdOp::create(builder, loc, dim);
    };
    auto dim = [&](gpu::Dimension d) -> Value {
      return gpu::BlockDimOp::create(builder, loc, d);
    };
    Value tid = id(gpu::Dimension::x);
    Value bx = dim(gpu::Dimension::x);
    Value y = arith::MulIOp::create(builder, loc, id(gpu::Dimension::y), bx);
    Value bxy = arith::MulIOp::create(builder, loc, bx, dim(gpu::Dimension::y));
    Value z = arith::MulIOp::create(builder, loc, id(gpu::Dimension::z), bxy);
    tid = arith::AddIOp::create(builder, loc, tid, y);
    tid = arith::AddIOp::create(builder, loc, tid, z);
    Value c32 = arith::ConstantIndexOp::create(builder, loc, 32);
    Value lane = arith::RemUIOp::create(builder, loc, tid, c32);
    Value warp = arith::DivUIOp::create(builder, loc, tid, c32);
    if (apply.getScope() == "warpgroup") {
      Value c4 = arith::ConstantIndexOp::create(builder, loc, 4);
      warp = arith::RemUIOp::create(builder, loc, warp, c4);
    }
    if (groupRank == 2)
      memoryGroup.push_back(warp);
    memoryGroup.push_back(lane);
  }

  /// Indices of a slot. In a register tile a thread holds only its own
  /// group row, at group index 0 of its private storage; in memory the
  /// group axes select this thread's row.
  SmallVector<Value> slot(ArrayRef<int64_t> coord, int64_t reg,
                          bool memory = false) {
    SmallVector<Value> result;
    for (unsigned axis = 0; axis < groupRank; ++axis)
      result.push_back(memory ? memoryGroup[axis] : indices.get(apply, 0));
    for (int64_t c : coord)
      result.push_back(indices.get(apply, c));
    result.push_back(indices.get(apply, reg));
    return result;
  }

  /// The element a forwarded tile's slot is, counted from its allocation:
  /// the group indices are 0 (see slot()).
  int64_t element(const Tile &tile, ArrayRef<int64_t> coord, int64_t reg) {
    int64_t result = tile.offset + reg * tile.strides.back();
    for (auto [c, stride] :
         llvm::zip_equal(coord, ArrayRef(tile.strides).drop_front(groupRank)
                                    .drop_back()))
      result += c * stride;
    return result;
  }

  Value readSlot(unsigned arg, ArrayRef<int64_t> coord, int64_t reg) {
    Value value = values[arg];
    const Tile &tile = tiles[arg];
    auto type = cast<MemRefType>(value.getType());
    if (tile.owner)
      return registers.read(builder, apply.getLoc(), tile.owner,
                            element(tile, coord, reg) * bitsOf(type),
                            type.getElementType());
    return memref::LoadOp::create(builder, apply.getLoc(), value,
                                  slot(coord, reg), /*nontemporal=*/false,
                                  naturalAlignment(type));
  }

  /// The 64-bit address of `memref`'s element at `indices`: its aligned
  /// pointer plus (offset + sum(index * stride)) elements.
  Value elementAddress(Value memref, ArrayRef<Value> indices) {
    Location loc = apply.getLoc();
    auto type = cast<MemRefType>(memref.getType());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, memref);
    Value linear = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
      linear = arith::AddIOp::create(
          builder, loc, linear,
          arith::MulIOp::create(builder, loc, index, stride));
    Value bytes = arith::MulIOp::create(
        builder, loc, linear,
        arith::ConstantIndexOp::create(
            builder, loc, type.getElementType().getIntOrFloatBitWidth() / 8));
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
    Value address = arith::AddIOp::create(builder, loc, base, bytes);
    return arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                      address);
  }

  static int64_t bitsOf(MemRefType type) {
    return type.getElementType().getIntOrFloatBitWidth();
  }

  /// Each slot is aligned to its element's size (tile-local-allocas aligns
  /// the storage). Said explicitly, because MLIR translates an access
  /// without an alignment with LLVM's default data layout, where an i64 is
  /// 4-aligned: NVPTX then split each 64-bit slot access into two
  /// st.local.b32 of a 64-bit register, which ptxas (CUDA 13.0) assembles
  /// wrongly (tools/difftest seed 3008981 on the H200).
  static llvm::MaybeAlign naturalAlignment(MemRefType type) {
    unsigned bits = type.getElementType().isIntOrFloat()
                        ? type.getElementType().getIntOrFloatBitWidth()
                        : 8;
    return llvm::Align(std::max(1u, bits / 8));
  }

  void writeSlot(unsigned arg, ArrayRef<int64_t> coord, int64_t reg,
                 Value result) {
    Value value = values[arg];
    const Tile &tile = tiles[arg];
    if (tile.owner)
      return registers.write(
          builder, apply.getLoc(), tile.owner,
          element(tile, coord, reg) * bitsOf(cast<MemRefType>(value.getType())),
          result);
    memref::StoreOp::create(builder, apply.getLoc(), result, value,
                            slot(coord, reg), /*nontemporal=*/false,
                            naturalAlignment(cast<MemRefType>(value.getType())));
  }

  /// The instruction at `point` of the repeat space. An accumulator input
  /// (mma's C) past the first reduction step reads the destination, which
  /// the previous step wrote.
  void emitInstruction(const RepeatSpace &space, ArrayRef<int64_t> point) {
    SmallVector<Value> inputs, keep;
    SmallVector<Type> resultTypes;
    Value memref;
    SmallVector<Value> memIndices;
    std::optional<unsigned> written;
    for (auto [arg, operand] : llvm::enumerate(form.operands))
      if (operand.isWritten() && !written)
        written = arg;
    for (auto [arg, value, operand] :
         llvm::enumerate(apply.getArgs(), form.operands)) {
      SmallVector<int64_t> coord = space.project(operand.axes, point);
      if (operand.box) {
        // The box starts at the tile's first element.
        memref = value;
        memIndices.assign(cast<MemRefType>(value.getType()).getRank(),
                          indices.get(apply, 0));
        continue;
      }
      if (operand.isMemory() && memref) {
        // A second memory operand (cp.async's source): its address.
        inputs.push_back(
            elementAddress(value, slot(coord, 0, /*memory=*/true)));
        continue;
      }
      if (operand.isMemory()) {
        memref = value;
        memIndices = slot(coord, 0, /*memory=*/true);
        continue;
      }
      // A scalar (a broadcast source, an immediate) is read as it is.
      auto tile = dyn_cast<MemRefType>(value.getType());
      if (operand.isRead() && !tile) {
        inputs.push_back(value);
        continue;
      }
      unsigned source = operand.accumulator && written &&
                                space.pastFirstReduction(point)
                            ? *written
                            : arg;
      for (unsigned reg = 0; reg < operand.count; ++reg) {
        if (operand.isRead())
          inputs.push_back(readSlot(source, coord, reg));
        if (!operand.isWritten())
          continue;
        resultTypes.push_back(tile.getElementType());
        if (apply.getPreserveDst() && operand.role == ptx::Role::Dst)
          keep.push_back(readSlot(arg, coord, reg));
      }
    }
    Value pred = apply.getPred();
    if (values.size() > apply.getArgs().size())
      pred = readSlot(values.size() - 1, space.project("", point), 0);
    auto instr = InstrOp::create(builder, apply.getLoc(), resultTypes,
                                 apply.getOpcodeAttr(), inputs, memref,
                                 memIndices, pred, keep, overload);
    unsigned result = 0;
    for (auto [arg, operand] : llvm::enumerate(form.operands)) {
      if (!operand.isWritten())
        continue;
      SmallVector<int64_t> coord = space.project(operand.axes, point);
      for (unsigned reg = 0; reg < operand.count; ++reg)
        writeSlot(arg, coord, reg, instr.getResult(result++));
    }
  }

  ApplyOp apply;
  /// The args, then the predicate tile if there is one.
  SmallVector<Value> values;
  const ptx::Form &form;
  /// The position of `form` among its opcode's forms, for tile.instr.
  int32_t overload;
  OpBuilder builder;
  IndexPool &indices;
  RegisterValues &registers;
  unsigned groupRank = 0;
  SmallVector<Value> memoryGroup;
  SmallVector<Tile> tiles;
};


struct TileExpandPass : public tile::impl::TileExpandBase<TileExpandPass> {
  /// Checks every apply before any is expanded. Expansion is linear in the
  /// repeats; past kMaxInstructions per apply or per function the input is
  /// a mistake, not a kernel (LLVM could not compile it), so it fails fast
  /// instead of exhausting memory.
  static LogicalResult checkLimits(ArrayRef<Operation *> work) {
    llvm::DenseMap<Operation *, int64_t> perFunction;
    for (Operation *op : work) {
      auto apply = dyn_cast<ApplyOp>(op);
      if (!apply)
        continue;
      std::string error;
      if (ptx::lookupForms(apply.getOpcode(), error).empty())
        return apply.emitOpError() << error;
      // The verifier rejects an unknown scope, but the pass may be run on
      // IR that was never verified.
      std::optional<SmallVector<int64_t>> group =
          getScopeGroupShape(apply.getScope(), apply);
      if (!group)
        return apply.emitOpError() << "scope \"" << apply.getScope()
                                   << "\" is not supported";
      const ptx::Form &form = selectForm(
          ptx::lookupForms(apply.getOpcode(), error), apply.getArgs());
      // Saturated past kMaxInstructions.
      int64_t instructions =
          repeatSpaceOf(apply, form, group->size()).size();
      if (instructions > kMaxInstructions)
        return apply.emitOpError()
               << "expands to more than " << kMaxInstructions
               << " instructions per thread, the limit of --tile-expand";
      int64_t &total = perFunction[apply->getParentWithTrait<
          OpTrait::IsIsolatedFromAbove>()];
      total += instructions;
      if (total > kMaxInstructions)
        return apply.emitOpError()
               << "brings its function past " << kMaxInstructions
               << " instructions per thread, the limit of --tile-expand for "
                  "one kernel";
    }
    return success();
  }

  void runOnOperation() override {
    RegisterValues registers(getOperation());
    // Program order within a block: a forwarded tile's accesses all sit in
    // its allocation's block.
    SmallVector<Operation *> work;
    getOperation()->walk([&](Operation *op) {
      Value memref;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        memref = load.getMemRef();
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        memref = store.getMemRef();
      if (isa<ApplyOp>(op) || (memref && registers.owner(memref)))
        work.push_back(op);
    });
    if (failed(checkLimits(work)))
      return signalPassFailure();
    IndexPool indices;
    for (Operation *op : work) {
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        memref::AllocaOp tile = registers.owner(load.getMemRef());
        OpBuilder builder(load);
        int64_t element =
            *getStaticElementOffset(load.getMemRefType(), load.getIndices());
        load.replaceAllUsesWith(registers.read(
            builder, load.getLoc(), tile,
            element * load.getType().getIntOrFloatBitWidth(), load.getType()));
        load.erase();
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        OpBuilder builder(store);
        Value value = store.getValueToStore();
        int64_t element =
            *getStaticElementOffset(store.getMemRefType(), store.getIndices());
        registers.write(builder, store.getLoc(),
                        registers.owner(store.getMemRef()),
                        element * value.getType().getIntOrFloatBitWidth(),
                        value);
        store.erase();
        continue;
      }
      auto apply = cast<ApplyOp>(op);
      std::string error;
      ArrayRef<ptx::Form> forms = ptx::lookupForms(apply.getOpcode(), error);
      const ptx::Form &form = selectForm(forms, apply.getArgs());
      // Once per apply, here rather than in the verifier, which runs after
      // every pass.
      if (!form.caveat.empty())
        apply.emitWarning() << form.caveat;
      ApplyExpander(apply, forms, form, indices, registers).expand();
      apply.erase();
    }
    registers.eraseTiles();
    if (failed(widenPredicateStorage(getOperation())))
      signalPassFailure();
  }
};

} // namespace
