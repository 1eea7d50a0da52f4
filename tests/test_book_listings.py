"""What a reader sees is the book, not its test scaffolding.

Every exact check of a chapter (``assert``, ``np.testing``) lives in a hidden
cell (tags ``remove-input``, ``hide-input``, ``remove-cell`` or ``hide-cell``);
a visible cell never prints a comparison as ``True``. And the boosting loop
chapter 3 prints is Friedman's Algorithm 1, short enough to read at once.
"""

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))
HIDDEN = {"remove-input", "hide-input", "remove-cell", "hide-cell"}
# calls that answer a yes-or-no question about numbers
BOOLEAN_CALLS = {"all", "any", "allclose", "array_equal", "array_equiv", "isclose",
                 "isfinite", "isnan", "isin", "issubset", "issuperset", "equals"}
# a printed line that reports a check: "...: True", "... = False", "... → True"
PRINTED_CHECK = re.compile(r"(?:[:=→]|\bis)\s*(?:np\.)?(?:True|False)_?\b")
LOOP_LINES = 25


def cells(path):
    """The code cells of a chapter: (number, source, tags, outputs)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    return [(n, "".join(c["source"]), set(c.get("metadata", {}).get("tags", [])),
             c.get("outputs", [])) for n, c in enumerate(code, 1)]


def python(source):
    """A cell's source as Python: IPython's ``%`` and ``!`` lines become comments."""
    return "\n".join("#" + line if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def is_boolean(node):
    """Whether an expression is a comparison or a yes-or-no numeric check."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BoolOp):
        return any(is_boolean(value) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in BOOLEAN_CALLS
    return False


def shown_values(tree):
    """Every expression a cell shows: print's arguments (inside f-strings too), the last line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print":
            for arg in node.args:
                yield arg
                for inner in ast.walk(arg):
                    if isinstance(inner, ast.FormattedValue):
                        yield inner.value
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        yield tree.body[-1].value


def scaffolding(source):
    """What in a cell's source is a check rather than the book: a list of descriptions."""
    tree = ast.parse(python(source))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found.append(f"line {node.lineno}: assert")
        elif isinstance(node, ast.Attribute) and node.attr == "testing":
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("testing"):
            found.append(f"line {node.lineno}: from {node.module} import")
    found += [f"line {value.lineno}: shows {ast.unparse(value)}"
              for value in shown_values(tree) if is_boolean(value)]
    return found


def output_texts(output):
    if output["output_type"] == "stream":
        yield "".join(output["text"])
    for mime, value in output.get("data", {}).items():
        if mime == "text/plain":
            yield "".join(value) if isinstance(value, list) else value


def printed_checks(outputs):
    """Lines of a cell's outputs that report a check as True or False."""
    lines = [line for output in outputs for text in output_texts(output)
             for line in text.splitlines()]
    return [line.strip() for line in lines
            if PRINTED_CHECK.search(line) or line.strip() in {"True", "False"}]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_visible_cell_checks(path):
    """A visible code cell holds no assert or np.testing and prints no bare True/False."""
    problems = []
    for n, source, tags, outputs in cells(path):
        if tags & HIDDEN:
            continue
        problems += [f"cell {n}, {what}" for what in scaffolding(source)]
        problems += [f"cell {n} prints {line!r}" for line in printed_checks(outputs)]
    assert not problems, (f"{path.name}: move these checks to a hidden cell (tag "
                          "remove-input or hide-input):\n" + "\n".join(problems))


def test_the_checker_sees_what_it_should():
    """The rule itself: each kind of scaffolding is found, the book's own code is not."""
    assert scaffolding("assert x == 1")
    assert scaffolding("np.testing.assert_allclose(a, b)")
    assert scaffolding("from numpy.testing import assert_allclose")
    assert scaffolding('print(f"equal: {np.allclose(a, b)}")')
    assert scaffolding('print("gap", gap < 1e-10)')
    assert scaffolding("%config x\nnp.array_equal(a, b)")
    assert not scaffolding('print(f"test loss {loss:.4f} at stage {m}")\nmodel.fit(X, y)')
    assert not scaffolding("best = [m for m in range(3) if m > 1]\nbest")
    assert printed_checks([{"output_type": "stream", "text": ["max |d| < 1e-10: True\n"]}])
    assert printed_checks([{"output_type": "execute_result", "data": {"text/plain": "True"}}])
    assert not printed_checks([{"output_type": "stream", "text": ["rho_1 = 1.0000\n"]}])


def included_objects(path, module):
    """The ``:pyobject:`` names a chapter includes from ``module`` (``literalinclude``)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    pattern = rf"```{{literalinclude}} \.\./{re.escape(module)}\s*\n:pyobject: (\S+)"
    return re.findall(pattern, text)


def object_lines(module, dotted):
    """The number of lines ``:pyobject:`` shows for ``dotted`` (``Class.method`` or a name)."""
    scope = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    for name in dotted.split("."):
        scope = next(node for node in scope.body if getattr(node, "name", None) == name)
    return scope.end_lineno - scope.lineno + 1


def test_the_loop_chapter_3_prints_is_short():
    """Chapter 3 shows the boosting loop, and the loop is at most 25 lines."""
    chapter = BOOK / "03_gradient_boosting.ipynb"
    shown = included_objects(chapter, "boostlib/boosting.py")
    assert shown, "chapter 3 includes nothing from boostlib/boosting.py"
    lengths = {name: object_lines("boostlib/boosting.py", name) for name in shown}
    too_long = {name: n for name, n in lengths.items() if n > LOOP_LINES}
    assert not too_long, f"chapter 3 prints more than {LOOP_LINES} lines: {too_long}"
