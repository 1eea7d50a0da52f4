"""What every benchmark shares: the clock, the run order and the result files.

Timings follow three rules (benchmarks/README.md):

* single-threaded: ``run_all.py`` sets ``OMP_NUM_THREADS=1`` (and the BLAS
  equivalents) before numpy is imported, and every peer gets ``n_jobs=1``;
* alternating: competitors run A, B, A, B, …, so a slow spell on the shared
  machine hits all of them, and the reported value is the median of the repeats;
* recorded: every CSV starts with ``#`` comment lines naming the library
  versions, the machine's CPU count and the commit of boostlib it ran on
  (read it with ``pd.read_csv(path, comment="#")``).

Every comparison of models follows one protocol (chapter 7 states it; the
functions under "The protocol" below implement it):

1. the stage, or any other tuned setting, is chosen on a validation part carved
   out of the *training* rows (:func:`validation_split`, :func:`chosen_stage`),
   never on the test rows;
2. the test loss (the loss the model minimises, or the log loss) is reported
   beside the accuracy or error (:func:`held_out_run`);
3. every number is repeated on the train/test splits ``SPLITS`` (at least five)
   and reported as mean, standard error and range (:func:`spread`);
4. runs that diverge, or where a cap decided the result (the step cap
   ``RHO_MAX``, Newton's iteration cap on ρ, the stage budget), are reported as
   such (:class:`CapWatch`, :func:`run_status`); a cap decides a result read at
   the chosen stage ``m*`` only if it acted at a stage up to ``m*``.

A result is stale once the code of boostlib it measures changed after the commit it
was computed on (``MEASURES``, :func:`stale_modules`; ``tests/test_benchmarks.py``
fails on a stale CSV).
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository: git and boostlib live here
RESULTS = ROOT / "benchmarks" / "results"
# numba sizes its pool from NUMBA_NUM_THREADS (boostlib's n_jobs=None is the whole pool)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMBA_NUM_THREADS")


def single_threaded():
    """Pin every thread pool to one thread (OpenMP, BLAS, numba); call before numpy is imported."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"


def versions():
    """Library versions and the machine, as recorded in every result file."""
    from importlib.metadata import version

    record = {"python": platform.python_version()}
    for package in ("numpy", "scipy", "scikit-learn", "xgboost", "lightgbm", "boostlib"):
        try:
            record[package] = version(package)
        except Exception:  # a peer that is not installed is recorded as missing
            record[package] = "missing"
    record["boostlib_commit"] = boostlib_commit()
    record["cpu_count"] = os.cpu_count()
    # the 1-minute load average when the file is written: above ~1 per core a
    # timing taken in the run is not to be trusted
    record["loadavg"] = f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "unknown"
    record["machine"] = platform.machine()
    record["threads"] = os.environ.get("OMP_NUM_THREADS", "unset")
    return record


def boostlib_commit():
    """The last commit that changed boostlib/ ("+dirty" if it has uncommitted changes)."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", "boostlib"], cwd=root,
                                check=True, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "boostlib"], cwd=root,
                               check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def write_csv(name, frame, notes=()):
    """Write ``results/<name>.csv``: version comment lines, free notes, then the table.

    ``frame`` is a DataFrame or a list of row dicts; returns the DataFrame written.
    """
    import pandas as pd

    frame = pd.DataFrame(frame)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.csv"
    header = " ".join(f"{k}={v}" for k, v in versions().items())
    with path.open("w", encoding="utf-8") as handle:
        handle.write(f"# {header}\n")
        for note in notes:
            handle.write(f"# {note}\n")
        frame.to_csv(handle, index=False)
    return frame


def resumed(name, part, result=None):
    """A long benchmark's finished part: saved when ``result`` is given, else loaded (or None).

    Parts live in ``.cache/<name>/<part>.pkl`` (not committed) and are keyed by
    the boostlib commit, so a run that was interrupted resumes where it stopped,
    and a part computed on other code is computed again. Delete the folder to
    start afresh.
    """
    import pickle

    folder = RESULTS.parents[1] / ".cache" / name
    path = folder / f"{part}.pkl"
    if result is not None:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps({"commit": boostlib_commit(), "result": result}))
        return result
    if path.exists():
        saved = pickle.loads(path.read_bytes())
        if saved["commit"] == boostlib_commit() and not saved["commit"].endswith("+dirty"):
            return saved["result"]
    return None


def read_csv(name):
    """The table of ``results/<name>.csv`` (None if that benchmark has not run)."""
    import pandas as pd

    path = RESULTS / f"{name}.csv"
    return pd.read_csv(path, comment="#") if path.exists() else None


def read_header(name):
    """The ``#`` comment lines of ``results/<name>.csv``, without the ``#``."""
    path = RESULTS / f"{name}.csv"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line[2:] for line in lines if line.startswith("# ")]


