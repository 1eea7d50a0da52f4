"""Check what `python -m build` made: the package boostlib, whole, and nothing else.

Usage (what `make dist` runs after building into dist/ and `twine check`)::

    .venv/bin/python tools/check_dist.py dist

The wheel must hold every module of boostlib and its subpackages (boostlib/**.py
in the tree) and its metadata, with the licence: no notebooks, no tests, no
benchmarks. The sdist holds the same modules, LICENSE, README.md and
pyproject.toml, and nothing of the book, the tests or the benchmarks (they live
in the repository, not in the package).
"""

from __future__ import annotations

import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "boostlib"
LICENSE_EXPRESSION = "BSD-3-Clause"
# Top-level entries an sdist of boostlib may have besides the package itself.
SDIST_FILES = {"LICENSE", "README.md", "pyproject.toml", "setup.cfg", "PKG-INFO", "MANIFEST.in"}


def package_modules(root: Path = ROOT) -> set[str]:
    """Every module of the package in the tree, as 'boostlib/.../name.py'."""
    return {p.relative_to(root).as_posix() for p in (root / PACKAGE).rglob("*.py")
            if "__pycache__" not in p.parts}


def wheel_problems(names: list[str], metadata: str, modules: set[str],
                   dist_info: str) -> list[str]:
    """What is wrong with a wheel holding ``names`` (``dist_info``: its .dist-info folder)."""
    problems = [f"wheel: {n} is not part of {PACKAGE}" for n in names
                if not n.startswith((f"{PACKAGE}/", f"{dist_info}/"))]
    problems += [f"wheel: {m} is missing" for m in sorted(modules - set(names))]
    if f"{dist_info}/licenses/LICENSE" not in names:
        problems.append("wheel: LICENSE is missing from the metadata folder")
    fields = Parser().parsestr(metadata)
    if fields.get("License-Expression") != LICENSE_EXPRESSION:
        problems.append(f"wheel: License-Expression is {fields.get('License-Expression')!r}, "
                        f"not {LICENSE_EXPRESSION!r}")
    return problems


def sdist_problems(names: list[str], modules: set[str], top: str) -> list[str]:
    """What is wrong with an sdist holding ``names`` under the folder ``top``."""
    problems = []
    for name in names:
        rel = name.removeprefix(f"{top}/")
        if name == top or rel in SDIST_FILES:
            continue
        if rel == name:
            problems.append(f"sdist: {name} is outside {top}/")
        elif rel.split("/")[0] not in (PACKAGE, f"{PACKAGE}.egg-info"):
            problems.append(f"sdist: {rel} is not part of {PACKAGE}")
    inside = {name.removeprefix(f"{top}/") for name in names}
    problems += [f"sdist: {m} is missing" for m in sorted(modules - inside)]
    problems += [f"sdist: {f} is missing" for f in ("LICENSE", "pyproject.toml")
                 if f not in inside]
    return problems


def dist_problems(dist: Path, root: Path = ROOT) -> list[str]:
    """Check the one wheel and the one sdist of this version in ``dist``."""
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    stem = f"{PACKAGE}-{version}"
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    expected = [f"{stem}-py3-none-any.whl"], [f"{stem}.tar.gz"]
    if ([w.name for w in wheels], [s.name for s in sdists]) != expected:
        return [f"{dist} holds {[p.name for p in wheels + sdists]}, "
                f"not one wheel and one sdist: {expected[0] + expected[1]}"]
    modules = package_modules(root)
    with zipfile.ZipFile(wheels[0]) as whl:
        names = whl.namelist()
        metadata = whl.read(f"{stem}.dist-info/METADATA").decode()
    problems = wheel_problems(names, metadata, modules, f"{stem}.dist-info")
    with tarfile.open(sdists[0]) as tar:
        problems += sdist_problems([m.name for m in tar.getmembers() if not m.isdir()],
                                   modules, stem)
    return problems


def main(argv: list[str]) -> int:
    dist = Path(argv[0]) if argv else ROOT / "dist"
    problems = dist_problems(dist)
    for problem in problems:
        print(f"check-dist: {problem}", file=sys.stderr)
    if not problems:
        print(f"check-dist: the wheel and the sdist in {dist} hold {PACKAGE} "
              f"({len(package_modules())} modules) and nothing else")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
