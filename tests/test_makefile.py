"""What `make test`, `make nbval`, `make nbval-kernels` and `make book` run, and where CI
calls them.

The recipes run for real, with `BIN` pointing at a folder of stand-ins for
`python`, `ruff` and `jupyter-book` that log their arguments and the OpenBLAS
kernel they were given: `make test` must lint, run the unit tests and nbval once
under the machine's own kernel (whatever the caller's OPENBLAS_CORETYPE),
`make nbval-kernels` the three other kernels, even when one of them fails, and
`make book` must check the chapters' records before it builds, and stop if they
are stale.
"""

import os
import re
import shlex
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ["Haswell", "Sandybridge", "Prescott"]


@pytest.fixture
def fake_bin(tmp_path):
    """A BIN folder of tools that append one line to `log` and fail for `fail_on`."""
    for tool in ("python", "ruff", "jupyter-book"):
        script = tmp_path / tool
        script.write_text(textwrap.dedent(f"""\
            #!/bin/sh
            echo "{tool} core=${{OPENBLAS_CORETYPE-native}} $*" >> "{tmp_path}/log"
            [ "${{OPENBLAS_CORETYPE-native}}" != "$FAIL_ON" ]
            """))
        script.chmod(0o755)
    return tmp_path


def make(target, fake_bin, fail_on="", **env):
    run = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", f"BIN={fake_bin}",
         "JOBS=2", target],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**{k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"},
             "FAIL_ON": fail_on, **env})
    log = (fake_bin / "log").read_text().splitlines() if (fake_bin / "log").exists() else []
    return run, [line.split(" ", 2) for line in log]


def nbval_runs(log):
    return [core for tool, core, args in log if tool == "python" and "--nbval" in args]


def test_make_test_lints_tests_and_runs_nbval_once_under_the_native_kernel(fake_bin):
    run, log = make("test", fake_bin, OPENBLAS_CORETYPE="Prescott")
    assert run.returncode == 0, run.stdout + run.stderr
    assert [tool for tool, _, _ in log] == ["ruff", "python", "python"]
    unit = shlex.split(log[1][2])
    assert unit[:2] == ["-m", "pytest"] and "tests" in unit and unit[unit.index("-n") + 1] == "2"
    assert nbval_runs(log) == ["core=native"]


def test_nbval_runs_whole_chapters_per_worker(fake_bin):
    run, log = make("nbval", fake_bin)
    assert run.returncode == 0, run.stdout + run.stderr
    ((_, core, args),) = log
    args = shlex.split(args)
    assert core == "core=native"
    assert args[args.index("-n") + 1] == "2" and args[args.index("--dist") + 1] == "loadfile"
    assert args[args.index("--nbval") + 1] == "book" and "no:randomly" in args


def test_nbval_kernels_runs_the_other_three_and_reports_a_failure(fake_bin):
    run, log = make("nbval-kernels", fake_bin, fail_on="Sandybridge")
    # every kernel runs, even after one failed; the failure is named and fails make
    assert nbval_runs(log) == [f"core={k}" for k in KERNELS]
    assert run.returncode != 0
    failed = re.findall(r"^nbval failed with OPENBLAS_CORETYPE: (.*)$", run.stdout, re.M)
    assert failed == ["Sandybridge"], run.stdout
    run, _ = make("nbval-kernels", fake_bin)
    assert run.returncode == 0, run.stdout + run.stderr


def test_make_book_checks_the_records_first_and_stops_if_they_are_stale(fake_bin):
    run, log = make("book", fake_bin)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [(tool, args) for tool, _, args in log] == [
        ("python", "tools/executed.py"), ("jupyter-book", "build . -W -n --keep-going")]
    (fake_bin / "log").unlink()
    run, log = make("book", fake_bin, fail_on="native")  # tools/executed.py finds a stale chapter
    assert run.returncode != 0
    assert [tool for tool, _, _ in log] == ["python"], "nothing is built"


def make_lines(text):
    return [" ".join(shlex.split(line, comments=True)) for line in text.splitlines()
            if line.strip().startswith("make ")]


def test_ci_runs_the_kernel_matrix_after_make_test():
    ci = make_lines((ROOT / ".ci" / "run").read_text())
    assert ci.index("make nbval-kernels") == ci.index("make test") + 1
    workflow = yaml.safe_load((ROOT / ".github/workflows/test.yml").read_text())
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    assert runs.index("make nbval-kernels") == runs.index("make test") + 1
