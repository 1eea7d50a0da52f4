"""Which chapters' stored outputs were computed from the tree as it is now.

`make book` shows the outputs stored in the notebooks (it does not execute them;
`make test` checks them against a fresh run with nbval). So that no page shows
what an older boostlib computed, `tools/execute_notebooks.py` records in
`book/executed.json`, each time it executes a chapter, digests of what the
outputs depend on:

- ``code``: the chapter's code cells (not its prose, nor its outputs);
- ``boostlib``: every ``boostlib/**/*.py``;
- ``requirements``: ``requirements.txt``, the pinned versions of everything else;
- ``files``: the benchmark results (``benchmarks/results/*``) and benchmark modules
  (``benchmarks/*.py``) the chapter's code reads: a result named in a string
  (``read_csv("peers")``, ``results / "hist_trees.csv"``), a module imported.

Usage (what `make book` runs first)::

    .venv/bin/python tools/executed.py          # exit 1, naming the stale chapters
    .venv/bin/python tools/executed.py ROOT     # another checkout (the tests' trees)

A chapter in `_toc.yml` passes when its recorded digests equal those of the tree.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path("book") / "executed.json"
WHAT = {"code": "its code cells", "boostlib": "boostlib", "requirements": "requirements.txt"}
HINT = "run `make notebooks` (or tools/execute_notebooks.py on these chapters)"


def digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())  # no two sequences of parts collide
    return h.hexdigest()


def text_bytes(path: Path) -> bytes:
    """A file's bytes with Windows line ends read as Unix ones (a checkout may convert)."""
    return path.read_bytes().replace(b"\r\n", b"\n")


def code_sources(notebook: Path) -> list[str]:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"] if c["cell_type"] == "code"]


def tree_digest(root: Path, folder: str) -> str:
    """Every ``folder/**/*.py`` under ``root``: their paths and contents."""
    files = sorted(p for p in (root / folder).rglob("*.py") if "__pycache__" not in p.parts)
    return digest(*(part for p in files
                    for part in (p.relative_to(root).as_posix().encode(), text_bytes(p))))


def files_read(code: str, root: Path) -> list[str]:
    """Benchmark results and modules that ``code`` names, as paths relative to ``root``."""
    found = []
    for p in sorted((root / "benchmarks" / "results").glob("*")):
        if p.is_file() and (p.name in code or re.search(rf"""(["']){re.escape(p.stem)}\1""", code)):
            found.append(p)
    for p in sorted((root / "benchmarks").glob("*.py")):
        if re.search(rf"^\s*(?:import|from)\s+{re.escape(p.stem)}\b", code, re.M):
            found.append(p)
    return [p.relative_to(root).as_posix() for p in found]


def inputs(notebook: Path, root: Path = ROOT) -> dict:
    """The digests of what ``notebook``'s outputs depend on, as the tree is now."""
    code = code_sources(notebook)
    return {
        "code": digest(*(c.replace("\r\n", "\n").encode() for c in code)),
        "boostlib": tree_digest(root, "boostlib"),
        "requirements": digest(text_bytes(root / "requirements.txt")),
        "files": {f: digest(text_bytes(root / f)) for f in files_read("\n".join(code), root)},
    }


def read(root: Path = ROOT) -> dict:
    path = root / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write(manifest: dict, root: Path = ROOT) -> None:
    """One line per chapter, a blank line between: two branches that re-execute
    different chapters change lines git can merge."""
    lines = [f"{json.dumps(k)}: {json.dumps(manifest[k], sort_keys=True)}"
             for k in sorted(manifest)]
    (root / MANIFEST).write_text("{\n" + ",\n\n".join(lines) + "\n}\n", encoding="utf-8")


def key(notebook: Path, root: Path = ROOT) -> str | None:
    """The manifest's name for ``notebook`` (None outside ``root``: a copy is not stamped)."""
    try:
        return notebook.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def record(notebook: Path, recorded: dict, root: Path = ROOT) -> None:
    """Store ``recorded`` (``inputs`` taken before executing) as ``notebook``'s entry."""
    name = key(notebook, root)
    if name is None:
        return
    manifest = read(root)
    manifest[name] = recorded
    write(manifest, root)


def toc_notebooks(root: Path = ROOT) -> list[Path]:
    """The chapters `_toc.yml` lists that are notebooks."""
    import yaml

    def files(entries):
        for entry in entries:
            if "file" in entry:
                yield entry["file"]
            for sub in ("chapters", "sections", "parts"):
                yield from files(entry.get(sub, []))

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"], *files(toc.get("parts", []) + toc.get("chapters", []))]
    return [root / f"{n}.ipynb" for n in names if (root / f"{n}.ipynb").is_file()]


def stale(root: Path = ROOT) -> dict[str, list[str]]:
    """Each chapter whose stored outputs may not be what the tree computes: what changed."""
    manifest = read(root)
    found = {}
    for notebook in toc_notebooks(root):
        name = key(notebook, root)
        was = manifest.get(name)
        if was is None:
            found[name] = ["it has no entry (never executed by tools/execute_notebooks.py)"]
            continue
        now = inputs(notebook, root)
        reasons = [f"{label} changed" for what, label in WHAT.items() if was.get(what) != now[what]]
        old_files = was.get("files", {})
        reasons += [f"{f} changed" if f in old_files else f"it now reads {f}"
                    for f in sorted(now["files"]) if old_files.get(f) != now["files"][f]]
        reasons += [f"{f} is gone" for f in sorted(set(old_files) - set(now["files"]))
                    if not (root / f).exists()]
        if reasons:
            found[name] = reasons
    return found


def main(argv: list[str]) -> int:
    found = stale(Path(argv[0]) if argv else ROOT)
    if not found:
        return 0
    print(f"The stored outputs of {len(found)} chapter(s) may not be what the tree computes "
          f"(compared with {MANIFEST}, written when each was last executed):", file=sys.stderr)
    for name, reasons in found.items():
        print(f"  {name}: {'; '.join(reasons)}", file=sys.stderr)
    print(f"Nothing was built: {HINT}, then build again.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
