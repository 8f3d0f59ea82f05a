"""The build-here, run-on-the-GPU driver that mma_check.py and
matrix_check.py share: one artifact per form and a forms.json listing them,
then every form run on `seeds` cases and a report of the mismatched ones."""

import json
import os


def bits_differ(out, want):
    """None where `out` holds `want`'s bits, else what to report: the count
    of elements that differ (a check's result, for `run`)."""
    same = out.view(f"uint{out.itemsize * 8}") == want.view(f"uint{want.itemsize * 8}")
    return None if same.all() else {"elements": int((~same).sum())}


def build(out_dir, entries, kernel, prefix, target, what):
    """Compiles kernel(entry) for each entry into out_dir/<prefix><i>.json."""
    import tile_mlir
    os.makedirs(out_dir, exist_ok=True)
    for i, entry in enumerate(entries):
        tile_mlir.compile(kernel(entry), target=target).save(os.path.join(out_dir, f"{prefix}{i}.json"))
        entry["artifact"] = f"{prefix}{i}.json"
    with open(os.path.join(out_dir, "forms.json"), "w") as f:
        json.dump(entries, f, indent=1)
    print(f"{len(entries)} {what} forms built")


def run(out_dir, report_path, check, target, what, seeds=4):
    """check(kernel, entry, seed) runs one case and returns None when it
    matches, else what to report of the mismatch (recorded for a form's
    first mismatching case)."""
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "forms.json")) as f:
        entries = json.load(f)
    report = {"device": runtime.driver().device_name(), "target": target, "forms": 0, "cases": 0, "mismatched": [],
              "passed": []}
    for entry in entries:
        kernel = runtime.load(os.path.join(out_dir, entry["artifact"]))
        bad = 0
        for seed in range(seeds):
            problem = check(kernel, entry, seed)
            if problem is not None:
                bad += 1
                if bad == 1:
                    report["mismatched"].append({"opcode": entry["opcode"], "seed": seed, **problem})
            report["cases"] += 1
        report["forms"] += 1
        if not bad:
            report["passed"].append(entry["opcode"])
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(f"{report['forms']} {what} forms, {report['cases']} cases, {len(report['mismatched'])} forms mismatched")
    for bad in report["mismatched"][:20]:
        print("MISMATCH", bad)
