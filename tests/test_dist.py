"""boostlib as a package: what setuptools would pack, and tools/check_dist.py (`make dist`).

`make dist` builds the sdist and the wheel (it needs setuptools from PyPI, so it is
not run here); these tests check its rules on file lists and that the package
discovery in pyproject.toml takes boostlib and its subpackages, nothing else.
"""

import sys
import tomllib
from pathlib import Path

import pytest
from setuptools import find_namespace_packages

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import check_dist  # noqa: E402

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DIST_INFO = "boostlib-0.1.0.dist-info"
METADATA = "Metadata-Version: 2.4\nName: boostlib\nLicense-Expression: BSD-3-Clause\n\n"
MODULES = {"boostlib/__init__.py", "boostlib/losses.py", "boostlib/trees/__init__.py",
           "boostlib/trees/grower.py"}
WHEEL = sorted(MODULES) + [f"{DIST_INFO}/{n}" for n in
                           ("licenses/LICENSE", "METADATA", "WHEEL", "top_level.txt", "RECORD")]
SDIST = [f"boostlib-0.1.0/{n}" for n in
         sorted(MODULES) + ["LICENSE", "README.md", "pyproject.toml", "setup.cfg", "PKG-INFO",
                            "boostlib.egg-info/SOURCES.txt"]]


def test_discovery_takes_boostlib_and_its_subpackages_only(tmp_path):
    """[tool.setuptools.packages.find] on a tree with a subpackage and the project's folders."""
    find = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    for folder in ["boostlib", "boostlib/trees", "tests", "benchmarks", "tools", "site_tests",
                   "book", "boostlib_extra"]:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    # setuptools' default for pyproject.toml: namespace packages count
    assert find.get("namespaces", True) is True
    found = find_namespace_packages(str(tmp_path), include=find["include"],
                                    exclude=find.get("exclude", ()))
    assert sorted(found) == ["boostlib", "boostlib.trees"]


def test_the_package_modules_are_found():
    modules = check_dist.package_modules()
    assert "boostlib/__init__.py" in modules and "boostlib/boosting.py" in modules
    assert all(m.startswith("boostlib/") and m.endswith(".py") for m in modules)


def test_a_good_wheel_and_sdist_pass():
    assert check_dist.wheel_problems(WHEEL, METADATA, MODULES, DIST_INFO) == []
    assert check_dist.sdist_problems(SDIST, MODULES, "boostlib-0.1.0") == []


@pytest.mark.parametrize("extra, says", [
    ("tests/test_losses.py", "not part of boostlib"),
    ("book/intro.ipynb", "not part of boostlib"),
    ("benchmarks/results/esl.csv", "not part of boostlib"),
])
def test_a_wheel_with_more_than_boostlib_fails(extra, says):
    problems = check_dist.wheel_problems(WHEEL + [extra], METADATA, MODULES, DIST_INFO)
    assert problems == [f"wheel: {extra} is {says}"]


def test_a_wheel_without_a_subpackage_fails():
    wheel = [n for n in WHEEL if not n.startswith("boostlib/trees/")]
    problems = check_dist.wheel_problems(wheel, METADATA, MODULES, DIST_INFO)
    assert problems == ["wheel: boostlib/trees/__init__.py is missing",
                        "wheel: boostlib/trees/grower.py is missing"]


def test_a_wheel_without_its_licence_fails():
    wheel = [n for n in WHEEL if not n.endswith("LICENSE")]
    metadata = METADATA.replace("BSD-3-Clause", "MIT")
    problems = check_dist.wheel_problems(wheel, metadata, MODULES, DIST_INFO)
    assert len(problems) == 2
    assert "LICENSE is missing" in problems[0] and "'MIT'" in problems[1]


@pytest.mark.parametrize("extra", ["book/01_parameter_space.ipynb", "tests/test_losses.py",
                                   "benchmarks/results/esl_10_2.csv", "notes.ipynb"])
def test_an_sdist_with_the_book_tests_or_results_fails(extra):
    problems = check_dist.sdist_problems(SDIST + [f"boostlib-0.1.0/{extra}"], MODULES,
                                         "boostlib-0.1.0")
    assert problems == [f"sdist: {extra} is not part of boostlib"]


def test_an_sdist_without_a_module_or_the_licence_fails():
    sdist = [n for n in SDIST if not n.endswith(("losses.py", "LICENSE"))]
    problems = check_dist.sdist_problems(sdist, MODULES, "boostlib-0.1.0")
    assert problems == ["sdist: boostlib/losses.py is missing", "sdist: LICENSE is missing"]


def write_dist(dist, wheel, sdist, metadata=METADATA):
    import io
    import tarfile
    import zipfile

    dist.mkdir()
    with zipfile.ZipFile(dist / "boostlib-0.1.0-py3-none-any.whl", "w") as whl:
        for name in wheel:
            whl.writestr(name, metadata if name.endswith("/METADATA") else "")
    with tarfile.open(dist / "boostlib-0.1.0.tar.gz", "w:gz") as tar:
        for name in sdist:
            tar.addfile(tarfile.TarInfo(name), io.BytesIO(b""))


def test_the_built_files_are_read(tmp_path):
    """dist_problems opens the wheel and the sdist `python -m build` would name so."""
    modules = check_dist.package_modules()
    wheel = sorted(modules) + WHEEL[len(MODULES):]
    sdist = [f"boostlib-0.1.0/{m}" for m in sorted(modules)] + SDIST[len(MODULES):]
    write_dist(tmp_path / "dist", wheel, sdist)
    assert check_dist.dist_problems(tmp_path / "dist") == []

    write_dist(tmp_path / "bad", wheel + ["tests/test_losses.py"], sdist[1:])
    assert check_dist.dist_problems(tmp_path / "bad") == [
        "wheel: tests/test_losses.py is not part of boostlib",
        f"sdist: {sorted(modules)[0]} is missing"]


def test_a_dist_folder_with_other_versions_fails(tmp_path):
    write_dist(tmp_path / "dist", WHEEL, SDIST)
    (tmp_path / "dist" / "boostlib-0.0.9-py3-none-any.whl").write_bytes(b"")
    (problem,) = check_dist.dist_problems(tmp_path / "dist")
    assert "not one wheel and one sdist" in problem
