"""tile_mlir.ops.grouped_matmul (issue 59) at mixture-of-experts shapes,
against the peers the device's torch has, one entry a case:

- DeepSeek-V3's experts (hidden 7168, expert intermediate 2048: gate and
  up together N 4096 by K 7168, down N 7168 by K 2048), bf16:
  - masked (decode): 8 and 64 experts of a capacity of 256 and 1024 rows,
    each expert's count drawn uniformly from half the capacity to all of
    it; peers torch.bmm and torch._grouped_mm on the whole capacity (they
    take no counts: they multiply every row) and a loop of torch.matmul
    over each expert's counted rows (the counts read on the host first,
    untimed);
  - contiguous (prefill, training): 4096 and 16,384 tokens split among the
    experts at random ends (multiples of 16), and 65,536 among 256
    experts; peers torch._grouped_mm on the same offsets and a matmul loop;
- Qwen3-MoE's experts (hidden 4096, expert intermediate 1536: N 3072 by K
  4096, N 4096 by K 1536), 128 experts, 16,384 tokens, contiguous;
- block-scaled e4m3 (1 x 128 scales of a, 128 x 128 of b; C bf16) at
  DeepSeek-V3's shapes, contiguous and masked, against
  torch._scaled_grouped_mm (rowwise scales: the scaled grouped product the
  device's torch has), a loop of torch._scaled_mm (rowwise) and bf16
  torch._grouped_mm on the same shapes;
- the dense block-scaled product 4096 x 7168 x 16384 (ops.scaled_matmul,
  issue 59's 1,300 TFLOP/s goal) against torch._scaled_mm rowwise, and
  blockwise where the device's torch takes it.

TFLOP/s count the rows in use. Each result is checked against float64 on
its first expert's rows (relative to the largest element). The op loads
its kernel from the ops cache that `build` filled."""

import dataclasses
import json
import os

import torch

from .timing import timed_rounds

DEEPSEEK = {"gate_up": (4096, 7168), "down": (7168, 2048)}  # (N, K) of DeepSeek-V3's experts
QWEN3 = {"gate_up": (3072, 4096), "down": (4096, 1536)}  # Qwen3-MoE's (235B-A22B)
ROUNDS, REPEATS = 3, 10
ENTRIES = {}  # no kernels of its own: `build` fills the ops cache
E4M3 = torch.float8_e4m3fn


@dataclasses.dataclass(frozen=True)
class Case:
    """One entry: `rows` is the capacity (masked) or the tokens
    (contiguous); experts 0 with layout "dense" is ops.scaled_matmul."""

    layout: str  # "masked", "contiguous" or "dense"
    experts: int
    rows: int
    n: int
    k: int
    dtype: torch.dtype = torch.bfloat16


def cases():
    for name, (n, k) in DEEPSEEK.items():
        for e in (8, 64):
            for cap in (256, 1024):
                yield f"grouped_{name}_e{e}_cap{cap}", Case("masked", e, cap, n, k)
            for tokens in (4096, 16384):
                yield f"grouped_contiguous_{name}_e{e}_m{tokens}", Case("contiguous", e, tokens, n, k)
    yield "grouped_contiguous_gate_up_e256_m65536", Case("contiguous", 256, 65536, *DEEPSEEK["gate_up"])
    for name, (n, k) in QWEN3.items():
        yield f"grouped_contiguous_qwen3_{name}_e128_m16384", Case("contiguous", 128, 16384, n, k)
    for name, (n, k) in DEEPSEEK.items():
        yield f"grouped_e4m3_{name}_e8_cap1024", Case("masked", 8, 1024, n, k, E4M3)
        for e, tokens in ((8, 4096), (64, 16384)):
            yield f"grouped_contiguous_e4m3_{name}_e{e}_m{tokens}", Case("contiguous", e, tokens, n, k, E4M3)
    yield "grouped_contiguous_e4m3_gate_up_e256_m65536", Case("contiguous", 256, 65536, *DEEPSEEK["gate_up"], E4M3)
    yield "scaled_block_4096x7168x16384", Case("dense", 1, 4096, 7168, 16384, E4M3)


def _scales(case, device):
    """Block scales of the case's a and b (a's leading dimensions first)."""
    lead = (case.experts, case.rows) if case.layout == "masked" else (case.rows,)
    kb, nb = case.k // 128, case.n // 128
    return (torch.empty(*lead, kb, device=device), torch.empty(case.experts, nb, kb, device=device))


