"""Mutation testing of boostlib with mutmut; writes results/mutation.md (what `make mutants` runs).

Usage::

    .venv/bin/python benchmarks/mutation.py                      # every group, then the report
    .venv/bin/python benchmarks/mutation.py losses directions    # some groups
    .venv/bin/python benchmarks/mutation.py --survivors trees    # re-test a group's survivors only
    .venv/bin/python benchmarks/mutation.py --report             # only rewrite mutation.md
    .venv/bin/python benchmarks/mutation.py --list               # the groups

mutmut 3 copies the code into ``mutants/`` and rewrites every function into a
*trampoline* that calls the original or one mutant, chosen at run time; it
then runs the tests that reach a function once per mutant of it. Each group
below runs in its own scratch copy of the project (``.mutation/<group>/``,
not committed), with its own ``[tool.mutmut]`` section and a test selection
short enough to run once per mutant. mutmut remembers its verdicts there, so
a second run only tests what changed (delete the folder to start over).

numba: mutmut leaves decorated functions alone, so the ``@njit`` kernels of
``boostlib/trees`` would never be mutated. The ``trees`` group therefore runs
on a copy whose ``@njit(...)`` lines are deleted, with ``NUMBA_DISABLE_JIT=1``:
the kernels run as plain Python, which is what numba compiles (mutants that
would not compile under numba fail under Python too).

The score of a module is killed / (mutants − equivalent): a timeout counts as
killed, a mutant no selected test reaches as not killed. Every surviving
mutant is either killed by a test or listed in ``mutation_equivalent.toml``
(beside this file), under its function and by its change, with one line
saying why no test can tell it apart.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRATCH = ROOT / ".mutation"
RESULT = HERE / "results" / "mutation.md"
EQUIVALENT = HERE / "mutation_equivalent.toml"
MUTMUT = Path(sys.executable).with_name("mutmut")
TREES = ["splitting", "grower", "binning", "histograms", "predictor", "hist_tree"]
TREE_TESTS = ["tests/test_hist_tree.py", "tests/test_kernels.py", "tests/test_missing_values.py"]
KERNELS = ["splitting", "grower", "binning", "histograms", "predictor"]  # hold @njit kernels

# group -> (modules mutated, test files run for each mutant)
GROUPS = {
    "losses": (["boostlib/losses.py"],
               ["tests/test_losses.py", "tests/test_directions.py", "tests/test_steps.py"]),
    "directions": (["boostlib/directions.py"],
                   ["tests/test_directions.py", "tests/test_steps.py"]),
    "steps": (["boostlib/steps.py"], ["tests/test_steps.py", "tests/test_equivalence.py"]),
    "boosting": (["boostlib/boosting.py", "boostlib/early_stopping.py",
                  "boostlib/subsampling.py"],
                 ["tests/test_estimators.py", "tests/test_plotting.py",
                  "tests/test_equivalence.py", "tests/test_sample_weight.py",
                  "tests/test_missing_values.py", "tests/test_feature_importances.py"]),
    # the trees' Python code, numba on (mutmut leaves the @njit kernels alone) ...
    "trees": ([f"boostlib/trees/{name}.py" for name in TREES], TREE_TESTS),
    # ... and their numba kernels, as plain Python (see above)
    "kernels": ([f"boostlib/trees/{name}.py" for name in KERNELS], TREE_TESTS),
}
# -x: a mutant is killed at its first failing test; no random order, no xdist in mutmut
PYTEST_ARGS = ["-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
# mutmut's verdicts by exit code (mutmut.stats.status_by_exit_code)
KILLED, SURVIVED, NO_TESTS, NOT_CHECKED = "killed", "survived", "no tests", "not checked"
# (-11: the mutant crashed the test process, e.g. a numba kernel writing out of bounds)
STATUS = {1: KILLED, 3: KILLED, 0: SURVIVED, 5: NO_TESTS, 33: NO_TESTS, 36: KILLED, -24: KILLED,
          24: KILLED, 152: KILLED, 255: KILLED, -11: KILLED}


def _toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def prepare(group):
    """The scratch copy of the project for ``group``, with its ``[tool.mutmut]`` section."""
    modules, tests = GROUPS[group]
    where = SCRATCH / group
    where.mkdir(parents=True, exist_ok=True)
    for folder in ("boostlib", "tests"):
        # copied without their mtimes: mutmut regenerates a module's mutants only when the
        # source is newer than them, and keeps the verdicts of every function whose source
        # hash is unchanged, so a stale copy can never be tested against new code
        shutil.copytree(ROOT / folder, where / folder, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"), copy_function=shutil.copy)
    if group == "kernels":  # plain-Python kernels, the only code mutmut mutates here
        for path in (where / "boostlib" / "trees").glob("*.py"):
            path.write_text(kernels_only(path.read_text(encoding="utf-8")), encoding="utf-8")
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8") + "\n".join([
        "", "[tool.mutmut]",
        'source_paths = ["boostlib"]',
        f"only_mutate = {_toml_list(modules)}",
        f"pytest_add_cli_args = {_toml_list(PYTEST_ARGS)}",
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}",
        "use_git_change_detection = false",
        "",
    ])
    (where / "pyproject.toml").write_text(config, encoding="utf-8")
    return where


def kernels_only(source):
    """``source`` with its ``@njit(...)`` lines dropped and every other top-level function
    or class fenced by ``# pragma: no mutate start/end`` (the ``trees`` group mutates those)."""
    lines = source.splitlines()
    fences = []  # (first line, last line) of each top-level definition that is not a kernel
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            jitted = any("njit" in ast.unparse(d) for d in node.decorator_list)
            if not jitted:
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                fences.append((first, node.end_lineno))
    for first, last in reversed(fences):
        lines[last:last] = ["# pragma: no mutate end"]
        lines[first - 1:first - 1] = ["# pragma: no mutate start"]
    text = "\n".join(lines) + "\npass  # a statement after the last fence, whose comment it holds\n"
    return re.sub(r"^@njit\(.*\)\n", "", text, flags=re.M)


