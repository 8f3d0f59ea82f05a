"""The forms that every_form and the GPU conformance run: the table's own
enumeration (tile_mlir.ptx.forms), not a generator's."""

from tile_mlir import ptx

PER_MEMORY_CLASS = 6
ATOMIC_OPS = ("and", "or", "xor", "exch", "cas", "add", "inc", "dec", "min", "max")


def memory_class(spelling):
    """What decides an ld/st's single-thread result: the family, state
    space, vector width and type (orderings, scopes, cache operators and
    hints do not)."""
    tokens = spelling.split(".")
    space = next((t for t in tokens if t in ("global", "local", "const", "param") or t.startswith("shared")), "")
    vector = next((t for t in tokens if t in ("v2", "v4", "v8")), "")
    return tokens[0], space, vector, tokens[-1]


def selected_forms(target):
    """Every lowered form the table's enumerator lists that exists on
    `target`, overloads included; of ld and st (41,798 spellings), the
    first PER_MEMORY_CLASS of each memory_class, so that every space, width
    and type runs with and without qualifiers; of atom and red, the first
    PER_MEMORY_CLASS of each space, operation and type."""
    forms, seen = [], {}
    for family in ptx.families():
        for spelling in ptx.forms(family):
            try:
                ptx.parse(spelling, target=target)
            except ptx.PTXFormError:
                continue
            if family in ("atom", "red"):
                # orderings and scopes do not change one thread's code: the
                # first PER_MEMORY_CLASS of each space, operation and type
                tokens = spelling.split(".")
                space = next((t for t in tokens if t.startswith(("global", "shared"))), "")
                key = (family, space, tuple(t for t in tokens if t in ATOMIC_OPS), tokens[-1])
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > PER_MEMORY_CLASS:
                    continue
            if family == "cvta" and spelling.split(".")[1] in ("const", "param", "param::entry"):
                continue  # no view is in const or param memory (as for ld and st below)
            if family in ("ld", "st"):
                key = memory_class(spelling)
                if key[1] in ("const", "param"):
                    continue  # no staging for them: a kernel cannot fill either
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > PER_MEMORY_CLASS:
                    continue
            # A family lowered in part (bar.red is not yet) lists its
            # unlowered forms too.
            forms.extend(f for f in ptx.overloads(spelling, target=target) if f.lowered)
    return forms