def _inputs(case, device, gen=None):
    """a, b (E, K, N: the transposed view of a Linear weight's (E, N, K))
    and the block scales (None for bf16), random where the device is a
    GPU."""
    shape_a = (case.experts, case.rows, case.k) if case.layout == "masked" else (case.rows, case.k)
    shape_w = (case.experts, case.n, case.k)
    if case.dtype == E4M3:
        a, w = (_e4m3(shape, device, gen) for shape in (shape_a, shape_w))
        scale_a, scale_b = _scales(case, device)
        if device != "meta":  # scales of 2^-2 to 2^2
            for scale in (scale_a, scale_b):
                scale.copy_(torch.exp2(torch.randint(-2, 3, scale.shape, device=device, generator=gen).float()))
        return a, w.transpose(1, 2), scale_a, scale_b
    a, w = (torch.empty(shape, dtype=torch.bfloat16, device=device) for shape in (shape_a, shape_w))
    if device != "meta":
        for t in (a, w):
            t.normal_(generator=gen)
    return a, w.transpose(1, 2), None, None


def _e4m3(shape, device, gen):
    """e4m3 values of magnitude 2^-5 to 2^3 and either sign, made from their
    bits (no float32 copy of the largest weights)."""
    if device == "meta":
        return torch.empty(shape, dtype=E4M3, device=device)
    bits = torch.randint(16, 80, shape, dtype=torch.uint8, device=device, generator=gen)
    bits |= torch.randint(0, 2, shape, dtype=torch.uint8, device=device, generator=gen) << 7
    return bits.view(E4M3)


def build(out):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops
    for name, case in cases():
        a, b, scale_a, scale_b = _inputs(case, "meta")
        if case.layout == "dense":
            ops.precompile("scaled_matmul", a, b[0], scale_a, scale_b[0])
        else:
            groups = torch.empty(case.experts, dtype=torch.int32, device="meta")
            given = {"counts" if case.layout == "masked" else "offs": groups}
            ops.precompile("grouped_matmul", a, b, scale_a=scale_a, scale_b=scale_b, **given)
        print(name, "precompiled", flush=True)


