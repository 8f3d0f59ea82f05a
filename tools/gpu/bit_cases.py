"""Kernels compared bit for bit with the interpreter on the GPU
(mbarrier_check.py, wgmma_check.py): a build here saves each kernel's
artifact and, in `cases.json`, its input arrays and the output the
interpreter gave; `run` on the GPU launches each and compares its output
with that one, word for word."""

import json
import os

import numpy as np


def entry(name, arrays, initial=None):
    """The index entry of kernel `name` run on `arrays` (inputs, then the
    output the interpreter wrote); `initial`: the output's values before
    the kernel (a reduction into it), zeros when not given."""
    case = {"name": name, "inputs": [x.tolist() for x in arrays[:-1]],
            "input_dtypes": [str(x.dtype) for x in arrays[:-1]],
            "expected": arrays[-1].view(np.uint32).tolist(), "dtype": str(arrays[-1].dtype),
            "shape": list(arrays[-1].shape)}
    if initial is not None:
        case["initial"] = initial.view(np.uint32).tolist()
    return case


def write_index(out_dir, index, what):
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(index, f)
    print(len(index), what, "kernels built")


def main(argv, doc, what, verbs):
    """A check's command line: `verbs` maps each verb to the function that
    takes its arguments (as many as it has parameters without a default);
    `run OUT_DIR REPORT` compares the built kernels (run). Without a known
    verb and its arguments, prints `doc` and returns 2."""
    import inspect
    verbs = dict(verbs, run=lambda out_dir, report_path: run(out_dir, report_path, what))
    fn = verbs.get(argv[0]) if argv else None
    count = fn and sum(p.default is p.empty for p in inspect.signature(fn).parameters.values())
    if fn is None or len(argv) - 1 < count:
        print(doc)
        return 2
    fn(*argv[1:1 + count])
    return 0


def run(out_dir, report_path, what):
    """Launches every kernel of `out_dir`'s index and writes the report:
    the kernels, those whose output equals the interpreter's, and for the
    others where the first words differ."""
    from tile_mlir import runtime
    with open(os.path.join(out_dir, "cases.json")) as f:
        index = json.load(f)
    report = {"kernels": 0, "mismatched": [], "passed": []}
    for case in index:
        kernel = runtime.load(os.path.join(out_dir, f"{case['name']}.json"))
        expected = np.array(case["expected"], np.uint32)
        out = np.zeros(case.get("shape", expected.shape), case["dtype"])
        if "initial" in case:
            out.view(np.uint32)[...] = np.array(case["initial"], np.uint32)
        kernel(*[np.array(x, d) for x, d in zip(case["inputs"], case["input_dtypes"])], out)
        out = out.view(np.uint32)
        report["kernels"] += 1
        if np.array_equal(out, expected):
            report["passed"].append(case["name"])
        else:
            where = np.argwhere(out != expected)
            report["mismatched"].append({"name": case["name"], "count": int(len(where)),
                                         "where": where[:4].tolist(),
                                         "got": [int(out[tuple(w)]) for w in where[:4]],
                                         "want": [int(expected[tuple(w)]) for w in where[:4]]})
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    print(report["kernels"], what, "kernels,", len(report["mismatched"]), "mismatched", report["mismatched"][:3])
