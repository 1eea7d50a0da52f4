"""benchmarks/make_targets.py (`make timings`), run on a stand-in Makefile (nothing real is timed).

The stand-in's targets sleep, burn CPU in a child process or fail, so the
wall and CPU columns, the exit status and the budget check can be told apart.
"""

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import harness  # noqa: E402
import make_targets  # noqa: E402

BURN = f'{sys.executable} -c "sum(range(3 * 10**7))"'


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(make_targets, "SETTLE_S", 0)  # no waiting for the test machine's load
    (tmp_path / "Makefile").write_text(textwrap.dedent(f"""\
        .venv/.installed:
        \tmkdir -p .venv && touch $@
        test:
        \tsleep 0.3
        book:
        \tmkdir -p _build && touch _build/page
        nbval-kernels:
        \t{BURN}
        \texit 3
        """))
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / "stale").touch()
    return tmp_path


def test_every_target_is_timed_once_in_order_and_saved(project):
    rows = make_targets.run(set(make_targets.TARGETS), cwd=project)
    assert [r["run"] for r in rows] == list(make_targets.TARGETS)
    assert (project / ".venv/.installed").exists(), "installed first, untimed"
    assert not (project / "_build" / "stale").exists(), "the first book build starts from scratch"
    by_run = {r["run"]: r for r in rows}
    assert by_run["test"]["wall_s"] >= 0.3 and by_run["test"]["cpu_children_s"] < 0.3
    assert by_run["nbval-kernels"]["cpu_children_s"] >= 0.2  # the child's CPU is counted
    assert by_run["nbval-kernels"]["status"] == 2  # make exits 2 when a recipe fails
    assert by_run["nbval-kernels"]["within_budget"] == "False"
    assert by_run["test"]["within_budget"] == "True" and by_run["test"]["budget_s"] == 360
    assert by_run["book"]["budget_s"] == 60
    assert all(r["load_before"] >= 0 and r["load_after"] >= 0 for r in rows)
    saved = harness.read_csv("make_targets")
    assert list(saved["run"]) == list(make_targets.TARGETS)
    assert list(saved["status"]) == [0, 0, 0, 2]
    assert "cpu_count=" in harness.read_header("make_targets")[0]


def test_timing_book_times_a_second_build(monkeypatch):
    asked = []
    monkeypatch.setattr(make_targets, "run", lambda labels: asked.append(labels) or [{"status": 0}])
    assert make_targets.main(["book"]) == 0
    assert asked == [{"book (from scratch)", "book"}]
    with pytest.raises(SystemExit):
        make_targets.main(["no-such-target"])


def test_a_busy_machine_is_said_in_the_file(project, monkeypatch):
    monkeypatch.setattr(make_targets.os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    make_targets.run({"test"}, cwd=project)
    assert any(line.startswith("NOT QUIET") for line in harness.read_header("make_targets"))


def test_each_target_waits_for_the_load_of_the_last_to_die_down(monkeypatch):
    loads = iter([2.0, 1.2, 0.6, 0.4, 0.4])
    slept = []
    monkeypatch.setattr(make_targets.os, "getloadavg", lambda: (next(loads),) * 3)
    monkeypatch.setattr(make_targets.time, "sleep", slept.append)
    make_targets.settle()
    assert slept == [5, 5, 5]  # until the load is below QUIET_LOAD
    monkeypatch.setattr(make_targets.os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    monkeypatch.setattr(make_targets, "SETTLE_S", 0)
    make_targets.settle()  # a machine that stays busy: no wait past SETTLE_S
    assert len(slept) == 3


def test_a_subset_rerun_keeps_the_other_targets_rows(project):
    make_targets.run(set(make_targets.TARGETS), cwd=project)
    before = harness.read_csv("make_targets").set_index("run")
    make_targets.run({"test"}, cwd=project)
    after = harness.read_csv("make_targets").set_index("run")
    assert list(after.index) == list(make_targets.TARGETS)
    for label in ("book (from scratch)", "book", "nbval-kernels"):
        assert after.loc[label].equals(before.loc[label])
    assert after.loc["test", "status"] == 0
