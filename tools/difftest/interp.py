"""A reference interpreter for tile kernels, written from the spec and the
PTX ISA rather than from the lowering.

It reads the kernel as the front end builds it (tile.apply over memrefs,
before --tile-expand) and executes it for every thread of the launch at
once, in numpy: each index is an array with one value per thread, each
register tile a byte array per thread, each global tensor one byte array.
Instructions run in program order for all threads; generated kernels make
no thread read what another writes, so lockstep is the PTX semantics.

Arithmetic comes from tools/conformance/reference.py, the one place its
semantics live. Every byte carries a defined bit: a register read before it
is written, a destination whose predicate is false without preserve_dst,
and bytes two threads store in one instruction are undefined, and so is
every result computed from them. Only defined output bytes are compared.

    from interp import run
    outputs, defined = run(gpu_func_op, {"A": a_bytes, ...}, grid, block)
"""

from __future__ import annotations

import itertools
import os
import sys
from types import SimpleNamespace

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
import reference as R  # noqa: E402


def element_bytes(bits):
    """Bytes of one element: a predicate (i1) takes one."""
    return max(bits, 8) // 8


class NotCovered(Exception):
    """The kernel uses something the interpreter does not model."""


class Buffer:
    """Bytes and their defined bits: shape (threads, n) when private to each
    thread (a register tile), (n,) when shared (a global tensor). `nan`
    marks the bytes of a register whose value is a NaN an instruction made:
    PTX leaves its payload to the chip, so it compares as "a NaN" where it
    is stored, and what is computed from its bits is not compared."""

    def __init__(self, data, defined, private):
        self.data, self.defined, self.private = data, defined, private
        self.nan = np.zeros_like(defined)


class View:
    """A memref value: a buffer, a byte offset per thread, byte strides, a
    shape and an element width in bits."""

    def __init__(self, buffer, offset, strides, shape, bits):
        self.buffer, self.offset, self.strides, self.shape, self.bits = buffer, offset, strides, shape, bits

    def addresses(self, coord):
        """The byte address of element `coord` for every thread."""
        return self.offset + sum(c * s for c, s in zip(coord, self.strides))


def _mask_bits(bits):
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)


