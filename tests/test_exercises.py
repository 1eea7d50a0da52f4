"""Every exercise's code runs in its chapter's context.

Where the exercises are: each chapter ends with a markdown cell (or several)
under the heading "Exercises"; the code a reader is asked to run is written in
``python`` code fences inside them, most of them in the folded solutions.
Exercise code cells (code cells after that heading) count too.

The scheme, as a reader would do it: run the chapter from the top, then the
exercises' code blocks in the order they appear, in the same namespace. Two
tests per chapter:

- ``test_exercise_names_are_defined`` (fast, no kernel): every block parses,
  and every name it reads is a builtin, is bound by the chapter's own code
  cells, or is bound earlier in the exercises. It catches a block written with
  a name the chapter does not define (``lam`` where the chapter says ``mu``).
- ``test_exercises_run`` executes the chapter's code cells and then each block
  as a cell of its own, in a fresh python3 kernel with the environment
  ``tools/execute_notebooks.py`` gives the chapters, and fails naming the
  block that raised. It costs one more run of each chapter that has
  exercise code.
"""

import ast
import builtins
import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
EXERCISES_HEADING = re.compile(r"^#{1,6}\s+Exercises\b", re.MULTILINE)
# an opening fence of three or more backticks with the language python, to its closing fence
PYTHON_FENCE = re.compile(r"^(?P<fence>`{3,})python[ \t]*\n(?P<code>.*?)^(?P=fence)[ \t]*$",
                          re.MULTILINE | re.DOTALL)
TIMEOUT = 600  # seconds per cell


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell):
    return "".join(cell["source"])


def chapter_code(path):
    """The chapter's code cells before its exercises, IPython magics (``%...``) left out."""
    code = []
    for cell in cells(path):
        if cell["cell_type"] == "markdown" and EXERCISES_HEADING.search(source(cell)):
            break
        if cell["cell_type"] == "code":
            code.append("\n".join(line for line in source(cell).splitlines()
                                  if not line.lstrip().startswith("%")))
    return code


def exercise_blocks(path):
    """The code of the exercises, in reading order: python fences and code cells."""
    blocks, started = [], False
    for cell in cells(path):
        text = source(cell)
        if cell["cell_type"] == "markdown" and EXERCISES_HEADING.search(text):
            started = True
            text = text[EXERCISES_HEADING.search(text).start():]
        if not started:
            continue
        if cell["cell_type"] == "code":
            blocks.append(text)
        else:
            blocks += [match["code"] for match in PYTHON_FENCE.finditer(text)]
    return blocks


def bound_names(tree):
    """Names a piece of code binds at module level or anywhere inside it."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):  # a parameter of a function or a lambda
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def read_names(tree):
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


WITH_EXERCISE_CODE = [p for p in CHAPTERS if exercise_blocks(p)]


def test_every_chapter_with_exercises_is_found():
    # the scheme finds the heading in every chapter that has one, and code in most
    with_heading = [p for p in CHAPTERS
                    if any(c["cell_type"] == "markdown" and EXERCISES_HEADING.search(source(c))
                           for c in cells(p))]
    assert len(with_heading) >= 9
    assert len(WITH_EXERCISE_CODE) >= 6


@pytest.mark.parametrize("path", WITH_EXERCISE_CODE, ids=lambda p: p.stem)
def test_exercise_names_are_defined(path):
    known = set(dir(builtins))
    for code in chapter_code(path):
        known |= bound_names(ast.parse(code))
    undefined = []
    for number, block in enumerate(exercise_blocks(path), start=1):
        tree = ast.parse(block, filename=f"{path.name}, exercise block {number}")
        missing = read_names(tree) - known - bound_names(tree)
        if missing:
            undefined.append(f"block {number}: {sorted(missing)}")
        known |= bound_names(tree)
    assert not undefined, f"{path.name}: names the chapter does not define: {undefined}"


@pytest.mark.parametrize("path", WITH_EXERCISE_CODE, ids=lambda p: p.stem)
def test_exercises_run(path, monkeypatch):
    for name, value in _tool("execute_notebooks").KERNEL_ENV.items():
        monkeypatch.setenv(name, value)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in chapter_code(path)]
    first = len(notebook.cells)
    notebook.cells += [nbformat.v4.new_code_cell(block) for block in exercise_blocks(path)]
    client = NotebookClient(notebook, timeout=TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(BOOK)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        failed = next((i for i, cell in enumerate(notebook.cells)
                       if any(o.get("output_type") == "error" for o in cell.get("outputs", []))),
                      None)
        where = ("the chapter's own code" if failed is None or failed < first
                 else f"exercise block {failed - first + 1}:\n{notebook.cells[failed].source}")
        pytest.fail(f"{path.name}: {where}\n{exc.ename}: {exc.evalue}", pytrace=False)
