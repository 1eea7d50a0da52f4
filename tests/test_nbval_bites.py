"""nbval still bites: a stored number changed by one digit fails the notebook test.

`make nbval` runs every chapter under four BLAS kernels and passes only because
the stored outputs are stable; this test shows the comparison is still strict.
It copies one chapter, changes one digit in the first printed output, and runs
nbval on the copy in a subprocess, as the Makefile does: exactly that cell
must fail, and every other cell must pass.
"""

import json
import re
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


def nbval(path):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", str(path), "--nbval-sanitize-with",
         str(SANITIZE), "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "-rf",
         "--rootdir", str(path.parent)],
        cwd=path.parent, capture_output=True, text=True, timeout=600,
    )


def test_nbval_fails_on_a_changed_stored_number(tmp_path):
    nb = json.loads(CHAPTER.read_text(encoding="utf-8"))
    changed_cell = change_one_digit(nb)
    copy = tmp_path / CHAPTER.name
    copy.write_text(json.dumps(nb), encoding="utf-8")
    result = nbval(copy)
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    failed = re.findall(r"FAILED \S+::Cell (\d+)", report)
    assert failed == [str(changed_cell)], report
    n_code = sum(c["cell_type"] == "code" for c in nb["cells"])
    assert re.search(rf"\b1 failed, {n_code - 1} passed\b", report), report
