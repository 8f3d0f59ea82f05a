"""The package's modules import each other without a cycle, at module level
and inside functions alike: a module does one job and builds only on the
modules below it (issue 26, "the front end, rebuilt before it doubles")."""

import ast
import os

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tile_mlir")


def modules():
    """Every module of tile_mlir by dotted name, with its file."""
    found = {}
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py") and name != "_tile_ops_gen.py":
                path = os.path.join(root, name)
                parts = os.path.relpath(path, PACKAGE)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(["tile_mlir"] + parts)] = path
    return found


def imports(name, path, known):
    """The tile_mlir modules that `name` imports, anywhere in its file."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]  # where "." is
    result = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = node.module if node.level == 0 else ".".join(p for p in (base, node.module) if p)
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        # A package above `name` is imported before it anyway: not an edge.
        result.update(t for t in targets if t in known and t != name and not name.startswith(t + "."))
    return result


def cycle(graph):
    """A cycle of the graph as a list of names, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert "tile_mlir.frontend.ewise" in graph["tile_mlir.script"]
    assert cycle(graph) is None, " -> ".join(cycle(graph))


def test_the_cycle_finder_finds_one():
    # The check above can fail: the ewise/script pair of before the split.
    graph = {"tile_mlir.script": {"tile_mlir.ewise"}, "tile_mlir.ewise": {"tile_mlir.script"}}
    assert cycle(graph) == ["tile_mlir.ewise", "tile_mlir.script", "tile_mlir.ewise"]


def test_the_front_end_modules_build_in_one_order():
    # tracing < values < tiles < kernel < control < instructions < ewise:
    # each imports only modules before it.
    order = ["tracing", "values", "tiles", "kernel", "control", "instructions", "ewise"]
    known = modules()
    for i, module in enumerate(order):
        name = f"tile_mlir.frontend.{module}"
        later = {f"tile_mlir.frontend.{m}" for m in order[i + 1:]}
        assert not imports(name, known[name], known) & later, name


def test_no_module_reaches_into_another_objects_private_fields():
    # An attribute with a leading underscore is read or written only on
    # self or cls, on a class of the same module (or what its methods
    # return: Index.of(x)._divide), or on a module, whose private names are
    # its own API; the interpreter's executors once reached into
    # Interpreter._hazard_keys, the front end into a loop's _point.
    def root(node):
        while isinstance(node, (ast.Attribute, ast.Call)):
            node = node.value if isinstance(node, ast.Attribute) else node.func
        return node.id if isinstance(node, ast.Name) else None

    offenders = []
    for name, path in modules().items():
        tree = ast.parse(open(path).read())
        own = {"self", "cls"} | {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        own |= {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and root(node.value) not in own):
                offenders.append(f"{os.path.relpath(path, PACKAGE)}:{node.lineno}: .{node.attr}")
    assert offenders == []


def test_only_the_race_engine_touches_race_state():
    # The race check's shadow state (memory.SHADOW_FIELDS, kept per cell
    # of the buffer's grain, and the copies in flight) is read and written
    # by the engine alone (races.py, cells.py for the cells, memory.py,
    # which makes it): an executor declares its accesses through the
    # machine's entry points (declare, forget, copy_in_flight,
    # copy_landed, last_writes), so the grain and the fields can change in
    # one place.
    from tile_mlir.interpreter.memory import SHADOW_FIELDS
    engine = {"races.py", "cells.py", "memory.py"}
    fields = set(SHADOW_FIELDS) | {"pending_at"}
    offenders = []
    folder = os.path.join(PACKAGE, "interpreter")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py") or name in engine:
            continue
        for node in ast.walk(ast.parse(open(os.path.join(folder, name)).read())):
            if isinstance(node, ast.Attribute) and node.attr in fields:
                offenders.append(f"interpreter/{name}:{node.lineno}: .{node.attr}")
    assert offenders == []


def test_executors_declare_their_effects_and_one_engine_checks_them():
    # Each executor states an instruction's memory accesses as effects
    # (interpreter/effects.py: read, write, update, element reads and
    # writes) through the machine's one entry point, Interpreter.declare;
    # races.apply alone checks them (ConSan's declared memory effects):
    # no module but machine.py calls the engine's apply, and every module
    # that touches tensors or shared memory declares.
    folder = os.path.join(PACKAGE, "interpreter")
    applying, declaring = set(), set()
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(open(os.path.join(folder, name)).read())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "apply" and isinstance(node.func.value, ast.Name) and node.func.value.id == "RC":
                    applying.add(name)
                if node.func.attr == "declare":
                    declaring.add(name)
    assert applying == {"machine.py"}
    assert declaring >= {"machine.py", "atomics.py", "cp_async.py", "mbarrier.py", "tma.py", "wgmma.py"}
