"""Attention forward (tile_mlir.kernels.attention) against every torch
scaled_dot_product_attention backend the device has (flash, cuDNN,
efficient): B 4, H 16, bf16, d 64 and 128, S 1024 to 8192, causal and not.
Each kernel's largest error against float64, relative to the output's
scale, beside the backends' own."""

import json
import math
import re

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


from . import kernels
from .artifacts import beside
from .artifacts import kernels as artifact_kernels
from .timing import timed_rounds



ENTRIES = {f"attention_d{d}_b4h16_s{seq}{'_causal' if causal else ''}":
           (lambda d=d, seq=seq, causal=causal: kernels("attention").attention(64, seq, d, causal))
           for d in (64, 128) for causal in (False, True) for seq in (1024, 2048, 4096, 8192)}


def _best_name(d, seq, causal):
    """bench/attention/kernels.py's BEST entry of a shape (commit 14ca50e)."""
    if d == 64 and not causal:
        tag = "_tma_in_k_s4_q2"
    elif d == 64:
        tag = "_tma_in_k_s5_q2" if seq <= 2048 else "_tma_in_k_s5_free_at_once"
    else:
        tag = "_tma_in_k_s3_v2_q2" if seq <= 2048 else "_tma_in_k_s3"
    return f"attention_persistent_d{d}_b4h16_s{seq}{'_causal' if causal else ''}{tag}"


BASELINE = {f"attention_d{d}_b4h16_s{seq}{'_causal' if causal else ''}":
            ("bench/attention/kernels.py", "BEST", _best_name(d, seq, causal))
            for d in (64, 128) for causal in (False, True) for seq in (1024, 2048, 4096, 8192)}

ROUNDS, REPEATS = 3, 10
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def ours_and_backends(kernel, name, baseline=None, base_name=None):
    """The kernel of artifact `name` and every SDPA backend this build has
    on the same random normal inputs: (entry, runs, baseline), the entry
    with the shape and each one's largest error against float64 relative
    to the output's scale, runs a callable a kernel, baseline the replaced
    kernel's run for timed_rounds (or None)."""
    seq = int(re.search(r"_s(\d+)", name).group(1))
    causal = "causal" in name
    # Q's (rows, d), or (heads, seq, d) since the kernel took tails.
    *outer, d = kernel.params[0].shape
    b, h = 4, math.prod(outer) // seq // 4
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, h, seq, d, device="cuda", generator=gen).to(torch.bfloat16) for _ in range(3))
    # O in f32, or bf16 bits (a uint16 O, as SDPA returns bf16).
    bf16_out = kernel.params[3].dtype == "uint16"
    out = torch.empty(b, h, seq, d, device="cuda", dtype=torch.bfloat16 if bf16_out else torch.float32)
    out_arg = out.view(torch.uint16) if bf16_out else out

    def launch(kern, sync=False):
        """kern on q, k, v and O, viewed as its parameters' shapes."""
        args = [t.view(tuple(p.shape)) for t, p in zip((q.view(torch.uint16), k.view(torch.uint16),
                                                         v.view(torch.uint16), out_arg), kern.params)]
        return lambda: kern(*args, sync=sync)
    launch(kernel, sync=True)()
    # float64 a batch at a time: at S 8192 all four take 4 x 34 GB.
    exact = torch.cat([F.scaled_dot_product_attention(q[i:i + 1].double(), k[i:i + 1].double(),
                                                      v[i:i + 1].double(), is_causal=causal) for i in range(b)])
    scale = float(exact.abs().max())
    entry = {"shape": [b, h, seq, d], "causal": causal, "out": "bfloat16" if bf16_out else "float32",
             "max_error_relative_to_max": float((out.view(b, h, seq, d).double() - exact).abs().max()) / scale}
    runs = {"tile_mlir": launch(kernel)}
    for key, backend in BACKENDS.items():
        try:
            with sdpa_kernel(backend):
                got = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            entry[f"{key}_max_error_relative_to_max"] = float((got.double() - exact).abs().max()) / scale

            def fn(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            runs[key] = fn
        except RuntimeError as why:  # a backend this build or GPU lacks
            entry[f"{key}_unavailable"] = str(why).splitlines()[0][:200]
    return entry, runs, beside(launch, baseline, base_name)


def run(artifacts, report_path):
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rounds": ROUNDS,
              "repeats": REPEATS, "kernels": {}}
    for name, kernel, baseline, base_name in artifact_kernels(artifacts):
        entry, runs, beside_run = ours_and_backends(kernel, name, baseline, base_name)
        b, h, seq, d = entry["shape"]
        causal = entry["causal"]
        timed_rounds(entry, runs, ROUNDS, REPEATS, beside_run)
        # Causal: half the products (the convention of FlashAttention's numbers).
        flops = 4.0 * b * h * seq * seq * d / (2 if causal else 1)
        entry["TFLOPs"] = {key: flops / ms / 1e9 for key, ms in entry["ms"].items()}
        best = min(ms for key, ms in entry["ms"].items() if key not in ("tile_mlir", "baseline"))
        entry["ratio_vs_best_sdpa"] = best / entry["ms"]["tile_mlir"]
        report["kernels"][name] = entry
        print(name, {key: round(x, 1) for key, x in entry["TFLOPs"].items()},
              "x%.3f best SDPA" % entry["ratio_vs_best_sdpa"], "rel err %.2e" % entry["max_error_relative_to_max"],
              flush=True)
        with open(report_path, "w") as f:
            json.dump(report, f, indent=1)