def environment(group):
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    env["PYTHONHASHSEED"] = "0"
    # mutmut forks a child per mutant, and GNU OpenMP (numba's default threading layer here)
    # terminates (SIGTERM) a child forked from a process that has used it: a parallel kernel
    # run in the parent (mutmut's first pass over the tests) would end every later child
    # that runs a parallel kernel with exit -15
    env["NUMBA_THREADING_LAYER"] = "workqueue"
    if group == "kernels":
        env["NUMBA_DISABLE_JIT"] = "1"
    return env


def verdicts(group):
    """``{mutant name: status}`` from mutmut's meta files of ``group``."""
    found = {}
    for module in GROUPS[group][0]:
        meta = SCRATCH / group / "mutants" / (module + ".meta")
        if not meta.exists():
            continue
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for name, code in codes.items():
            found[name] = STATUS.get(code, NOT_CHECKED if code is None else f"exit {code}")
    return found


def listed(equivalent, name, change):
    """Why mutant ``name`` (whose change is ``change``) is equivalent, or None if not listed.

    ``equivalent`` is the ``[equivalent]`` table of ``mutation_equivalent.toml``: one table
    per function, keyed by the change, so that a renumbered mutant never takes the reason
    written for another.
    """
    return equivalent.get(name.rsplit("__mutmut_", 1)[0], {}).get(change)


def load_equivalent():
    return tomllib.loads(EQUIVALENT.read_text(encoding="utf-8"))["equivalent"]


