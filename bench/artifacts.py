"""The artifacts a benchmark's run takes (GPU side): each kernel, with the
kernel it replaced where `python -m bench build --baseline REV` built one
(saved as NAME__base_REV), so that the run times both in the same rounds."""

import os

from tile_mlir import runtime

BASE_TAG = "__base_"


def kernels(artifacts):
    """(name, kernel, baseline kernel or None, baseline's name or None) of
    each artifact of directory `artifacts`, by name."""
    names = sorted(f[:-5] for f in os.listdir(artifacts) if f.endswith(".json"))

    def load(name):
        return runtime.load(os.path.join(artifacts, f"{name}.json"))

    for name in names:
        if BASE_TAG in name:
            continue
        base = next((other for other in names if other.startswith(name + BASE_TAG)), None)
        yield name, load(name), load(base) if base else None, base


def beside(launch, baseline, base_name):
    """timed_rounds' `baseline` for a kernel's replaced one (None if the
    build had none): its run on the entry's data (`launch(kernel)` makes a
    kernel's run) and its name."""
    return None if baseline is None else (launch(baseline), base_name)