def _groups(case, gen):
    """The masked layout's counts (half the capacity to all of it), or the
    contiguous layout's offsets (random ends, multiples of 16), and the
    experts' (first, end) rows."""
    e, rows = case.experts, case.rows
    if case.layout == "masked":
        counts = torch.randint(rows // 2, rows + 1, (e,), device="cuda", generator=gen, dtype=torch.int32)
        return counts, [(0, m) for m in counts.tolist()]
    if case.layout == "dense":
        return None, [(0, rows)]
    cuts = torch.sort(torch.randint(0, rows // 16 + 1, (e - 1,), device="cuda", generator=gen)).values * 16
    offs = torch.cat([cuts, torch.tensor([rows], device="cuda")]).int()
    ends = offs.tolist()
    return offs, list(zip([0] + ends[:-1], ends))


def _dequantized(case, a, b, scale_a, scale_b, expert, span):
    """Expert `expert`'s rows of a and its b in float64, block scales
    applied."""
    rows = (a[expert] if case.layout == "masked" else a)[span[0]:span[1]].double()
    w = b[expert].double()
    if scale_a is None:
        return rows, w
    sa = (scale_a[expert] if case.layout == "masked" else scale_a)[span[0]:span[1]]
    rows = rows * sa.double().repeat_interleave(128, 1)
    return rows, w * scale_b[expert].double().repeat_interleave(128, 0).repeat_interleave(128, 1).t()


def _ours(case, ops, a, b, groups, scale_a, scale_b):
    if case.layout == "dense":
        return lambda: ops.scaled_matmul(a, b[0], scale_a, scale_b[0])
    given = {"counts" if case.layout == "masked" else "offs": groups}
    return lambda: ops.grouped_matmul(a, b, scale_a=scale_a, scale_b=scale_b, **given)


def _peers(case, inputs, groups, spans, entry):
    """The torch operators the device has for the case, by name."""
    a, b, scale_a, scale_b = inputs
    offs = {} if case.layout == "masked" else {"offs": groups}
    if case.dtype != E4M3:
        runs = {"matmul_loop": lambda: [torch.matmul((a[i] if case.layout == "masked" else a)[s:t], b[i])
                                        for i, (s, t) in enumerate(spans)]}
        if case.layout == "masked":
            runs["bmm"] = lambda: torch.bmm(a, b)
        _try(entry, runs, "grouped_mm", lambda: torch._grouped_mm(a, b, **offs))
        return runs
    runs = {}
    rows = a.reshape(-1, case.k)
    row_scale = torch.ones(rows.shape[0], device="cuda")
    col_scale = torch.ones(case.experts, case.n, device="cuda")
    if case.layout == "dense":
        _try(entry, runs, "scaled_mm_rowwise", lambda: torch._scaled_mm(
            a, b[0], row_scale[:, None], col_scale[0][None, :], out_dtype=torch.bfloat16))
        # cuBLAS's 1 x 128 by 128 x 128 scaling (CUDA 12.9 on): a's scales
        # outer-dimension-major, b's as (K / 128, N / 128).
        outer = scale_a.t().contiguous().t()
        _try(entry, runs, "scaled_mm_blockwise", lambda: torch._scaled_mm(
            a, b[0], outer, scale_b[0].t(), out_dtype=torch.bfloat16))
        return runs
    a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
    _try(entry, runs, "grouped_mm_bf16", lambda: torch._grouped_mm(a16, b16, **offs))
    scale_of_a = row_scale.view(case.experts, -1) if case.layout == "masked" else row_scale
    _try(entry, runs, "scaled_grouped_mm_rowwise", lambda: torch._scaled_grouped_mm(
        a, b, scale_of_a, col_scale, out_dtype=torch.bfloat16, **offs))
    per_expert = row_scale.view(case.experts, -1) if case.layout == "masked" else None
    pieces = [((a[i] if per_expert is not None else a)[s:t], b[i],
               (per_expert[i] if per_expert is not None else row_scale)[s:t])
              for i, (s, t) in enumerate(spans) if t > s]
    _try(entry, runs, "scaled_mm_loop_rowwise", lambda: [torch._scaled_mm(
        x, w, sx[:, None], col_scale[0][None, :], out_dtype=torch.bfloat16) for x, w, sx in pieces])
    return runs


def _try(entry, runs, name, launch):
    """Adds `launch` as peer `name` where it runs on this device's torch,
    else records why not."""
    try:
        launch()
        torch.cuda.synchronize()
        runs[name] = launch
    except (RuntimeError, AttributeError, TypeError) as why:
        entry[f"{name}_unavailable"] = str(why).splitlines()[0][:200]


def entry_of(case, ops):
    gen = torch.Generator(device="cuda").manual_seed(0)
    a, b, scale_a, scale_b = _inputs(case, "cuda", gen)
    groups, spans = _groups(case, gen)
    ours = _ours(case, ops, a, b, groups, scale_a, scale_b)
    got = ours()
    first = next(i for i, (s, t) in enumerate(spans) if t > s)
    rows, w = _dequantized(case, a, b, scale_a, scale_b, first, spans[first])
    exact = rows @ w
    mine = (got[first] if case.layout == "masked" else got)[spans[first][0]:spans[first][1]].double()
    entry = {"shape": [case.experts, case.rows, case.n, case.k], "layout": case.layout,
             "dtype": str(case.dtype).removeprefix("torch."), "rows_in_use": sum(t - s for s, t in spans),
             "max_error_relative_to_max": float((mine - exact).abs().max() / exact.abs().max())}
    runs = {"tile_mlir": ours, **_peers(case, (a, b, scale_a, scale_b), groups, spans, entry)}
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    flops = 2.0 * entry["rows_in_use"] * case.n * case.k
    entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
    peers = [ms for key, ms in entry["ms"].items() if key != "tile_mlir"]
    if peers:
        entry["ratio_vs_best_peer"] = min(peers) / entry["ms"]["tile_mlir"]
    return entry


def run(artifacts, report_path, only=None):
    """Times every case (those whose name contains `only`, if given) into
    the report at `report_path`, written after each entry."""
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "kernels": {}}
    for name, case in cases():
        if only and only not in name:
            continue
        entry = report["kernels"][name] = entry_of(case, ops)
        torch.cuda.empty_cache()
        print(name, "x%.3f best peer" % entry.get("ratio_vs_best_peer", float("nan")),
              {key: round(v, 1) for key, v in entry["TFLOPs"].items()},
              "rel err %.2e" % entry["max_error_relative_to_max"], flush=True)
        ratios = [entry["ratio_vs_best_peer"] for entry in report["kernels"].values() if "ratio_vs_best_peer" in entry]
        report["summary"] = {"geomean_ratio_vs_best_peer": float(torch.tensor(ratios).log().mean().exp()),
                             "entries": len(ratios)}
        with open(report_path, "w") as f:  # the report so far
            json.dump(report, f, indent=1)
