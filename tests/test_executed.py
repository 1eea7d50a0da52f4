"""tools/executed.py (`make book` runs it first): no page is built from stale outputs.

`make book` does not execute the chapters; it shows their stored outputs. Each
test builds a small tree (a table of contents, two chapters, boostlib, the
benchmark results one chapter reads), records it as tools/execute_notebooks.py
does after executing, then changes one thing: what a chapter's outputs depend on
must make that chapter stale, and nothing else may.
"""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import executed  # noqa: E402

CHAPTER_A = "book/a_reads_results.ipynb"
CHAPTER_B = "book/b_plain.ipynb"


def notebook(*code, markdown="Some prose."):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(markdown)]
    for n, source in enumerate(code, 1):
        cell = nbformat.v4.new_code_cell(source, execution_count=n)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="0.25\n")]
        nb.cells.append(cell)
    return nb


def write(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def tree(tmp_path):
    """A recorded tree: chapter A reads results/peers.csv through harness, B reads nothing."""
    write(tmp_path, "_toc.yml", "format: jb-book\nroot: book/intro\nchapters:\n"
          f"  - file: {CHAPTER_A[:-6]}\n  - file: {CHAPTER_B[:-6]}\n")
    write(tmp_path, "book/intro.md", "# Intro\n")
    write(tmp_path, "requirements.txt", "numpy==2.4.6\n-e .\n")
    write(tmp_path, "boostlib/__init__.py", "from .losses import LOSSES\n")
    write(tmp_path, "boostlib/losses.py", "LOSSES = {}\n")
    write(tmp_path, "boostlib/trees/grower.py", "DEPTH = 3\n")
    write(tmp_path, "benchmarks/harness.py", "def read_csv(name): ...\n")
    write(tmp_path, "benchmarks/peers.py", "NAME = 'peers'\n")
    write(tmp_path, "benchmarks/results/peers.csv", "model,auc\nboostlib,0.9\n")
    write(tmp_path, "benchmarks/results/memory.csv", "model,mb\nboostlib,12\n")
    nbformat.write(notebook("import boostlib", "import harness\npeers = harness.read_csv('peers')"),
                   tmp_path / CHAPTER_A)
    nbformat.write(notebook("import boostlib\nprint(0.25)"), tmp_path / CHAPTER_B)
    for name in (CHAPTER_A, CHAPTER_B):
        executed.record(tmp_path / name, executed.inputs(tmp_path / name, tmp_path), tmp_path)
    assert executed.stale(tmp_path) == {}
    return tmp_path


def edit_cell(root, name, index, source=None, outputs=None):
    path = root / name
    nb = nbformat.read(path, as_version=4)
    if source is not None:
        nb.cells[index].source = source
    if outputs is not None:
        nb.cells[index].outputs = outputs
    nbformat.write(nb, path)


def test_the_recorded_tree_passes_and_names_the_files_a_chapter_reads(tree):
    manifest = executed.read(tree)
    assert set(manifest) == {CHAPTER_A, CHAPTER_B}
    assert sorted(manifest[CHAPTER_A]["files"]) == ["benchmarks/harness.py",
                                                    "benchmarks/results/peers.csv"]
    assert manifest[CHAPTER_B]["files"] == {}
    assert executed.main([str(tree)]) == 0


@pytest.mark.parametrize("file", ["boostlib/losses.py", "boostlib/trees/grower.py"])
def test_a_changed_boostlib_module_makes_every_chapter_stale(tree, file):
    write(tree, file, (tree / file).read_text() + "# a comment counts too\n")
    assert executed.stale(tree) == {CHAPTER_A: ["boostlib changed"],
                                    CHAPTER_B: ["boostlib changed"]}


def test_a_new_boostlib_module_makes_every_chapter_stale(tree):
    write(tree, "boostlib/explain.py", "def shap(): ...\n")
    assert set(executed.stale(tree)) == {CHAPTER_A, CHAPTER_B}


def test_rewriting_a_file_unchanged_is_no_change(tree):
    for file in ("boostlib/losses.py", "requirements.txt", "benchmarks/results/peers.csv"):
        write(tree, file, (tree / file).read_text())
    assert executed.stale(tree) == {}


def test_a_changed_code_cell_makes_only_its_chapter_stale(tree):
    edit_cell(tree, CHAPTER_B, 1, source="import boostlib\nprint(0.5)")
    assert executed.stale(tree) == {CHAPTER_B: ["its code cells changed"]}


def test_prose_and_stored_outputs_are_not_inputs(tree):
    """A page rebuilt after editing prose needs no execution (nbval checks the outputs)."""
    edit_cell(tree, CHAPTER_A, 0, source="Better prose.")
    edit_cell(tree, CHAPTER_B, 1, outputs=[])
    assert executed.stale(tree) == {}


def test_a_result_a_chapter_reads_makes_only_that_chapter_stale(tree):
    write(tree, "benchmarks/results/memory.csv", "model,mb\nboostlib,13\n")  # read by nobody
    assert executed.stale(tree) == {}
    write(tree, "benchmarks/results/peers.csv", "model,auc\nboostlib,0.8\n")
    assert executed.stale(tree) == {CHAPTER_A: ["benchmarks/results/peers.csv changed"]}
    (tree / "benchmarks/results/peers.csv").unlink()
    assert executed.stale(tree) == {CHAPTER_A: ["benchmarks/results/peers.csv is gone"]}


def test_a_benchmark_module_a_chapter_imports_is_an_input(tree):
    write(tree, "benchmarks/peers.py", "NAME = 'other'\n")  # not imported: no change
    assert executed.stale(tree) == {}
    write(tree, "benchmarks/harness.py", "def read_csv(name): return None\n")
    assert executed.stale(tree) == {CHAPTER_A: ["benchmarks/harness.py changed"]}


def test_changed_pins_make_every_chapter_stale(tree):
    write(tree, "requirements.txt", "numpy==2.4.7\n-e .\n")
    assert set(executed.stale(tree)) == {CHAPTER_A, CHAPTER_B}


def test_a_chapter_never_executed_is_stale(tree):
    write(tree, "_toc.yml", (tree / "_toc.yml").read_text() + "  - file: book/c_new\n")
    nbformat.write(notebook("print(1)"), tree / "book/c_new.ipynb")
    (found,) = executed.stale(tree).items()
    assert found[0] == "book/c_new.ipynb" and "no entry" in found[1][0]


def test_the_command_names_the_stale_chapters_and_says_what_to_run(tree):
    edit_cell(tree, CHAPTER_A, 1, source="import boostlib  # changed")
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "executed.py"), str(tree)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert f"{CHAPTER_A}: its code cells changed" in run.stderr
    assert CHAPTER_B not in run.stderr
    assert "make notebooks" in run.stderr


def test_a_copy_outside_the_tree_is_not_recorded(tree, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("copy") / "a.ipynb"
    elsewhere.write_bytes((tree / CHAPTER_A).read_bytes())
    before = (tree / executed.MANIFEST).read_text()
    executed.record(elsewhere, executed.inputs(tree / CHAPTER_A, tree), tree)
    assert (tree / executed.MANIFEST).read_text() == before


def test_the_manifest_covers_every_chapter_of_the_book():
    """Every notebook in _toc.yml has a record (whether it is current is make book's check)."""
    manifest = executed.read()
    chapters = {executed.key(p) for p in executed.toc_notebooks()}
    assert chapters and chapters <= set(manifest), sorted(chapters - set(manifest))
    assert all((ROOT / name).is_file() for name in manifest), "a record of a notebook now gone"
    assert all(set(entry) == {"code", "boostlib", "requirements", "files"}
               for entry in manifest.values())