class Interpreter:
    def __init__(self, threads, grid, block):
        self.threads = threads
        self.grid, self.block = grid, block
        linear = np.arange(threads)
        per_block = block[0] * block[1] * block[2]
        self.block_linear, thread_linear = linear // per_block, linear % per_block
        self.tid = (thread_linear % block[0], thread_linear // block[0] % block[1],
                    thread_linear // (block[0] * block[1]))
        self.bid = (self.block_linear % grid[0], self.block_linear // grid[0] % grid[1],
                    self.block_linear // (grid[0] * grid[1]))
        self.values = {}
        self.active = np.ones(threads, bool)
        self.lanes = np.arange(threads)

    # -- memory ----------------------------------------------------------
    def read(self, view, coord):
        """(bits, defined, nan) of one element for every thread."""
        nbytes = element_bytes(view.bits)
        address = view.addresses(coord)
        value = np.zeros(self.threads, np.uint64)
        defined = np.ones(self.threads, bool)
        nan = np.zeros(self.threads, bool)
        buffer = view.buffer
        for byte in range(nbytes):
            at = address + byte
            if buffer.private:
                b, d, n = buffer.data[self.lanes, at], buffer.defined[self.lanes, at], buffer.nan[self.lanes, at]
            else:
                b, d, n = buffer.data[at], buffer.defined[at], buffer.nan[at]
            value |= b.astype(np.uint64) << np.uint64(8 * byte)
            defined &= d
            nan |= n
        return value, defined, nan

    def write(self, view, coord, value, defined, where, nan=None):
        nbytes = element_bytes(view.bits)
        address = view.addresses(coord)[where]
        value, defined = value[where], defined[where]
        nan = np.zeros(value.size, bool) if nan is None else nan[where]
        buffer = view.buffer
        lanes = self.lanes[where]
        for byte in range(nbytes):
            at = address + byte
            part = ((value >> np.uint64(8 * byte)) & np.uint64(0xFF)).astype(np.uint8)
            if buffer.private:
                buffer.data[lanes, at] = part
                buffer.defined[lanes, at] = defined
                buffer.nan[lanes, at] = nan
            else:
                # Two threads storing one byte in one instruction: which wins
                # is not defined.
                unique, counts = np.unique(at, return_counts=True)
                buffer.data[at] = part
                buffer.defined[at] = defined
                buffer.nan[at] = nan
                buffer.defined[unique[counts > 1]] = False

    # -- values ----------------------------------------------------------
    def index(self, value):
        return self.values[value]

    def run_block(self, block):
        for op in block.operations:
            self.run_op(op.operation)

    def run_op(self, op):
        name = op.name
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        if handler is None:
            raise NotCovered(name)
        handler(op)

    def op_gpu_thread_id(self, op):
        self.values[op.results[0]] = self.tid["xyz".index(str(op.attributes["dimension"])[-2])]

    def op_gpu_block_id(self, op):
        self.values[op.results[0]] = self.bid["xyz".index(str(op.attributes["dimension"])[-2])]

    def op_gpu_block_dim(self, op):
        dim = "xyz".index(str(op.attributes["dimension"])[-2])
        self.values[op.results[0]] = np.full(self.threads, self.block[dim], np.int64)

    def op_gpu_return(self, op):
        pass

    def op_scf_yield(self, op):
        pass

    def op_arith_constant(self, op):
        from mlir import ir
        attr = op.attributes["value"]
        result = op.results[0]
        if isinstance(result.type, ir.IndexType):
            self.values[result] = np.full(self.threads, ir.IntegerAttr(attr).value, np.int64)
        elif isinstance(result.type, ir.IntegerType):
            width = ir.IntegerType(result.type).width
            bits = ir.IntegerAttr(attr).value & ((1 << width) - 1)
            if width == 1:
                self.values[result] = np.full(self.threads, bool(bits))
            else:
                self.values[result] = (np.full(self.threads, bits, np.uint64), width)
        elif str(attr).startswith("0x"):
            # A float constant written as bits (a NaN with its payload).
            width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[str(result.type)]
            self.values[result] = (np.full(self.threads, int(str(attr).split()[0], 16), np.uint64), width)
        else:
            number = ir.FloatAttr(attr).value
            kind = str(result.type)
            encoded = {"f16": lambda v: int(np.float16(v).view(np.uint16)),
                       "f32": lambda v: int(np.float32(v).view(np.uint32)),
                       "f64": lambda v: int(np.float64(v).view(np.uint64)),
                       "bf16": lambda v: int(np.float32(v).view(np.uint32)) >> 16}[kind](number)
            width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[kind]
            self.values[result] = (np.full(self.threads, encoded, np.uint64), width)

    def _binary(self, op, fn):
        a, b = self.values[op.operands[0]], self.values[op.operands[1]]
        self.values[op.results[0]] = fn(a, b)

    def op_arith_addi(self, op):
        self._binary(op, lambda a, b: a + b)

    def op_arith_subi(self, op):
        self._binary(op, lambda a, b: a - b)

    def op_arith_muli(self, op):
        self._binary(op, lambda a, b: a * b)

    def op_arith_andi(self, op):
        self._binary(op, lambda a, b: a & b)

    def op_arith_ori(self, op):
        self._binary(op, lambda a, b: a | b)

    def op_arith_xori(self, op):
        self._binary(op, lambda a, b: a ^ b)

    @staticmethod
    def _signed(value):
        """An index array as it is; an integer's bits as signed int64."""
        if isinstance(value, tuple):
            bits, width = value
            bits = bits.astype(np.int64) if width == 64 else bits.astype(np.int64) & ((1 << width) - 1)
            if width < 64:
                bits = np.where(bits >= 1 << (width - 1), bits - (1 << width), bits)
            return bits
        return value

    def _cast_index(self, op, signed):
        # index -> iN truncates to N bits; iN -> index extends (signed or
        # not). T.serial's 32-bit counters and T.uint32(t) both pass here.
        from mlir import ir
        source, result = self.values[op.operands[0]], op.results[0]
        if isinstance(result.type, ir.IntegerType):
            width = ir.IntegerType(result.type).width
            self.values[result] = (self._signed(source).astype(np.uint64) & _mask_bits(width), width)
        elif signed or not isinstance(source, tuple):
            self.values[result] = self._signed(source)
        else:
            self.values[result] = source[0].astype(np.int64)

    def op_arith_index_cast(self, op):
        self._cast_index(op, True)

    def op_arith_index_castui(self, op):
        self._cast_index(op, False)

    def _index_binary(self, op, fn):
        a, b = (self._signed(self.values[v]) for v in op.operands)
        self.values[op.results[0]] = fn(a, b)

    # Index division and shifts of the front end's index expressions (only
    # on index values, 64 bits): Python's // on int64 arrays is floor
    # division; the unsigned forms are used on values proven >= 0.
    def op_arith_floordivsi(self, op):
        self._index_binary(op, lambda a, b: a // b)

    def op_arith_divui(self, op):
        self._index_binary(op, lambda a, b: (a.astype(np.uint64) // b.astype(np.uint64)).astype(np.int64))

    def op_arith_remui(self, op):
        self._index_binary(op, lambda a, b: (a.astype(np.uint64) % b.astype(np.uint64)).astype(np.int64))

    def op_arith_maxsi(self, op):
        a, b = (self._signed(self.values[v]) for v in op.operands)
        self.values[op.results[0]] = np.maximum(a, b)

    def op_arith_cmpi(self, op):
        predicate = str(op.attributes["predicate"])
        number = int(predicate.split(":")[0]) if ":" in predicate else int(predicate)
        compare = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
                   5: np.greater_equal}
        if number not in compare:
            raise NotCovered(f"arith.cmpi predicate {number}")
        self._binary(op, compare[number])

    # -- memrefs ---------------------------------------------------------
    @staticmethod
    def _layout(memref_type):
        from mlir import ir
        memref_type = ir.MemRefType(memref_type)
        strides, offset = memref_type.get_strides_and_offset()
        bits = memref_type.element_type.width
        if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for s in strides):
            raise NotCovered("dynamic strides")
        # A predicate (i1) takes a byte, as a register element.
        return list(memref_type.shape), [s * element_bytes(bits) for s in strides], bits

    def op_memref_alloca(self, op):
        shape, strides, bits = self._layout(op.results[0].type)
        size = int(np.prod(shape, dtype=np.int64)) * element_bytes(bits)
        # A group tile (tile.scope) is private storage too: each thread
        # addresses only its own group row of it.
        buffer = Buffer(np.zeros((self.threads, size), np.uint8), np.zeros((self.threads, size), bool), True)
        self.values[op.results[0]] = View(buffer, np.zeros(self.threads, np.int64), strides, shape, bits)

    def op_memref_subview(self, op):
        from mlir import ir
        source = self.values[op.operands[0]]
        shape, strides, bits = self._layout(op.results[0].type)
        static = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        dynamic = iter(op.operands[1:])
        offset = source.offset.copy()
        for value, stride in zip(static, source.strides):
            if value == ir.ShapedType.get_dynamic_stride_or_offset():
                offset = offset + self.values[next(dynamic)] * stride
            else:
                offset = offset + value * stride
        self.values[op.results[0]] = View(source.buffer, offset, strides, shape, bits)

    def _same_offset(self, op):
        source = self.values[op.operands[0]]
        shape, strides, bits = self._layout(op.results[0].type)
        self.values[op.results[0]] = View(source.buffer, source.offset, strides, shape, bits)

    op_memref_expand_shape = _same_offset
    op_memref_collapse_shape = _same_offset
    op_tile_view = _same_offset
    op_tile_broadcast = _same_offset

    # -- control flow ----------------------------------------------------
    def op_scf_for(self, op):
        # Index or 32-bit bounds (unsignedCmp: T.serial proves them in [0,
        # 2^31)), all as int64 arrays.
        lower, upper, step = (self._signed(self.values[v]) for v in op.operands[:3])
        if len(op.operands) > 3:
            raise NotCovered("scf.for with iteration arguments")
        body = op.regions[0].blocks[0]
        outer = self.active
        iv = lower.copy()
        # unsignedCmp: the counter and the stop compare unsigned, so a last
        # step past 2^63 - 1 ends the loop instead of wrapping below stop.
        unsigned = "unsignedCmp" in op.attributes
        while True:
            below = iv.astype(np.uint64) < upper.astype(np.uint64) if unsigned else iv < upper
            self.active = outer & below
            if not self.active.any():
                break
            self.values[body.arguments[0]] = iv.copy()
            self.run_block(body)
            iv = iv + step
        self.active = outer

    def op_scf_if(self, op):
        condition = self.values[op.operands[0]]
        outer = self.active
        self.active = outer & condition
        self.run_block(op.regions[0].blocks[0])
        if len(op.regions) > 1 and op.regions[1].blocks:
            self.active = outer & ~condition
            self.run_block(op.regions[1].blocks[0])
        self.active = outer

    # -- instructions ----------------------------------------------------
    def op_tile_apply(self, op):
        from mlir import ir
        from tile_mlir import ptx
        opcode = ir.StringAttr(op.attributes["opcode"]).value
        scope = ir.StringAttr(op.attributes["scope"]).value if "scope" in op.attributes else "thread"
        group = self.group_coordinates(scope)
        preserve = "preserve_dst" in op.attributes
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        args = list(op.operands[:segments[0]])
        pred = self.values[op.operands[segments[0]]] if segments[1] else np.ones(self.threads, bool)
        values = [self.values[a] for a in args]
        form = select_form(ptx.overloads(opcode), values)
        repeats = next((v.shape[len(group):-1] for v in values if isinstance(v, View)), [])
        for coord in itertools.product(*[range(n) for n in repeats]):
            coord = group + list(coord)
            if isinstance(pred, View):
                # A predicate tile: one register per repeat. One never
                # written leaves what it guards undefined.
                bits, known, _ = self.read(pred, coord + [0])
                self.instruction(form, values, coord, self.active & (bits != 0), preserve, known)
            else:
                self.instruction(form, values, coord, self.active & pred, preserve)

    def group_coordinates(self, scope):
        """This thread's row of each group axis (docs/scopes.md): (lane) for
        a warp, (warp % 4, lane) for a warpgroup, (warp, lane) for a cta."""
        linear = self.tid[0] + self.tid[1] * self.block[0] + self.tid[2] * self.block[0] * self.block[1]
        lane, warp = linear % 32, linear // 32
        return {"thread": [], "warp": [lane], "warpgroup": [warp % 4, lane], "cta": [warp, lane]}[scope]

    def instruction(self, form, values, coord, execute, preserve, pred_defined=None):
        srcs, defined = [], np.ones(self.threads, bool)
        immediates = {}
        nan = np.zeros(self.threads, bool)
        memory = None
        for operand, value in zip(form.operands, values):
            if operand.space != "reg":
                memory = (operand, value)
                if operand.role == "src":  # ld: the registers come from memory
                    for reg in range(operand.count):
                        bits, d, n = self.read(value, coord + [reg])
                        srcs.append(bits)
                        defined &= d
                        nan |= n
                continue
            if operand.role == "imm":
                immediates[len(immediates)] = int(value[0][0])
                continue
            if operand.role != "src":
                continue
            dtype = R.UINT[max(operand.bits, 8)]
            if isinstance(value, View):
                for reg in range(operand.count):
                    bits, d, n = self.read(value, coord + [reg])
                    srcs.append((bits & _mask_bits(operand.bits)).astype(dtype))
                    defined &= d
                    nan |= n
            elif isinstance(value, tuple):
                srcs.append((value[0] & _mask_bits(operand.bits)).astype(dtype))
            else:
                raise NotCovered("an index as an instruction operand")
        if any(o.bits > 64 for o in form.operands):
            raise NotCovered("128-bit registers")
        moves = form.family in ("ld", "st", "mov")
        if moves:
            # A move keeps a NaN's bits, whatever they are.
            results = repack([s.astype(np.uint64) for s in srcs], form)
            made_nan = [nan] * len(results)
        else:
            with np.errstate(all="ignore"):
                out = R.reference(SimpleNamespace(opcode=form.opcode, family=form.family,
                                                  operands=form.operands, immediates=immediates), srcs)
            if isinstance(out, R.Partial):  # unspecified where the ISA says so
                defined = defined & out.defined.reshape(defined.shape)
                out = out.values
            results = [np.asarray(out).astype(np.uint64)]
            # Bits computed from a NaN of unknown payload are unknown.
            defined = defined & ~nan
            made_nan = [is_nan(results[0], result_type(form))]
        if pred_defined is not None:
            # Where the predicate register is undefined, the instruction may
            # or may not have run: what it would write is undefined.
            defined = defined & pred_defined
            execute = execute | (self.active & ~pred_defined)
        if form.family == "st":
            operand, view = memory
            for reg, bits in enumerate(results):
                self.write(view, coord + [reg], bits, defined, execute, made_nan[reg])
            return
        dsts = [(operand, value) for operand, value in zip(form.operands, values)
                if operand.role == "dst" and operand.space == "reg"]
        flat = [(operand, value, reg) for operand, value in dsts for reg in range(operand.count)]
        if len(flat) != len(results):
            raise NotCovered(f"{form.opcode}: {len(results)} results for {len(flat)} registers")
        for (operand, view, reg), bits, made in zip(flat, results, made_nan):
            where = self.active.copy()
            if preserve:
                where &= execute  # a false predicate keeps the old value
                self.write(view, coord + [reg], bits & _mask_bits(operand.bits), defined, where, made)
            else:
                # A false predicate leaves the destination undefined.
                self.write(view, coord + [reg], bits & _mask_bits(operand.bits), defined & execute, where, made)


def repack(registers, form):
    """A mov's source registers as its destination registers: mov.b32 d,
    {a, b} joins a (the low bits) and b; mov.b32 {a, b}, d splits d."""
    dst = next((o for o in form.operands if o.role == "dst" and o.space == "reg"), None)
    if form.family != "mov" or dst is None or dst.count == len(registers):
        return registers
    src = next(o for o in form.operands if o.role == "src")
    if dst.count == 1:
        return [sum((r & np.uint64(_mask_bits(src.bits))) << np.uint64(k * src.bits)
                    for k, r in enumerate(registers))]
    return [(registers[0] >> np.uint64(k * dst.bits)) & np.uint64(_mask_bits(dst.bits))
            for k in range(dst.count)]


_NAN_FORMATS = {"f16": (16, 5, 10), "bf16": (16, 8, 7), "f32": (32, 8, 23), "f64": (64, 11, 52),
                "tf32": (32, 8, 23), "e5m2": (8, 5, 2)}


def is_nan(bits, ptx_type):
    """Whether any float lane of registers of `ptx_type` is a NaN (e4m3's
    only NaNs are 0x7f and 0xff)."""
    lane_type, lanes = ptx_type, 1
    if ptx_type in R.LANES:
        lane_type, _, lanes = R.LANES[ptx_type]
    bits = bits.astype(np.uint64)
    result = np.zeros(bits.shape, bool)
    if lane_type == "e4m3":
        for k in range(lanes):
            result |= (bits >> np.uint64(8 * k)) & np.uint64(0x7F) == np.uint64(0x7F)
        return result
    if lane_type not in _NAN_FORMATS:
        return result
    width, exp_bits, man_bits = _NAN_FORMATS[lane_type]
    for k in range(lanes):
        lane = bits >> np.uint64(width * k)
        exponent = (lane >> np.uint64(man_bits)) & np.uint64((1 << exp_bits) - 1)
        mantissa = lane & np.uint64((1 << man_bits) - 1)
        result |= (exponent == np.uint64((1 << exp_bits) - 1)) & (mantissa != 0)
    return result


def result_type(form):
    """The numeric type of a form's result: a cvt's is its destination type
    token (tf32 sits in a b32 register), any other's its dst operand's."""
    if form.family == "cvt":
        tokens = [t for t in form.opcode.split(".")[1:]
                  if t in R.FORMATS or t in R.LANES or t in R.INT_TYPES or t == "tf32"]
        if tokens:
            return tokens[0]
    return next(o.type for o in form.operands if o.role == "dst")


def select_form(forms, values):
    """The overload whose register counts and widths the operands match (the
    spec's rule: the final axis counts one instruction's registers)."""
    for form in forms:
        if len(form.operands) != len(values):
            continue
        fits = True
        for operand, value in zip(form.operands, values):
            if isinstance(value, View):
                fits &= value.shape[-1] == operand.count and value.bits == operand.bits
            elif isinstance(value, tuple):
                fits &= operand.count == 1 and value[1] == operand.bits
            else:
                fits = False
        if fits:
            return form
    return forms[0]


def run(func, inputs, grid, block, aliases=None):
    """Runs the gpu.func `func` on `inputs` ({param name: bytes}, in
    parameter order) and returns {name: (bytes, defined)}. `aliases` maps a
    parameter to an earlier one passed the same array: they share a buffer."""
    threads = int(np.prod(grid)) * int(np.prod(block))
    interp = Interpreter(threads, grid, block)
    body = func.regions[0].blocks[0]
    buffers = {}
    aliases = aliases or {}
    for argument, (name, data) in zip(body.arguments, inputs.items()):
        if name in aliases:
            buffer = buffers[name] = buffers[aliases[name]]
        else:
            data = np.frombuffer(data, np.uint8).copy()
            buffer = buffers[name] = Buffer(data, np.ones(data.size, bool), False)
        shape, strides, bits = Interpreter._layout(argument.type)
        interp.values[argument] = View(buffer, np.zeros(threads, np.int64), strides, shape, bits)
    # Workgroup attributions follow the parameters: shared memory, one copy
    # per block, uninitialized.
    for argument in list(body.arguments)[len(inputs):]:
        shape, strides, bits = Interpreter._layout(argument.type)
        size = int(np.prod(shape, dtype=np.int64)) * element_bytes(bits)
        blocks = int(np.prod(grid))
        buffer = Buffer(np.zeros(blocks * size, np.uint8), np.zeros(blocks * size, bool), False)
        interp.values[argument] = View(buffer, interp.block_linear * size, strides, shape, bits)
    interp.run_block(body)
    return {name: (b.data, b.defined) for name, b in buffers.items()}
