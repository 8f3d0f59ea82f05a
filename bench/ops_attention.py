"""tile_mlir.ops.attention across grouped-query shapes: 32 query heads over
4 of K and V (GQA 8:1), 16k tokens a batch (B x S), S 512 to 8192 and 1000
(a tail), d 64 and 128, causal and not; and decode, one query of 32 heads
over 8 (d 128) against S_k 1k to 128k keys, B 1, 8 and 64 (up to 1M
tokens of cache), where the op splits the keys (split-KV) when its tiles
leave SMs idle, its K and V read rate beside a device copy's (the
bandwidth it is bound by), and from a paged cache (pages of 16 and 256
scattered by a random block table; the peers read the same keys
contiguous); and the backward (dQ, dK and dV through autograd: B 4, H 16,
d 64 and 128, causal and not, S 1024-8192) against each
backend's backward; bf16, against every torch
scaled_dot_product_attention backend the device has (flash, cuDNN,
efficient; enable_gqa, or K and V expanded beforehand, untimed, where a
backend refuses it). The op is called as a user calls it, its kernel loaded
from the ops cache that `build` filled. Each entry's error is against
float64 (the first batch), relative to the output's largest element,
beside the backends'. `TILE_MLIR_SWEEP_ONLY` (a regular expression)
selects entries by name, in build and run."""

import json
import math
import os
import re

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from .timing import timed_rounds

HEADS, KV_HEADS, TOKENS = 32, 4, 16384
SEQS = (512, 1000, 2048, 4096, 8192)
DECODE_KEYS, DECODE_BATCHES, DECODE_KV_HEADS = (1024, 4096, 16384, 65536, 131072), (1, 8, 64), 8
DECODE_TOKENS = 1 << 20  # the largest cache a batch (B x S_k): K and V 4 GiB, 16 expanded for SDPA
PAGED = ((8, 16384), (8, 65536), (1, 131072))  # (B, S_k) of the paged entries, in pages of 16 and 256
BACKWARD = (4, 16, (1024, 2048, 4096, 8192), (64, 128))  # B, H, S, d of the backward entries
ROUNDS, REPEATS = 3, 10
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}
ENTRIES = {}


