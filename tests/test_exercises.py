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
- ``test_exercises_run`` executes the chapter's code cells the exercises
  depend on (``needed_cells``: those that bind or change what the exercises
  read, and what those cells read in turn; the hidden checks and figures that
  nbval runs anyway are left out) and then each block as a cell of its own, in
  a fresh python3 kernel with the environment ``tools/execute_notebooks.py``
  gives the chapters, and fails naming the block that raised.
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


def imported_names(tree):
    return {(a.asname or a.name).split(".")[0] for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}


def _base(node):
    """The name an attribute or subscript chain starts from (``a`` in ``a.b[0].c``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


# methods that read their object and change nothing (numpy, pandas, scikit-learn, boostlib)
READ_ONLY_METHODS = {
    "predict", "predict_proba", "predict_log_proba", "decision_function", "staged_predict",
    "staged_predict_proba", "staged_decision_function", "score", "apply", "transform",
    "get_params", "copy", "astype", "reshape", "ravel", "sum", "mean", "std", "var", "min",
    "max", "argmin", "argmax", "round", "item", "tolist", "to_numpy", "items", "keys",
    "values", "get", "format", "all", "any", "cumsum", "dot", "head", "describe",
}


def changed_names(tree, modules):
    """Names whose object the code may change without rebinding the name: the object of a
    method call (``model.fit(...)``, ``rng.normal()``) other than ``READ_ONLY_METHODS``, of
    an item or attribute store or ``del``. Imported modules are left out, except
    ``np.random``'s global state. Functions are taken not to change their arguments."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr not in READ_ONLY_METHODS:
            base = _base(node.func.value)
            if base in modules and "random" in ast.unparse(node.func):
                names.add("<global random state>")
            elif base is not None and base not in modules:
                names.add(base)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and \
                isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(_base(node))
        elif isinstance(node, ast.AugAssign):
            names.add(_base(node.target))
    return names - {None}


def free_names(tree):
    """Names the code reads before (in the text) it binds them: what it takes from before."""
    first = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            where, store = (node.lineno, node.col_offset), not isinstance(node.ctx, ast.Load)
        elif isinstance(node, ast.arg):
            where, store = (node.lineno, node.col_offset), True
        else:
            continue
        name = node.id if isinstance(node, ast.Name) else node.arg
        if name not in first or where < first[name][0]:
            first[name] = (where, store)
    return {name for name, (_, store) in first.items() if not store}


def needed_chapter_code(path):
    return needed_cells(chapter_code(path), exercise_blocks(path))


def needed_cells(code, blocks):
    """The chapter's code cells the exercises depend on, in order.

    A backward slice: a cell is kept when it binds a name that a kept cell or an exercise
    block reads, or may change such a name's object (``changed_names``); every name a kept
    cell reads is then needed too. Cells that only check or draw what no exercise reads
    (the hidden checks, the figures) are left out: nbval runs them.
    """
    trees = [ast.parse(c) for c in code]
    modules = set().union(*(imported_names(t) for t in trees))
    needed, bound = set(), set()
    for block in map(ast.parse, blocks):
        needed |= free_names(block) - bound
        bound |= bound_names(block)
    if any("<global random state>" in changed_names(ast.parse(b), modules) for b in blocks):
        needed.add("<global random state>")
    kept = []
    for cell, tree in zip(reversed(code), reversed(trees), strict=True):
        if (bound_names(tree) | changed_names(tree, modules)) & needed:
            kept.append(cell)
            needed |= free_names(tree)
            if changed_names(tree, modules) & {"<global random state>"}:
                needed.add("<global random state>")
    return kept[::-1]


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
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in needed_chapter_code(path)]
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


def test_the_slice_keeps_every_cell_that_binds_or_changes_what_the_exercises_read():
    code = ["import numpy as np\nfrom sklearn.tree import DecisionTreeRegressor",
            "X = np.arange(6.0)[:, None]\ny = X[:, 0] ** 2",
            "slow = [np.linalg.svd(X) for _ in range(3)]",            # read by no exercise
            "assert y.max() == 25",                                     # a check
            "depth = 1",                                                # read by a kept cell
            "model = DecisionTreeRegressor(max_depth=depth)",
            "model.set_params(max_depth=2)",                            # changes model
            "y[0] = -1.0",                                              # changes y
            "np.random.seed(3)",                                        # the global state
            "shown = model.get_params()",                               # read-only
            "def double(v):\n    return 2 * v"]
    blocks = ["model.fit(X, double(y))\nprint(model.get_depth(), np.random.rand())",
              "slow = 0  # bound here before any read: the chapter's slow is not needed"]
    assert needed_cells(code, blocks) == [code[i] for i in (0, 1, 4, 5, 6, 7, 8, 10)]