def run(group, max_children, survivors_only=False):
    where = prepare(group)
    names = []
    if survivors_only:  # not killed yet, and not listed as equivalent
        equivalent, found = load_equivalent(), verdicts(group)
        for module in GROUPS[group][0]:
            alive = [n for n in found if module_of(n) == module
                     and found[n] not in (KILLED, NOT_CHECKED)]
            changed = diffs(group, module, alive)
            names += [n for n in alive if listed(equivalent, n, changed[n]) is None]
        if not names:
            print(f"{group}: no survivors to re-test")
            return
        # mutmut maps each test to the functions it reaches once, and keeps that map: a test
        # changed since (say, to pass sample weights) would not be run against a function
        # it now reaches. The survivors' tests are mapped afresh.
        (where / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    command = ["nice", "-n", "10", str(MUTMUT), "run", "--max-children", str(max_children),
               *names]
    print(f"== {group}: {' '.join(command[:6])} ({len(names) or 'all'} mutants)", flush=True)
    subprocess.run(command, cwd=where, env=environment(group), check=False)


# mutmut's own diff of each mutant, for many mutants in one process (`mutmut show` takes one)
_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
path, names = json.load(sys.stdin)
print(json.dumps({name: get_diff_for_mutant(name, path=path) for name in names}))
"""


def diffs(group, module, names):
    """``{mutant name: its changed lines}``, '-' then '+', joined by ' / '."""
    if not names:
        return {}
    shown = subprocess.run([sys.executable, "-c", _DIFFS], cwd=SCRATCH / group, text=True,
                           input=json.dumps([module, names]), capture_output=True, check=True)
    changed = {}
    for name, text in json.loads(shown.stdout).items():
        lines = [line for line in text.splitlines()
                 if line[:1] in "+-" and not line.startswith(("+++", "---"))]
        changed[name] = " / ".join(line[0] + " " + line[1:].strip() for line in lines)
    return changed


def module_of(name):
    return name.split(".x")[0].replace(".", "/") + ".py"


def report():
    equivalent = load_equivalent()
    rows, survivors = [], []
    totals = dict(mutants=0, checked=0, killed=0, equivalent=0, other=0)
    for group in GROUPS:
        found = verdicts(group)
        for module in GROUPS[group][0]:
            label = f"{module} (kernels)" if group == "kernels" else module
            names = sorted(n for n in found if module_of(n) == module)
            checked = [n for n in names if found[n] != NOT_CHECKED]
            meta = SCRATCH / group / "mutants" / (module + ".meta")
            if not names and meta.exists():  # run, and nothing to mutate: all numba kernels
                rows.append(f"| `{label}` | 0 | – | | | | only numba kernels (below) |")
                continue
            if not checked:
                rows.append(f"| `{label}` | {len(names) or ''} | not run | | | | |")
                totals["mutants"] += len(names)
                continue
            killed = sum(found[n] == KILLED for n in checked)
            alive = [n for n in checked if found[n] != KILLED]
            changed = diffs(group, module, alive)
            equal = [n for n in alive if listed(equivalent, n, changed[n]) is not None]
            other = [n for n in alive if listed(equivalent, n, changed[n]) is None]
            score = killed / max(1, len(checked) - len(equal))
            rows.append(f"| `{label}` | {len(names)} | {len(checked)} | {killed} | {len(equal)} "
                        f"| {len(other)} | {100 * score:.1f} % |")
            for key, value in dict(mutants=len(names), checked=len(checked), killed=killed,
                                   equivalent=len(equal), other=len(other)).items():
                totals[key] += value
            for n in equal + other:
                why = listed(equivalent, n, changed[n]) or f"**not killed** ({found[n]})"
                change = changed[n].replace("|", "\\|")
                survivors.append(f"| `{n.split('.', 1)[1]}` | `{change}` | {why} |")
    score = totals["killed"] / max(1, totals["checked"] - totals["equivalent"])
    text = [
        "# Mutation score", "",
        "Written by `benchmarks/mutation.py` (`make mutants`): mutmut "
        f"{_version('mutmut')} over boostlib's losses, directions, steps, boosting loop and "
        "histogram trees; each module's mutants run against the test files named in the "
        "script's `GROUPS`. Score = killed / (checked − equivalent); a timeout counts as "
        "killed, a mutant that no selected test reaches as not killed. The trees' numba "
        "kernels are mutated as plain Python (`NUMBA_DISABLE_JIT=1`). *checked* is below "
        "*mutants* when a run was stopped before the end.",
        "", "| module | mutants | checked | killed | equivalent | not killed | score |",
        "|---|---|---|---|---|---|---|", *rows,
        f"| **all** | {totals['mutants']} | {totals['checked']} | {totals['killed']} "
        f"| {totals['equivalent']} | {totals['other']} | **{100 * score:.1f} %** |", "",
        "## Survivors", "",
        "Each is an *equivalent* mutant (no test can tell it from the code; why in one line) "
        "or is marked **not killed**.", "",
        "| mutant | change | why it survives |", "|---|---|---|", *survivors, "",
    ]
    RESULT.write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {RESULT.relative_to(ROOT)}: {100 * score:.1f} % of "
          f"{totals['checked'] - totals['equivalent']} non-equivalent mutants killed")


def _version(package):
    from importlib.metadata import version

    return version(package)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"some of {list(GROUPS)} (default: all)")
    parser.add_argument("--max-children", type=int, default=2, help="parallel mutants (2)")
    parser.add_argument("--survivors", action="store_true",
                        help="re-test the survivors not listed as equivalent")
    parser.add_argument("--report", action="store_true", help="only rewrite mutation.md")
    parser.add_argument("--list", action="store_true", help="print the groups")
    args = parser.parse_args(argv)
    if args.list:
        for group, (modules, tests) in GROUPS.items():
            print(f"{group}: {' '.join(modules)}  <-  {' '.join(tests)}")
        return
    unknown = sorted(set(args.groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown groups {unknown}; choose from {list(GROUPS)}")
    if not args.report:
        for group in args.groups or GROUPS:
            run(group, args.max_children, survivors_only=args.survivors)
    report()


if __name__ == "__main__":
    main()
