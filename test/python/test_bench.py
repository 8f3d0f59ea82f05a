"""bench/ as a product (issue 54): one command (`python -m bench`), one
module a benchmark, one results file a benchmark naming its device, a
README of at most 250 lines; the committed runs hold what the README says
of them (bit-exact, within the peers' error)."""

import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")  # the GPU side of every benchmark

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)
from bench.__main__ import BENCHMARKS, benchmark, main, ratios  # noqa: E402

RESULTS = os.path.join(ROOT, "bench", "results")


def results(name):
    with open(os.path.join(RESULTS, f"{name}.json")) as f:
        return json.load(f)


def test_one_results_file_per_benchmark():
    assert sorted(f[:-5] for f in os.listdir(RESULTS)) == sorted(BENCHMARKS)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_every_benchmark_is_a_module_with_entries_and_a_run(name):
    module = benchmark(name)
    assert module.__doc__ and callable(module.run)
    if getattr(module, "KIND", "gpu") == "gpu":
        # Kernels to compile, or a build of its own (ops_launch's ops cache).
        assert module.ENTRIES or callable(getattr(module, "build", None))
        assert results(name)["device"].startswith("NVIDIA H")
        assert set(getattr(module, "BASELINE", {})) <= set(module.ENTRIES)


def test_no_benchmark_edits_sys_path():
    # The one exception: compile_speed/worker.py runs as a script in the
    # peer's own environment, where only its sibling is at hand.
    edits = []
    for folder, _, files in os.walk(os.path.join(ROOT, "bench")):
        for file in files:
            if file.endswith(".py") and "sys.path" in open(os.path.join(folder, file)).read():
                edits.append(os.path.relpath(os.path.join(folder, file), ROOT))
    assert sorted(edits) == ["bench/cache.py", "bench/compile_speed/worker.py"]
    # cache.py's is in the program its child process runs (the spec's
    # example directory), not its own.
    assert "sys.path.insert(0, {spec!r})" in open(os.path.join(ROOT, "bench", "cache.py")).read()


def test_the_readme_is_short_and_names_every_benchmark():
    text = open(os.path.join(ROOT, "bench", "README.md")).read()
    assert len(text.splitlines()) <= 250
    for name in BENCHMARKS:
        assert f"`{name}`" in text, name


def test_the_committed_gemm_runs_are_bit_exact_and_within_the_peers_error():
    for name, entry in results("gemm_hopper")["kernels"].items():
        assert entry["bit_exact_integer_data"], name
        if entry["dtype"] == "e4m3":
            assert entry["max_error_relative_to_max"] == entry["scaled_mm_fast_accum_max_error_relative_to_max"]
        else:
            assert entry["max_error_relative_to_max"] <= entry["cublas_max_error_relative_to_max"], name
    for name, entry in results("gemm_mma")["kernels"].items():
        assert entry.get("bit_exact_integer_data", entry.get("bit_exact_vs_int64_modulo_2_32")), name


def test_the_committed_attention_run_is_within_the_backends_error():
    for name, entry in results("attention")["kernels"].items():
        backends = [v for k, v in entry.items() if k.endswith("_max_error_relative_to_max")
                    and k != "max_error_relative_to_max"]
        assert entry["out"] == "bfloat16" and entry["max_error_relative_to_max"] <= max(backends), name
        assert entry["ratio_vs_best_sdpa"] >= 1.0, name


def test_build_compiles_the_entries_to_artifacts(tmp_path):
    from tile_mlir import runtime
    main(["build", "softmax", "--out", str(tmp_path), "--only", "bf16"])
    (file,) = os.listdir(tmp_path)
    kernel = runtime.load(str(tmp_path / file))
    assert file == "softmax_bf16_r65536.json" and kernel.block[0] == 256


def test_compare_prints_every_ratio(capsys):
    main(["compare", "reduce_sum"])
    out = capsys.readouterr().out
    report = results("reduce_sum")
    assert out.startswith(f"reduce_sum: {report['device']}")
    assert len(list(ratios(report))) == len(re.findall(r"best_torch \d\.\d{3}x", out)) > 0


def test_list_names_every_benchmark():
    out = subprocess.run([sys.executable, "-m", "bench", "list"], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    assert [line.split()[0] for line in out.splitlines()] == list(BENCHMARKS)


def test_the_gpu_side_needs_no_mlir():
    # The GPU machine has torch and the CUDA driver but no MLIR: every
    # benchmark imports there (its kernels' modules only when an entry is
    # built, here).
    code = ("import sys\n"
            "class NoMlir:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'mlir' or name.startswith(('mlir.', 'tile_mlir._tile')):\n"
            "            raise ImportError('no MLIR on the GPU machine: ' + name)\n"
            "sys.meta_path.insert(0, NoMlir())\n"
            "import importlib\n"
            "from bench.__main__ import BENCHMARKS\n"
            "for name in BENCHMARKS:\n"
            "    importlib.import_module('bench.' + name)\n"
            "print('ok')\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert run.stdout.strip() == "ok", run.stderr


def test_a_baseline_is_paired_with_its_kernel_not_run_alone(tmp_path):
    import shutil

    from bench.artifacts import kernels
    main(["build", "softmax", "--out", str(tmp_path), "--only", "evict"])
    shutil.copy(tmp_path / "softmax_f32_r65536_x_evict_last.json",
                tmp_path / "softmax_f32_r65536_x_evict_last__base_abc1234.json")
    found = [(name, base is not None, base_name) for name, _, base, base_name in kernels(str(tmp_path))]
    assert found == [("softmax_f32_r65536_x_evict_last", True, "softmax_f32_r65536_x_evict_last__base_abc1234"),
                     ("softmax_f32_r65536_x_evict_last_out_evict_first", False, None)]


def test_timed_rounds_times_the_baseline_right_after_the_kernel(monkeypatch):
    from bench import timing
    order, ms = [], {"tile_mlir": 2.0, "baseline": 3.0, "cublas": 4.0}
    monkeypatch.setattr(timing, "median_ms", lambda fn, repeats: (order.append(fn()), ms[fn()])[1])
    entry = {}
    runs = {key: (lambda key=key: key) for key in ("tile_mlir", "cublas")}
    timing.timed_rounds(entry, runs, rounds=2, repeats=1, baseline=(lambda: "baseline", "old_kernel"))
    assert order == ["tile_mlir", "baseline", "cublas"] * 2
    assert entry["baseline"] == "old_kernel" and entry["ratio_vs_baseline"] == 1.5
    assert entry["ms"] == ms and entry["rounds"]["cublas"] == [4.0, 4.0]
    bare = {}
    timing.timed_rounds(bare, runs, rounds=1, repeats=1)
    assert "baseline" not in bare and "ratio_vs_baseline" not in bare and list(bare["ms"]) == ["tile_mlir", "cublas"]


def test_medians_with_ranges_takes_each_ratio_over_the_rounds():
    from bench.timing import medians_with_ranges
    variant = {"rounds": [{"ms": 1.0, "r": 0.5}, {"ms": 3.0, "r": 2.0}, {"ms": 2.0, "r": 1.0}]}
    assert medians_with_ranges(variant, ("r",)) == 2.0
    assert variant["ms"] == 2.0 and variant["r"] == 1.0 and variant["r_range"] == [0.5, 2.0]
