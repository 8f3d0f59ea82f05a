"""Predicate operands in generated kernels. A predicate register has no
memory form, so a predicate source is made from a loaded 16-bit word
(setp.ne.b16: nonzero is true) and a predicate destination is stored as a
16-bit 0 or 1 (selp.b16), one register column at a time."""

SCALARS = ["%pred_zero = arith.constant 0 : i16", "%pred_one = arith.constant 1 : i16"]


def word_tile(repeats, count):
    return f"memref<{repeats}x{count}xi16, 5>"


def predicate_tile(repeats, count):
    return f"memref<{repeats}x{count}xi1, 5>"


def _columns(name, repeats, count, element):
    """(view name, view type, lines) of each register column of a tile."""
    if count == 1:
        yield name, f"memref<{repeats}x1x{element}, 5>", []
        return
    for k in range(count):
        view = f"{name}_c{k}"
        ty = f"memref<{repeats}x1x{element}, strided<[{count}, 1], offset: {k}>, 5>"
        yield view, ty, [f"{view} = memref.subview {name}[0, {k}] [{repeats}, 1] [1, 1] : "
                         f"memref<{repeats}x{count}x{element}, 5> to {ty}"]


def from_words(pred, words, repeats, count):
    """Lines that set predicate tile `pred` from the i16 tile `words`."""
    lines = []
    for (p, p_ty, p_lines), (w, w_ty, w_lines) in zip(_columns(pred, repeats, count, "i1"),
                                                     _columns(words, repeats, count, "i16")):
        lines += p_lines + w_lines
        lines.append(f'tile.apply "setp.ne.b16"({p}, {w}, %pred_zero) : {p_ty}, {w_ty}, i16')
    return lines


def to_words(words, pred, repeats, count):
    """Lines that store predicate tile `pred` into the i16 tile `words`."""
    lines = []
    for (p, p_ty, p_lines), (w, w_ty, w_lines) in zip(_columns(pred, repeats, count, "i1"),
                                                     _columns(words, repeats, count, "i16")):
        lines += p_lines + w_lines
        lines.append(f'tile.apply "selp.b16"({w}, %pred_one, %pred_zero, {p}) : {w_ty}, i16, i16, {p_ty}')
    return lines
