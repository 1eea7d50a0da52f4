"""The chapters are committed executed, in order, with outputs a reader may see.

nbval (in `make test`) compares each stored output with a fresh run, but it
skips cells without an execution count and cannot tell a figure saved as SVG
or a machine path in a printout from a good output; this file can.
"""

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
NOTEBOOKS = sorted(p for p in BOOK.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
# A path on the machine that executed the notebook: /work/..., /tmp/..., /root/..., /home/...
# (not inside a URL such as https://example.org/work/).
MACHINE_PATH = re.compile(r"(?<![\w.:/-])/(?:work|tmp|root|home)/")


def toc_files(entries):
    for entry in entries:
        if "file" in entry:
            yield entry["file"]
        for key in ("chapters", "sections", "parts"):
            yield from toc_files(entry.get(key, []))


def test_every_toc_entry_exists():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"], *toc_files(toc.get("parts", []) + toc.get("chapters", []))]
    missing = [f for f in files
               if not any((ROOT / f).with_suffix(s).is_file() for s in (".md", ".ipynb"))]
    assert not missing, f"listed in _toc.yml but not in the tree: {missing}"


def code_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def output_texts(output):
    """Every piece of text a reader may see in one output (images are not text)."""
    if output["output_type"] == "stream":
        yield "".join(output["text"])
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/"):
            yield "".join(value) if isinstance(value, list) else value


def toc_notebooks():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"], *toc_files(toc.get("parts", []) + toc.get("chapters", []))]
    return [(ROOT / f).with_suffix(".ipynb") for f in files
            if (ROOT / f).with_suffix(".ipynb").is_file()]


@pytest.mark.parametrize("path", toc_notebooks(), ids=lambda p: p.name)
def test_every_chapter_computes_and_draws(path):
    """A chapter in the table of contents has code and at least one stored PNG figure."""
    cells = code_cells(path)
    assert cells, "a chapter notebook without code cells"
    pngs = [o for c in cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert pngs, "no figure stored as PNG"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(BOOK).as_posix())
def test_notebook_is_executed_in_order_and_clean(path):
    cells = code_cells(path)
    assert cells, "a notebook without code cells"
    counts = [c.get("execution_count") for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"code cells are numbered {counts}, not 1..{len(cells)}: run `make notebooks`")
    outputs = [(i, o) for i, c in enumerate(cells, 1) for o in c.get("outputs", [])]
    assert outputs, "no cell has an output: nbval would compare nothing"
    problems = []
    for i, out in outputs:
        if out["output_type"] == "error":
            problems.append(f"cell {i}: error output {out.get('ename')}: {out.get('evalue')}")
        images = [m for m in out.get("data", {}) if m.startswith("image/")]
        problems += [f"cell {i}: image saved as {m}, not image/png" for m in images
                     if m != "image/png"]
        for text in output_texts(out):
            if "Traceback" in text:
                problems.append(f"cell {i}: a traceback in the output")
            m = MACHINE_PATH.search(text)
            if m:
                problems.append(f"cell {i}: a machine path in the output: "
                                f"{text[max(0, m.start() - 30): m.end() + 30]!r}")
    assert not problems, "\n".join(problems)
