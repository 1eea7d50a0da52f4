"""(d) Peak memory of a 1M-row fit: ``make_hastie_10_2``, 1 000 000 rows × 10 features.

Each library fits in a fresh subprocess. After the data exist, the process's
peak resident set size is reset (Linux: ``/proc/self/clear_refs``), the model
is fitted (10 depth-3 trees: the memory of a stage does not grow with the
number of stages, only the fitted trees do, and they are small), and the new
peak (``VmHWM``) minus the resident size before the fit is the fit's extra
memory. Target for boostlib: under 3 × ``X.nbytes`` (X is 80 MB of float64).
Where ``clear_refs`` is not available, ``tracemalloc``'s peak is used instead
(it sees numpy's allocations but not those made in C by the tree builder).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import harness

NAME = "memory"
N_SAMPLES = 1_000_000
N_STAGES = 10
TARGET = 3.0
LIBRARIES = ("boostlib", "sklearn GradientBoosting")


def _status(key):
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024  # kB -> bytes
    raise KeyError(key)


def measure(library):
    """In this process: the fit's extra peak memory in bytes, and how it was measured."""
    import numpy as np
    from sklearn.datasets import make_hastie_10_2
    from sklearn.ensemble import GradientBoostingClassifier

    from boostlib import BoostingClassifier

    X, y = make_hastie_10_2(n_samples=N_SAMPLES, random_state=0)
    model = (BoostingClassifier(loss="log_loss", n_estimators=N_STAGES, random_state=0)
             if library == "boostlib" else
             GradientBoostingClassifier(max_depth=3, n_estimators=N_STAGES, random_state=0))
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")  # reset the peak RSS to the current RSS
        before = _status("VmRSS")
        model.fit(X, y)
        extra, method = _status("VmHWM") - before, "VmHWM after reset"
    except OSError:
        import tracemalloc

        tracemalloc.start()
        model.fit(X, y)
        extra, method = tracemalloc.get_traced_memory()[1], "tracemalloc peak"
        tracemalloc.stop()
    return {"library": library, "n_samples": N_SAMPLES, "n_features": X.shape[1],
            "stages": N_STAGES, "X_nbytes": int(X.nbytes), "fit_extra_peak_bytes": int(extra),
            "ratio_to_X": extra / X.nbytes, "method": method,
            "train_accuracy": float(np.mean(model.predict(X) == y))}


def run(quick=False):

    rows = []
    for library in LIBRARIES[:1] if quick else LIBRARIES:
        child = subprocess.run([sys.executable, __file__, library], env=dict(os.environ),
                               capture_output=True, text=True, check=True)
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
    return harness.write_csv(NAME, rows, notes=[
        f"make_hastie_10_2 {N_SAMPLES} rows, {N_STAGES} depth-3 trees, log loss; extra peak"
        " memory of fit() over the resident size before it, in a fresh process",
    ])


def summary(frame):
    shown = frame.assign(extra_MB=frame["fit_extra_peak_bytes"] / 2**20,
                         X_MB=frame["X_nbytes"] / 2**20)
    shown = shown[["library", "n_samples", "stages", "X_MB", "extra_MB", "ratio_to_X", "method"]]
    ratio = frame.loc[frame["library"] == "boostlib", "ratio_to_X"].iloc[0]
    verdict = "meets" if ratio < TARGET else "misses"
    return (f"Peak extra memory of a 1M-row fit (target for boostlib < {TARGET} x X.nbytes; "
            f"{ratio:.2f} x {verdict} it).\n\n" + harness.markdown_table(shown))


if __name__ == "__main__":
    harness.single_threaded()
    print(json.dumps(measure(sys.argv[1])))