def cli(run, summary, description, name, quick, argv=None):
    """A benchmark's command line: ``--quick`` (the sizes ``quick`` names) and ``--no-save``.

    Runs ``run(quick=…, save=…)``, prints ``summary`` of its frame, returns 0.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help=f"{quick['n_estimators']} trees and {quick['n_rows']} rows")
    parser.add_argument("--no-save", action="store_true",
                        help=f"print the summary; do not write results/{name}.csv")
    args = parser.parse_args(argv)
    print(summary(run(quick=args.quick, save=not args.no_save)))
    return 0


def timed(work: Callable[[], object], clock=time.process_time):
    """Run ``work()`` once; return ``(seconds on clock, wall seconds, its result)``."""
    wall, start = time.perf_counter(), clock()
    result = work()
    return clock() - start, time.perf_counter() - wall, result


def alternating(competitors: dict[str, Callable[[], object]], repeat=3, clock=time.process_time):
    """Run the competitors in turn, ``repeat`` rounds: A, B, …, A, B, ….

    Returns ``{name: {"seconds": [...], "wall": [...], "result": last result}}``;
    the median of ``seconds`` is what the result files report.
    """
    runs = {name: {"seconds": [], "wall": [], "result": None} for name in competitors}
    for _ in range(repeat):
        for name, work in competitors.items():
            seconds, wall, result = timed(work, clock)
            runs[name]["seconds"].append(seconds)
            runs[name]["wall"].append(wall)
            runs[name]["result"] = result
    return runs


def median(values):
    return statistics.median(values)


def markdown_table(frame, floatfmt=4):
    """A pipe table of ``frame`` (no extra dependency), floats rounded to ``floatfmt`` digits.

    Large floats (|x| ≥ 1e4) get ``floatfmt`` significant digits; small non-zero
    ones (|x| < 1e-3) three significant digits, so 1.15e-14 is not shown as 0.0.
    """
    def cell(value):
        if isinstance(value, float):
            if abs(value) >= 1e4:
                return f"{value:.{floatfmt}g}"
            if 0 < abs(value) < 1e-3:
                return f"{value:.3g}"
            return f"{round(value, floatfmt)}"
        return str(value)

    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The protocol (chapter 7, "How the experiments are run")
# ---------------------------------------------------------------------------

SPLITS = (0, 1, 2, 3, 4)  # train/test splits (data seeds) every comparison is repeated on
VALIDATION_FRACTION = 0.2  # of the training rows, held out to choose the stage


def validation_split(X, y, random_state, fraction=VALIDATION_FRACTION, stratify=False):
    """Carve a validation part out of the training rows: ``(X_fit, X_val, y_fit, y_val)``.

    The test rows are never seen here; ``stratify`` keeps the class shares
    (for classifiers).
    """
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=fraction, random_state=random_state,
                            stratify=y if stratify else None)


def chosen_stage(validation_loss):
    """The stage ``m* = argmin_m`` of a validation curve (values for ``m = 1 … M``), 1-based.

    The first minimiser; a non-finite value (a diverged run) never wins.
    """
    import numpy as np

    curve = np.asarray(validation_loss, dtype=float)
    return int(np.argmin(np.where(np.isfinite(curve), curve, np.inf))) + 1


def staged_score(model, X, y):
    """Accuracy (classifier) or R² (regressor) after every stage ``m = 1 … M``."""
    import numpy as np
    from sklearn.base import is_classifier
    from sklearn.metrics import accuracy_score, r2_score

    if is_classifier(model):
        return np.array([accuracy_score(y, p) for p in model.staged_predict(X)])
    return np.array([r2_score(y, p) if np.all(np.isfinite(p)) else -np.inf
                     for p in model.staged_predict(X)])


def held_out_run(model, split, random_state, stratify=False):
    """Protocol items 1, 2 and 4 for one boostlib model on one train/test split.

    Fits ``model`` on the training rows minus a validation part, chooses the stage
    ``m*`` on the validation loss, and reports at ``m*`` the test loss (the loss
    the model minimises, ``model.loss_``), the test score (accuracy or R²) and,
    for comparison, both after the last stage ``M``. ``budget_decides`` is True
    when ``m* = M``: the validation loss was still falling when the stage budget
    ran out. ``diverged`` is :func:`diverged` of the training loss.

    ``m*`` ranges over the stages ``1 … M``: the protocol compares boosted models.
    ``F0_preferred`` is True when the validation loss of ``F_0`` alone (no stage) is
    below that of every stage, and ``test_loss_F0`` is the test loss of ``F_0``:
    such a run is reported as such (:func:`run_status`), not hidden in a mean.
    """
    import numpy as np

    from boostlib.plotting import staged_loss

    X_fit, X_val, y_fit, y_val = validation_split(split.X_train, split.y_train, random_state,
                                                  stratify=stratify)
    model.fit(X_fit, y_fit)
    validation_loss = staged_loss(model, X_val, y_val)
    stage = chosen_stage(validation_loss)
    F0_validation = initial_loss(model, X_val, y_val)
    test_loss = staged_loss(model, split.X_test, split.y_test)
    test_score = staged_score(model, split.X_test, split.y_test)
    return {
        "stages": model.n_estimators_, "chosen_stage": stage,
        "budget_decides": stage == model.n_estimators_,
        "test_loss": float(test_loss[stage - 1]), "test_score": float(test_score[stage - 1]),
        "test_loss_last": float(test_loss[-1]), "test_score_last": float(test_score[-1]),
        "F0_preferred": bool(F0_validation < np.min(np.where(np.isfinite(validation_loss),
                                                             validation_loss, np.inf))),
        "test_loss_F0": initial_loss(model, split.X_test, split.y_test),
        "initial_train_loss": float(model.train_loss_[0]),
        "final_train_loss": float(model.train_loss_[-1]),
        "diverged": diverged(model.train_loss_),
    }


def initial_loss(model, X, y):
    """The mean loss ``(1/N) Σ_i L(y_i, F_0(x_i))`` of a fitted boostlib model's ``F_0``
    (before any stage), as :func:`boostlib.plotting.staged_loss` gives it after each stage."""
    import numpy as np

    from boostlib.plotting import loss_targets

    Y = loss_targets(model, y)
    F0 = model.init_step_ * model._learner_output(model.init_, model._validate_X(X))
    return float(model.loss_.mean(Y, np.reshape(F0, Y.shape)))


def diverged(train_loss):
    """True when boosting made the training loss non-finite or larger than that of ``F_0``.

    ``train_loss`` is ``model.train_loss_``: the loss of ``F_0``, then after every stage.
    """
    import numpy as np

    train_loss = np.asarray(train_loss, dtype=float)
    return bool(not np.all(np.isfinite(train_loss)) or train_loss[-1] > train_loss[0])


class CapWatch:
    """A boostlib step rule, unchanged, that records the steps at which a cap decided ρ.

    ``CapWatch("line_search")`` or ``CapWatch("newton")`` is passed as ``step=``.
    The caps act where ``φ(ρ) = Σ w L(y, F + ρu)`` has no finite minimiser (the
    learner separates the points it moves, so ``φ`` falls for ever), and also
    where the minimiser lies beyond ``RHO_MAX``: ``RHO_MAX`` bounds ``ρ``, not
    ``ρu``, and a learner whose output ``u`` has become small needs a large ``ρ``
    for a moderate step in ``F``:

    * a *step cap*: the step ended at ``|ρ| = RHO_MAX``, or, for a loss with a
      positive Hessian, where ``φ`` has flattened to rounding (its curvature
      ``φ″(ρ)`` is zero, so the slope the search solves for has underflowed to
      zero, not crossed it);
    * an *iteration cap*: a Newton step on ρ used all ``NEWTON_MAX_ITER``
      iterations without converging (one more iteration would still move ρ by
      more than ``1e-6 (1 + |ρ|)``).

    ``calls`` counts every step (``K`` per stage for ``K`` classes);
    ``step_caps`` and ``iteration_caps`` hold the 0-based indices of the calls
    that hit each cap, ``step_cap`` and ``iteration_cap`` their numbers.
    """

    def __init__(self, name):
        from boostlib.steps import get_step

        self.name, self.rule = name, get_step(name)
        self.calls = 0
        self.step_caps, self.iteration_caps = [], []

    @property
    def step_cap(self):
        return len(self.step_caps)

    @property
    def iteration_cap(self):
        return len(self.iteration_caps)

    def __call__(self, loss, y, F, u, sample_weight=None, learner=None, X=None):
        import numpy as np

        from boostlib.steps import RHO_MAX, _directional_derivatives, newton

        rho, u = self.rule(loss, y, F, u, sample_weight=sample_weight, learner=learner, X=X)
        call = self.calls
        self.calls += 1
        # a flat φ″ means an underflowed loss only where the Hessian is positive
        # (absolute error's is zero everywhere: its line search ends on a kink)
        flat = (loss.positive_hessian and rho != 0.0 and np.any(u != 0)
                and _directional_derivatives(loss, y, F + rho * u, u, sample_weight)[1] == 0.0)
        if abs(rho) >= RHO_MAX or flat:
            self.step_caps.append(call)
        elif self.name == "newton":
            further, _ = newton(loss, y, F + rho * u, u, sample_weight, max_iter=1)
            if abs(further) > 1e-6 * (1 + abs(rho)):
                self.iteration_caps.append(call)
        return rho, u

    def counts(self, stages=None, chosen_stage=None):
        """The counts of calls and caps; with the fit's ``stages`` and its ``chosen_stage``
        ``m*``, the caps are those at stages up to ``m*`` (which decide the result read
        there), and ``step_cap_all``, ``iteration_cap_all`` and ``first_cap_stage``
        (0 if none) cover every stage."""
        if chosen_stage is None:
            return {"step_calls": self.calls, "step_cap": self.step_cap,
                    "iteration_cap": self.iteration_cap}
        per_stage = self.calls // stages  # K calls per stage for K classes
        stage_of = [call // per_stage + 1 for call in range(self.calls)]
        capped = sorted(self.step_caps + self.iteration_caps)
        return {"step_calls": self.calls,
                "step_cap": sum(stage_of[c] <= chosen_stage for c in self.step_caps),
                "iteration_cap": sum(stage_of[c] <= chosen_stage for c in self.iteration_caps),
                "step_cap_all": self.step_cap, "iteration_cap_all": self.iteration_cap,
                "first_cap_stage": stage_of[capped[0]] if capped else 0}

    def __repr__(self):  # the estimator's repr shows the rule's name
        return f"CapWatch({self.name!r})"


def run_status(row):
    """One word for a run, in the order that decides: diverged, a cap, F_0 preferred
    (the validation loss of no boosting at all is lower than at every stage), the stage
    budget, or ok.

    ``row`` has ``diverged``, ``step_cap``, ``iteration_cap`` (counts of steps),
    ``step_calls``, ``F0_preferred`` and ``budget_decides`` (see :func:`held_out_run`,
    :class:`CapWatch`).
    """
    if row.get("diverged"):
        return "diverged"
    if row.get("step_cap", 0):
        return f"step cap ({row['step_cap']}/{row['step_calls']})"
    if row.get("iteration_cap", 0):
        return f"iteration cap ({row['iteration_cap']}/{row['step_calls']})"
    if row.get("F0_preferred"):
        return "F_0 preferred"
    if row.get("budget_decides"):
        return "stage budget"
    return "ok"


def spread(values):
    """Protocol item 3: mean, standard error (sd/√n), min, max and n over the splits."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    n = values.size
    return {"mean": float(values.mean()),
            "se": float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan,
            "min": float(values.min()), "max": float(values.max()), "n": n}


