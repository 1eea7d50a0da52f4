"""tools/binder_check.py (`make binder-check`): Binder's image, checked without building it.

The check runs `jupyter-repo2docker --no-build`, offline and without Docker. It
passes on this repository and fails on copies of it with a broken runtime.txt
or requirements.txt, or with a file that would take their place.
"""

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import binder_check  # noqa: E402

# What repo2docker reads from the repository's root.
BINDER_FILES = ["runtime.txt", "requirements.txt", "pyproject.toml"]


@pytest.fixture
def repo(tmp_path):
    """A copy of the files repo2docker reads: a repository the check accepts."""
    for name in BINDER_FILES:
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_binder_would_build_this_repository():
    assert binder_check.binder_problems(ROOT) == []


def test_the_copy_passes(repo):
    assert binder_check.binder_problems(repo) == []


@pytest.mark.parametrize("runtime, says", [
    (None, "Python 3.14, not 3.11"),        # no runtime.txt: repo2docker's default Python
    ("python-3.12", "Python 3.12, not 3.11"),
    ("python3.11", "repo2docker rejects"),   # no dash
    ("python-3.11.7", "repo2docker rejects"),  # x.y only
    ("python-3.1", "repo2docker rejects"),   # outside requires-python
])
def test_a_broken_runtime_is_caught(repo, runtime, says):
    if runtime is None:
        (repo / "runtime.txt").unlink()
    else:
        (repo / "runtime.txt").write_text(runtime + "\n")
    problems = binder_check.binder_problems(repo)
    assert any(says in p for p in problems), problems


@pytest.mark.parametrize("change", ["missing", "renamed", "environment.yml", "binder/"])
def test_requirements_that_binder_would_not_install_are_caught(repo, change):
    if change == "missing":
        (repo / "requirements.txt").unlink()
    elif change == "renamed":
        (repo / "requirements.txt").rename(repo / "requirements-book.txt")
    elif change == "environment.yml":  # repo2docker prefers it to requirements.txt
        (repo / "environment.yml").write_text("dependencies:\n  - python=3.11\n  - numpy\n")
    else:  # a binder/ folder hides the root's configuration
        (repo / "binder").mkdir()
        (repo / "binder" / "requirements.txt").write_text("numpy==2.4.6\n")
    problems = binder_check.binder_problems(repo)
    assert any("does not pip-install the root requirements.txt" in p for p in problems), problems


@pytest.mark.parametrize("line, says", [
    ("numpy=2.4.6", "does not parse"),
    ("numpy>=2", "not pinned"),
    ("numpy", "not pinned"),
    ("numpy==2.*", "not pinned"),
])
def test_a_broken_requirement_is_caught(repo, line, says):
    with open(repo / "requirements.txt", "a", encoding="utf-8") as f:
        f.write(line + "\n")
    problems = binder_check.binder_problems(repo)
    assert len(problems) == 1 and says in problems[0] and repr(line) in problems[0], problems


def test_the_requirements_file_is_read_as_pip_reads_it(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text("# a comment\n\nnumpy==2.4.6  # pinned\n-e .\nscipy[test]==1.17.1\n")
    assert binder_check.requirement_problems(path) == []
