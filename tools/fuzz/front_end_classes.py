#!/usr/bin/env python3
"""The front-end classes of tools/fuzz (issue 25), each with an oracle taken
from the rule, not from the compiler. Run by fuzz.py in a subprocess (an
abort must not end the fuzzer); alone:

    python tools/fuzz/front_end_classes.py SEED COUNT

prints one JSON line: {"inputs": n, "findings": [...]}.

- ewise: constant expressions over int32 (+ - * // % << >> & | ^, ==, <,
  T.where, casts of float constants, among them 0, -1, the minimum, inf,
  nan, 3e9) either raise TileError or compile to a kernel whose stored
  constant is Python's value under docs/families/ewise.md's rules;
- cross-kernel: a value of one kernel used in another raises TileError;
- reshape chains: slices, same-width views and reshapes of a register tile,
  stored through the chain, equal numpy's slicing and reshaping of the
  same data (the reference interpreter runs the kernel);
- cache entries: a damaged or foreign entry never changes what compile
  returns.
"""


import json
import os
import random
import re
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "difftest"))
sys.path.append(os.path.join(HERE, "..", "..", "python"))  # after an installed tile_mlir

import tile_mlir  # noqa: E402
from tile_mlir import script as T  # noqa: E402

INT_MIN, INT_MAX = -2**31, 2**31 - 1