def spread_table(frame, by, value):
    """:func:`spread` of column ``value`` for every group of ``by``, as a DataFrame."""
    import pandas as pd

    groups = frame.groupby(by, sort=False)[value]
    return pd.DataFrame({key: spread(group) for key, group in groups}).T.rename_axis(by)


# ---------------------------------------------------------------------------
# Stale results: a CSV is stale once boostlib code it measures has changed
# ---------------------------------------------------------------------------

# The boosting loop and every boostlib module it imports, directly or through them (not
# counting package __init__ files, which only re-export): tests/test_benchmarks.py checks
# that this is the import closure of boostlib/boosting.py.
LOOP = ("boostlib/boosting.py", "boostlib/directions.py", "boostlib/losses.py",
        "boostlib/steps.py", "boostlib/early_stopping.py", "boostlib/row_blocks.py",
        "boostlib/subsampling.py", "boostlib/trees/binning.py", "boostlib/trees/categorical.py",
        "boostlib/trees/monotone.py", "boostlib/trees/sparse.py", "boostlib/trees/splitting.py",
        "boostlib/trees/threads.py")
# benchmark (results/<name>.csv and the CSVs named <name>_*.csv) -> what it measures
MEASURES = {
    "sklearn_ratio": LOOP,
    "seed000": (*LOOP, "boostlib/datasets.py"),
    "notebooks": ("boostlib",),
    "memory": LOOP,
    "peers": (*LOOP, "boostlib/trees"),
    "peers_timing": (*LOOP, "boostlib/trees"),
    "hist_trees": (*LOOP, "boostlib/trees", "boostlib/datasets.py"),
    "shap_speed": (*LOOP, "boostlib/trees", "boostlib/explain.py"),
    "tree_options": (*LOOP, "boostlib/trees"),
    "categorical_speed": (*LOOP, "boostlib/trees"),
    "esl_10_2": (*LOOP, "boostlib/datasets.py", "boostlib/evaluation.py"),
    "direction_step": (*LOOP, "boostlib/datasets.py", "boostlib/evaluation.py",
                       "boostlib/plotting.py"),
    "regularisation": (*LOOP, "boostlib/datasets.py", "boostlib/evaluation.py",
                       "boostlib/plotting.py"),
    "distributed_fit": (*LOOP, "boostlib/distributed.py"),
    "closed_form_step": (*LOOP, "boostlib/datasets.py", "boostlib/plotting.py"),
    "boosted_networks": (*LOOP, "boostlib/datasets.py", "boostlib/plotting.py"),
    # written by `make timings` (benchmarks/make_targets.py), not by run_all.py
    "make_targets": ("boostlib",),
}
# Result files known to be stale, each to be re-run on a quiet machine (benchmarks/README.md,
# "Stale results"). They were computed before the log loss's L, g and h were taken in one
# pass and the histogram kernels became one (issue 21). tests/test_benchmarks.py fails on a stale
# file that is not listed here, and on a listed file that is no longer stale, so the list can
# only shrink as results are re-run.
KNOWN_STALE = ("distributed_fit", "make_targets", "notebooks")
# boostlib files that no benchmark measures (so a new module forces a decision)
MEASURED_BY_NONE = ("boostlib/__init__.py", "boostlib/descent.py")