def cases():
    """(name, (b, h_kv, s_q, s_k, d), causal, page size or None) of every
    entry. Decode's one query sees every key (the bottom-right diagonal):
    not causal, so that SDPA (whose is_causal is the top-left one)
    computes the same."""
    for d in (64, 128):
        for causal in (False, True):
            for s in SEQS:
                b = max(1, TOKENS // s)
                yield (f"attention_d{d}_b{b}_h{HEADS}kv{KV_HEADS}_s{s}{'_causal' if causal else ''}",
                       (b, KV_HEADS, s, s, d), causal, None)
    for b in DECODE_BATCHES:
        for s_k in (s_k for s_k in DECODE_KEYS if b * s_k <= DECODE_TOKENS):
            yield (f"attention_decode_d128_b{b}_h{HEADS}kv{DECODE_KV_HEADS}_q1_k{s_k}",
                   (b, DECODE_KV_HEADS, 1, s_k, 128), False, None)
    for page in (16, 256):
        for b, s_k in PAGED:
            yield (f"attention_decode_paged{page}_d128_b{b}_h{HEADS}kv{DECODE_KV_HEADS}_q1_k{s_k}",
                   (b, DECODE_KV_HEADS, 1, s_k, 128), False, page)


def backward_cases():
    """(name, (b, h, s, d), causal) of the backward entries."""
    b, h, seqs, dims = BACKWARD
    for d in dims:
        for causal in (False, True):
            for s in seqs:
                yield f"attention_backward_d{d}_b{b}_h{h}_s{s}{'_causal' if causal else ''}", (b, h, s, d), causal


def selected(entries=None):
    """The cases whose names `TILE_MLIR_SWEEP_ONLY` (a regular expression;
    unset: all) matches, of cases() or `entries`."""
    only = os.environ.get("TILE_MLIR_SWEEP_ONLY", "")
    return [case for case in (cases() if entries is None else entries) if not only or re.search(only, case[0])]


def build(out):
    """Every entry's kernel, compiled into `out` as an ops cache."""
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(out)
    import tile_mlir.ops as ops
    for name, (b, h_kv, s, s_k, d), causal, page in selected():
        q = torch.empty(b, HEADS, s, d, dtype=torch.bfloat16, device="meta")
        if page is None:
            kv = torch.empty(b, h_kv, s_k, d, dtype=torch.bfloat16, device="meta")
            ops.precompile("attention", q, kv, kv, causal=causal)
        else:
            kv = torch.empty(b * s_k // page, page, h_kv, d, dtype=torch.bfloat16, device="meta")
            table = torch.empty(b, s_k // page, dtype=torch.int32, device="meta")
            ops.precompile("attention", q, kv, kv, causal=causal, block_table=table)
        print(name, "precompiled", flush=True)
    for name, (b, h, s, d), causal in selected(backward_cases()):
        q = torch.empty(b, h, s, d, dtype=torch.bfloat16, device="meta")
        ops.precompile("attention_lse", q, q, q, causal)
        ops.precompile("attention_backward", q, q, q, q, torch.empty(b, h, s, device="meta"), q, causal)
        print(name, "precompiled", flush=True)


def backend_runs(q, k, v, causal, exact, entry):
    """Each SDPA backend's launch, and its error into `entry`."""
    group = HEADS // k.shape[1]
    wide = [t.repeat_interleave(group, dim=1) for t in (k, v)]
    runs = {}
    for key, backend in BACKENDS.items():
        for gqa in (True, False):
            args, kwargs = ((q, k, v), {"enable_gqa": True}) if gqa else ((q, *wide), {})
            try:
                with sdpa_kernel(backend):
                    got = F.scaled_dot_product_attention(*args, is_causal=causal, **kwargs)
            except RuntimeError as why:  # a backend this build or GPU lacks, or its GQA
                entry[f"{key}_unavailable"] = str(why).splitlines()[0][:200]
                continue
            entry.pop(f"{key}_unavailable", None)
            entry[f"{key}_gqa"] = gqa
            entry[f"{key}_max_error_relative_to_max"] = float(((got[:1].double() - exact).abs().max()
                                                               / exact.abs().max()))

            def fn(backend=backend, args=args, kwargs=kwargs):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(*args, is_causal=causal, **kwargs)
            runs[key] = fn
            break
    return runs


def paged(k, v, page, gen):
    """k and v (B, H_kv, S_k, D) as a paged cache (pages, page, H_kv, D)
    and the block table that scatters each sequence's pages at random."""
    b, h_kv, s_k, d = k.shape
    width = s_k // page
    table = torch.randperm(b * width, device="cuda", generator=gen).view(b, width).int()
    caches = [torch.empty(b * width, page, h_kv, d, dtype=k.dtype, device="cuda") for _ in range(2)]
    for cache, x in zip(caches, (k, v)):
        cache[table.flatten().long()] = x.unflatten(2, (width, page)).permute(0, 2, 3, 1, 4).flatten(0, 1)
    return caches, table


def entry_of(shape, causal, page, ops):
    b, h_kv, s, s_k, d = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(b, HEADS, s, d, device="cuda", generator=gen).to(torch.bfloat16)
    k, v = (torch.randn(b, h_kv, s_k, d, device="cuda", generator=gen).to(torch.bfloat16) for _ in range(2))
    group = HEADS // h_kv
    exact = F.scaled_dot_product_attention(q[:1].double(), *(t[:1].double().repeat_interleave(group, dim=1)
                                                               for t in (k, v)), is_causal=causal)
    inputs, kwargs = (q, k, v), {"causal": causal}
    if page is not None:
        (k_cache, v_cache), table = paged(k, v, page, gen)
        inputs, kwargs = (q, k_cache, v_cache), {"causal": causal, "block_table": table}
    got = ops.attention(*inputs, **kwargs)
    entry = {"shape": [b, HEADS, h_kv, s, s_k, d], "causal": causal, "page_size": page,
             "max_error_relative_to_max": float((got[:1].double() - exact).abs().max() / exact.abs().max())}
    runs = {"tile_mlir": lambda: ops.attention(*inputs, **kwargs), **backend_runs(q, k, v, causal, exact, entry)}
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    # Causal: half the products (the convention of FlashAttention's numbers).
    flops = 4.0 * b * HEADS * s * s_k * d / (2 if causal else 1)
    entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
    # Decode reads K and V once: their bytes over the time.
    entry["kv_GBps"] = {key: 2 * k.numel() * 2 / ms / 1e6 for key, ms in entry["ms"].items()}
    entry["config"] = chosen_config(q, h_kv, s_k)
    entry["ratio_vs_best_sdpa"] = min(ms for key, ms in entry["ms"].items() if key != "tile_mlir") / \
        entry["ms"]["tile_mlir"]
    return entry


def backward_entry(shape, causal, ops):
    """The backward through autograd (the forward's graph kept), against
    each SDPA backend's, and the gradients' error against float64's."""
    b, h, s, d = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    leaves = [torch.randn(b, h, s, d, device="cuda", generator=gen).to(torch.bfloat16).requires_grad_()
              for _ in range(3)]
    grad = torch.randn(b, h, s, d, device="cuda", generator=gen).to(torch.bfloat16)
    exact = [t[:1].detach().double().requires_grad_() for t in leaves]
    F.scaled_dot_product_attention(*exact, is_causal=causal).backward(grad[:1].double())
    out = ops.attention(*leaves, causal=causal)
    got = torch.autograd.grad(out, leaves, grad, retain_graph=True)
    entry = {"shape": [b, h, s, d], "causal": causal, "max_error_relative_to_max": {
        name: float((g[:1].double() - e.grad).abs().max() / e.grad.abs().max())
        for name, g, e in zip(("dq", "dk", "dv"), got, exact)}}
    runs = {"tile_mlir": lambda: torch.autograd.grad(out, leaves, grad, retain_graph=True)}
    for key, backend in BACKENDS.items():
        try:
            with sdpa_kernel(backend):
                peer = F.scaled_dot_product_attention(*leaves, is_causal=causal)
            torch.autograd.grad(peer, leaves, grad, retain_graph=True)
        except RuntimeError as why:
            entry[f"{key}_unavailable"] = str(why).splitlines()[0][:200]
            continue
        runs[key] = lambda peer=peer: torch.autograd.grad(peer, leaves, grad, retain_graph=True)
    timed_rounds(entry, runs, ROUNDS, REPEATS)
    flops = 2.5 * 4.0 * b * h * s * s * d / (2 if causal else 1)  # five products to the forward's two
    entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
    entry["ratio_vs_best_sdpa"] = min(ms for key, ms in entry["ms"].items() if key != "tile_mlir") / \
        entry["ms"]["tile_mlir"]
    return entry


def chosen_config(q, h_kv, s_k):
    """The configuration the op's tuner picked for this entry's signature
    (the kernel's heads: a group's query heads packed as one head's rows)."""
    from tile_mlir.ops import launch
    b, h, s, d = q.shape
    shapes = {(b * h_kv, h // h_kv * s, d), (b * h, s, d)}  # packed or not
    for (signature, _), config in launch.chosen_configs().items():
        # ("attention", (heads, rows, d), causal, scale, group, seq_k, ...): _AttentionRun.fields.
        if signature[0] == "attention" and signature[1] in shapes and signature[5] == s_k:
            return str(config)
    return None


def copy_GBps():
    """A device copy's rate over 4 GiB (read and write: bytes moved over
    the time), the bandwidth decode is bound by."""
    src = torch.empty(1 << 31, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    entry = {}
    timed_rounds(entry, {"copy": lambda: dst.copy_(src)}, ROUNDS, REPEATS)
    return 2 * src.numel() / entry["ms"]["copy"] / 1e6


def run(artifacts, report_path):
    os.environ["TILE_MLIR_CACHE_DIR"] = os.path.abspath(artifacts)
    import tile_mlir.ops as ops
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "copy_GBps": copy_GBps(), "kernels": {}}
    for name, shape, causal, page in selected():
        entry = report["kernels"][name] = entry_of(shape, causal, page, ops)
        entry["kv_fraction_of_copy"] = entry["kv_GBps"]["tile_mlir"] / report["copy_GBps"]
        print(name, "x%.3f best SDPA" % entry["ratio_vs_best_sdpa"],
              {key: round(v, 1) for key, v in entry["TFLOPs"].items()}, entry["config"],
              "kv %.0f GB/s (%.2f of copy)" % (entry["kv_GBps"]["tile_mlir"], entry["kv_fraction_of_copy"]),
              "rel err %.2e" % entry["max_error_relative_to_max"], flush=True)
        _write(report, report_path)
    for name, shape, causal in selected(backward_cases()):
        entry = report["kernels"][name] = backward_entry(shape, causal, ops)
        print(name, "x%.3f best SDPA" % entry["ratio_vs_best_sdpa"],
              {key: round(v, 1) for key, v in entry["TFLOPs"].items()}, entry["max_error_relative_to_max"], flush=True)
        _write(report, report_path)


def _write(report, report_path):
    """The report so far, with each kind's summary."""
    kinds = {"prefill": lambda n: "decode" not in n and "backward" not in n, "decode": lambda n: "decode" in n,
             "backward": lambda n: "backward" in n}
    report["summary"] = {kind: summary({n: e for n, e in report["kernels"].items() if test(n)})
                         for kind, test in kinds.items()}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)


def summary(entries):
    """The geometric mean of the entries' ratios, and the worst five."""
    if not entries:
        return {}
    ratios = {name: e["ratio_vs_best_sdpa"] for name, e in entries.items()}
    return {"geomean_ratio_vs_best_sdpa": math.exp(sum(map(math.log, ratios.values())) / len(ratios)),
            "entries": len(ratios), "worst": sorted(ratios.items(), key=lambda kv: kv[1])[:5]}
