"""nbval still bites: a stored number changed by one digit fails the notebook test.

`make nbval` (and `make nbval-kernels`) pass only because the stored outputs are
stable; this test shows the comparison is still strict. It copies one chapter
twice, changes one digit in the first printed output of one copy, and runs
nbval on both copies in a subprocess with the Makefile's own command line
(two pytest-xdist workers, one notebook each): exactly that cell of that copy
must fail, and every other cell of both copies must pass.
"""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "01_parameter_space.ipynb"  # the quickest chapter to run
SANITIZE = ROOT / "book" / "nbval_sanitize.cfg"


def change_one_digit(nb):
    """Change the first digit of the first printed output; return that cell's index."""
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    for index, cell in enumerate(code):
        for output in cell.get("outputs", []):
            if output["output_type"] != "stream":
                continue
            text = "".join(output["text"])
            digit = re.search(r"\d", text)
            if digit:
                changed = str((int(digit.group()) + 1) % 10)
                output["text"] = text[:digit.start()] + changed + text[digit.end():]
                return index
    raise AssertionError(f"{CHAPTER.name} prints no digit")


def makefile_nbval():
    """The pytest arguments of `make nbval` (two workers), from make's dry run."""
    run = subprocess.run(["make", "-n", "--no-print-directory", "-o", ".venv/.installed",
                          "JOBS=2", "nbval"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    (line,) = run.stdout.splitlines()
    words = shlex.split(line)
    return next(words[i + 1:] for i, w in enumerate(words) if w.endswith("/python"))


def nbval(paths):
    """nbval over `paths` with the Makefile's arguments (the book folder swapped for them)."""
    args = []
    for word in makefile_nbval():
        if word == "book":
            args += map(str, paths)
        elif (ROOT / word).is_file():  # the sanitize file
            args.append(str(ROOT / word))
        else:
            args.append(word)
    assert args[:2] == ["-m", "pytest"] and "--nbval" in args and "--dist" in args, args
    folder = paths[0].parent
    return subprocess.run(
        [sys.executable, *args, "-p", "no:cacheprovider", "-rf", "--rootdir", str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=600,
    )


def test_nbval_fails_on_a_changed_stored_number(tmp_path):
    nb = json.loads(CHAPTER.read_text(encoding="utf-8"))
    (tmp_path / "unchanged.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    changed_cell = change_one_digit(nb)
    (tmp_path / "changed.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    result = nbval([tmp_path / "changed.ipynb", tmp_path / "unchanged.ipynb"])
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    assert re.search(r"\b2 workers\b", report), report
    failed = re.findall(r"FAILED (\S+)::Cell (\d+)", report)
    assert failed == [("changed.ipynb", str(changed_cell))], report
    n_code = sum(c["cell_type"] == "code" for c in nb["cells"])
    assert re.search(rf"\b1 failed, {2 * n_code - 1} passed\b", report), report