def imported_modules(path):
    """The boostlib modules that the module ``path`` imports, directly or through the modules
    it imports (relative and absolute ``boostlib`` imports, read from the source; package
    ``__init__`` files are not followed), ``path`` included, as paths from the root."""
    import ast

    seen, todo = set(), [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        package = current.rsplit("/", 1)[0].split("/")
        for node in ast.walk(ast.parse((ROOT / current).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                parts = (package[:len(package) - node.level + 1] if node.level else [])
                parts += node.module.split(".") if node.module else []
                names = [parts + [alias.name] for alias in node.names] + [parts]
            elif isinstance(node, ast.Import):
                names = [alias.name.split(".") for alias in node.names]
            else:
                continue
            for name in names:
                candidate = "/".join(name) + ".py"
                if name[:1] == ["boostlib"] and (ROOT / candidate).is_file():
                    todo.append(candidate)
    return seen


def benchmark_of(csv_name):
    """The benchmark that writes ``results/<csv_name>.csv`` (``hist_trees_compile``: hist_trees)."""
    names = sorted((n for n in MEASURES if csv_name == n or csv_name.startswith(n + "_")),
                   key=len)
    if not names:
        raise KeyError(f"no benchmark in MEASURES writes {csv_name}.csv")
    return names[-1]


def recorded_commit(csv_name):
    """The ``boostlib_commit`` a result file records ("" if it records none)."""
    for line in read_header(csv_name)[:1]:
        for field in line.split():
            if field.startswith("boostlib_commit="):
                return field.split("=", 1)[1]
    return ""


def _git(*args):
    import subprocess

    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def code_of(source):
    """A module's code without its docstrings and comments: what a result can depend on.

    The abstract syntax tree, dumped, with the docstring of the module and of
    every class and function removed (comments never reach it). A file that
    does not parse is its own text.
    """
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def _code_at(commit, path):
    """``{file: code_of(file)}`` for the ``.py`` files at ``path`` (a file or a folder) in
    ``commit``, or in the working tree when ``commit`` is None."""
    if commit is None:
        target = ROOT / path
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target] * target.exists()
        return {f.relative_to(ROOT).as_posix(): code_of(f.read_text(encoding="utf-8"))
                for f in files}
    return _code_in_commit(str(ROOT), commit, path)


@functools.lru_cache(maxsize=None)
def _code_in_commit(root, commit, path):
    """:func:`_code_at` of a commit, which never changes (cached per repository ``root``)."""
    names = _git("ls-tree", "-r", "--name-only", commit, "--", path).stdout.split()
    return {name: code_of(_git("show", f"{commit}:{name}").stdout)
            for name in names if name.endswith(".py")}


def stale_modules(csv_name):
    """The paths in ``MEASURES`` whose code has changed since the CSV's commit.

    Code is :func:`code_of`: a change to docstrings or comments alone leaves a
    result current, any other change (a file added or removed included) makes
    it stale. Empty when the file is current. A file that records no commit,
    an unknown commit or one with uncommitted changes ("+dirty") is stale in
    every path.
    """
    paths = MEASURES[benchmark_of(csv_name)]
    commit = recorded_commit(csv_name)
    if not commit or commit.endswith("+dirty") or _git("cat-file", "-e", commit).returncode:
        return list(paths)
    return [path for path in paths if _code_at(commit, path) != _code_at(None, path)]