def wrap(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


# -- ewise: constant expressions against Python ------------------------------

class Undefined(Exception):
    """The documented rules reject this expression (a TileError is due)."""


def saturate(x: float) -> int:
    if x != x:
        return 0
    if x >= 2**31:
        return INT_MAX
    if x < -2**31:
        return INT_MIN
    return int(x)


def random_tree(rng, depth=0):
    """An int32 expression of constants: ("int", v), ("cast", f), or an
    operation over subtrees."""
    if depth > 3 or rng.random() < 0.3:
        if rng.random() < 0.7:
            return ("int", rng.choice([0, 1, -1, 2, 3, 7, 31, 32, INT_MIN, INT_MAX,
                                       rng.randint(INT_MIN, INT_MAX)]))
        return ("cast", rng.choice([0.0, -2.75, 3e9, -3e9, float("inf"), float("-inf"), float("nan"),
                                    2147483520.0, 1e10]))
    op = rng.choice(["+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^", "where", "neg", "~"])
    if op in ("neg", "~"):
        return (op, random_tree(rng, depth + 1))
    if op == "where":
        return (op, rng.choice(["==", "!=", "<", ">="]),
                *(random_tree(rng, depth + 1) for _ in range(3)))
    return (op, random_tree(rng, depth + 1), random_tree(rng, depth + 1))


def render(tree) -> str:
    kind = tree[0]
    if kind == "int":
        return f"T.int32({tree[1]})"
    if kind == "cast":
        return f"T.cast(T.float32(float('{tree[1]!r}')), 'int32')"
    if kind == "neg":
        return f"(-{render(tree[1])})"
    if kind == "~":
        return f"(~{render(tree[1])})"
    if kind == "where":
        _, cmp, a, b, c = tree
        return f"T.where({render(a)} {cmp} {render(b)}, {render(c)}, {render(a)})"
    return f"({render(tree[1])} {kind} {render(tree[2])})"


def evaluate(tree) -> int:
    """The value docs/families/ewise.md defines; Undefined where the front
    end must reject (a literal zero divisor, a literal shift past 31)."""
    kind = tree[0]
    if kind == "int":
        return tree[1]
    if kind == "cast":
        return saturate(float(np.float32(tree[1])))
    if kind == "neg":
        return wrap(-evaluate(tree[1]))
    if kind == "~":
        return ~evaluate(tree[1])
    if kind == "where":
        # Both branches are traced (a select): a literal undefined case in
        # the one not taken is still an error.
        _, cmp, a, b, c = tree
        x, y, z = evaluate(a), evaluate(b), evaluate(c)
        holds = {"==": x == y, "!=": x != y, "<": x < y, ">=": x >= y}[cmp]
        return z if holds else x
    a, b = evaluate(tree[1]), evaluate(tree[2])
    literal = tree[2][0] == "int"
    if kind in ("//", "%"):
        if b == 0:
            if literal:
                raise Undefined
            q = -1
        else:
            q = wrap(a // b)
        return q if kind == "//" else wrap(a - q * b)
    if kind in ("<<", ">>"):
        if literal and not 0 <= b < 32:
            raise Undefined
        inside = 0 <= b < 32  # a runtime amount is read unsigned
        if kind == "<<":
            return wrap(a << b) if inside else 0
        return a >> b if inside else a >> 31
    return wrap({"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[kind])


def check_ewise(rng):
    return check_ewise_tree(random_tree(rng))


def check_ewise_tree(tree):
    """A finding if the front end's verdict on `tree` is not the oracle's,
    else None."""
    text = render(tree)
    try:
        value = evaluate(tree)
    except Undefined:
        value = Undefined
    source = f"lambda: {text}"
    try:
        @T.function
        def k(Out: T.Tensor((1, 1), "int32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            r = T.alloc_local((1, 1), "int32")
            T.ewise(lambda: eval(text, {"T": T}), r)
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out, r)
        ptx = tile_mlir.compile(k, cache=False, cubin=False).ptx
    except T.TileError as error:
        if value is Undefined:
            return None
        return {"kind": "ewise rejected a defined expression", "input": source, "output": str(error)[-300:]}
    if value is Undefined:
        return {"kind": "ewise accepted an undefined expression", "input": source}
    stored = re.findall(r"mov\.b32\s+%r\d+,\s*(-?\d+);", ptx)
    if len(stored) != 1 or wrap(int(stored[0])) != wrap(value):
        return {"kind": "ewise constant differs from Python", "input": source,
                "output": f"stored {stored}, Python {value}"}
    return None


# -- cross-kernel values ---------------------------------------------------------

def check_cross_kernel(rng):
    leaked = {}

    @T.function
    def first(A: T.Tensor((4, 1), "float32"), s: T.float32, n: T.int32):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
        r = T.alloc_local((4, 1), "float32")
        t = T.thread_id()
        leaked.update(s=s, n=n, t=t, b=t < 3, r=r, q=t // 4, u=T.uint32(t), a=A)
        T.ewise(lambda x: leaked.setdefault("e", x * 2.0), r, r)

    uses = [
        lambda v, r: T.ewise(lambda x: x + v, r, r),
        lambda v, r: T.ewise(lambda x: v + 1.0, r, r),
        lambda v, r: T.cuda.tile.apply(T.ptx["mov.f32"], r, v),
        lambda v, r: v < 4, lambda v, r: v + T.thread_id(), lambda v, r: v.eq(1),
        lambda v, r: T.uint32(v), lambda v, r: v & (T.thread_id() < 2),
        lambda v, r: T.if_(v).__enter__(), lambda v, r: v[0:1], lambda v, r: v.reshape((2, 2)),
        lambda v, r: T.cuda.tile.apply(T.ptx["st.global.f32"], v, r),
        lambda v, r: T.cuda.tile.apply(T.ptx["mov.f32"], r, r, pred=v),
        lambda v, r: r[v:v + 1], lambda v, r: T.serial(v, 4).__next__(),
    ]
    name = rng.choice(sorted(leaked))
    use = rng.choice(uses)
    try:
        @T.function
        def second(A: T.Tensor((4, 1), "float32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
            use(leaked[name], T.alloc_local((4, 1), "float32"))
        tile_mlir.compile(second, cache=False, cubin=False)
    except T.TileError:
        return None  # "made in another @T.function", or a use this value has not
    except (AttributeError, TypeError):
        return None  # the use does not apply to this kind of value (a tile plus 1)
    return {"kind": "cross-kernel use accepted", "input": f"{name}: use {uses.index(use)}"}


# -- reshape chains ------------------------------------------------------------

def check_reshape_chain(rng):
    import campaign
    import interp
    shape = [rng.choice([1, 2, 4]) for _ in range(rng.randint(1, 3))] + [rng.choice([1, 2, 4])]
    data = np.arange(int(np.prod(shape)), dtype=np.uint32).reshape(shape) * 7 + 3
    steps, model = [], data
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.35 and model.ndim:
            axis = rng.randrange(model.ndim)
            n = model.shape[axis]
            start = rng.randrange(n)
            stop = rng.randint(start + 1, n)
            steps.append(("slice", axis, start, stop))
            model = model[(slice(None),) * axis + (slice(start, stop),)]
        elif kind < 0.5:
            steps.append(("view", "int32" if rng.random() < 0.5 else "uint32"))
        else:
            sizes = list(model.shape)
            if rng.random() < 0.5:
                sizes.insert(rng.randint(0, len(sizes)), 1)
            elif len(sizes) > 1 and rng.random() < 0.5:
                i = rng.randrange(len(sizes) - 1)
                sizes[i:i + 2] = [sizes[i] * sizes[i + 1]]
            else:
                total = int(np.prod(sizes))
                sizes = [d for d in (total // 2, 2) if total % 2 == 0] if total % 2 == 0 else [total]
            steps.append(("reshape", tuple(sizes)))
            model = model.reshape(sizes)
    count = model.size
    expected = model.reshape(count, 1)

    def chain(r):
        for step in steps:
            if step[0] == "slice":
                _, axis, start, stop = step
                r = r[(slice(None),) * axis + (slice(start, stop),)]
            elif step[0] == "view":
                r = r.view(step[1])
            else:
                r = r.reshape(step[1])
        return r.reshape((count, 1))

    try:
        @T.function
        def k(A: T.Tensor(tuple(shape), "uint32"), Out: T.Tensor((count, 1), "uint32")):
            T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
            r = T.alloc_local(tuple(shape), "uint32")
            for_load = r.reshape((int(np.prod(shape)), 1))
            T.cuda.tile.apply(T.ptx["ld.global.b32"], for_load, A.reshape((int(np.prod(shape)), 1)))
            T.cuda.tile.apply(T.ptx["st.global.b32"], Out, chain(r))
    except T.TileError as error:
        if "not contiguous" in str(error):
            return None  # numpy would copy; tile-mlir reshapes views only
        if "the final axis must be contiguous (stride 1) on both sides of a view" in str(error):
            return None  # a dtype view reinterprets a contiguous final axis only (docs/python.md)
        return {"kind": "reshape chain rejected", "input": repr(steps) + repr(shape), "output": str(error)}
    out = interp.run(campaign.kernel_func(k), {"A": data.tobytes(), "Out": bytes(4 * count)},
                     k.grid, k.block)["Out"][0]
    got = np.frombuffer(out.tobytes(), np.uint32).reshape(count, 1)
    if not np.array_equal(got, expected.astype(np.uint32)):
        return {"kind": "reshape chain differs from numpy", "input": repr(steps) + repr(shape),
                "output": f"{got.ravel().tolist()} != {expected.ravel().tolist()}"}
    tile_mlir.compile(k, cache=False, cubin=False)
    return None


# -- cache entries ---------------------------------------------------------------

def cache_kernel(op):
    def body(A, B):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
        a = T.alloc_local((4, 1), "uint32")
        T.cuda.tile.apply(T.ptx["ld.global.b32"], a, A)
        T.cuda.tile.apply(T.ptx[op], a, a, a)
        T.cuda.tile.apply(T.ptx["st.global.b32"], B, a)
    body.__annotations__ = {"A": T.Tensor((4, 1), "uint32"), "B": T.Tensor((4, 1), "uint32")}
    return T.function(body)


def check_cache_entry(rng):
    import warnings
    with tempfile.TemporaryDirectory() as directory:
        os.environ["TILE_MLIR_CACHE_DIR"] = directory
        mine, other = cache_kernel("add.rn.f16x2"), cache_kernel("sub.rn.f16x2")
        fresh = tile_mlir.compile(mine)
        foreign = tile_mlir.compile(other)
        entries = sorted(os.listdir(directory))
        mine_entry = [e for e in entries if open(os.path.join(directory, e)).read().count("add.rn.f16x2")][0]
        other_entry = [e for e in entries if e != mine_entry][0]
        path = os.path.join(directory, mine_entry)
        text = open(path, "rb").read()
        how = rng.randrange(6)
        if how == 0:  # flip bytes
            data = bytearray(text)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            open(path, "wb").write(bytes(data))
        elif how == 1:
            open(path, "wb").write(text[:rng.randrange(len(text))])
        elif how == 2:  # the other kernel's artifact, perhaps with this key
            artifact = json.loads(open(os.path.join(directory, other_entry)).read())
            if rng.random() < 0.5:
                artifact["cache_key"] = mine_entry[:-5]
            open(path, "w").write(json.dumps(artifact))
        elif how == 3:
            os.remove(path)
            os.mkdir(path)
        elif how == 4:
            os.remove(path)
            os.symlink("/dev/zero" if rng.random() < 0.5 else os.path.join(directory, other_entry), path)
        else:
            os.remove(path)
            os.mkfifo(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = tile_mlir.compile(mine)
        del foreign
        if again.ptx != fresh.ptx or again.cubin != fresh.cubin or again.name != fresh.name:
            return {"kind": "cache entry changed the kernel", "input": f"mutation {how}"}
    return None


CLASSES = [check_ewise, check_cross_kernel, check_reshape_chain, check_cache_entry]


def main(seed: int, count: int) -> dict:
    rng = random.Random(seed)
    findings, inputs = [], 0
    for _ in range(count):
        check = rng.choice(CLASSES)
        inputs += 1
        try:
            finding = check(rng)
        except Exception:  # noqa: BLE001 - anything but TileError is a finding
            finding = {"kind": f"{check.__name__} raised", "input": f"seed {seed}",
                       "output": traceback.format_exc()[-600:]}
        if finding:
            findings.append(finding)
    return {"inputs": inputs, "findings": findings}


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]))))
