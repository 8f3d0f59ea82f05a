"""The warp collectives check of tools/gpu, from the PTX ISA's definitions
(9.7.13.8-12): build_artifacts.py compiles the kernels, run_artifacts.py
runs them on a machine without MLIR and test_warp_collectives.py runs them
in the interpreter, so the expected values live here, apart from all three."""

import numpy as np

FULL = 0xFFFFFFFF

# Out's columns: each collective once per thread.
COLUMNS = ("all", "any", "uni", "ballot", "match_any", "match_all", "match_all_p",
           "redux_add", "redux_min_s", "redux_max_u", "redux_xor", "elect", "elect_p", "activemask")

# name: (membermask, lanes below which threads execute, only lanes % 8 >= 4)
CONFIGS = {
    "warp_collectives_full": (FULL, 32, False),
    "warp_collectives_half": (0x0000FFFF, 16, False),
    "warp_collectives_nibbles": (0x00F0F0F0, 24, True),
}

THREADS = 64

# Few distinct values, so that votes and matches go both ways.
VALUES = np.array([-7, -1, 3, 3, 5, 2**31 - 1, -2**31], np.int32)


def executing_lanes(active_lanes, upper_nibbles):
    return [j for j in range(active_lanes) if not upper_nibbles or j % 8 >= 4]


def expected(a, mask, active_lanes, upper_nibbles):
    """Each thread's row of Out, warp by warp; threads that do not execute
    keep zeros. elect's leader is the lowest lane of the mask (the ISA: "the
    same leader thread is elected for the same membermask every time")."""
    out = np.zeros((a.size, len(COLUMNS)), np.int64)
    active = executing_lanes(active_lanes, upper_nibbles)
    for warp in range(a.size // 32):
        values = a[warp * 32:(warp + 1) * 32].astype(np.int64)
        members = [j for j in active if mask >> j & 1]
        member_bits = sum(1 << j for j in members)
        pred = {j: bool(values[j] < 0) for j in members}
        xor = 0
        for j in members:
            xor ^= int(values[j]) & FULL
        equal = len({int(values[j]) for j in members}) == 1
        for lane in active:
            out[warp * 32 + lane] = (
                all(pred.values()), any(pred.values()), len(set(pred.values())) == 1,
                sum(1 << j for j in members if pred[j]),
                sum(1 << j for j in members if values[j] == values[lane]),
                member_bits if equal else 0, equal,
                sum(int(values[j]) for j in members) & FULL,
                min(int(values[j]) for j in members),
                max(int(values[j]) & FULL for j in members),
                xor, members[0], lane == members[0], sum(1 << j for j in active))
    return (out & FULL).astype(np.uint32).view(np.int32)
