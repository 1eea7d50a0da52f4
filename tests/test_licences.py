"""The licences: BSD-3-Clause for the code, CC BY 4.0 for the book's text, and a citation.

The code's licence is stated in LICENSE and in the package metadata; the text's
in every page's footer (_config.yml); CITATION.cff names both and agrees with
the book and the package on title, authors and version.
"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CC_BY = "https://creativecommons.org/licenses/by/4.0/"
# The three conditions of the BSD 3-Clause licence, as SPDX's template words them.
BSD3_CLAUSES = [
    "Redistributions of source code must retain the above copyright notice, this list of "
    "conditions and the following disclaimer.",
    "Redistributions in binary form must reproduce the above copyright notice, this list of "
    "conditions and the following disclaimer in the documentation and/or other materials "
    "provided with the distribution.",
    "Neither the name of the copyright holder nor the names of its contributors may be used "
    "to endorse or promote products derived from this software without specific prior "
    "written permission.",
]


def words(text):
    return " ".join(text.split())


def test_license_is_bsd_3_clause_for_the_books_authors():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "BSD 3-Clause License"
    assert f"Copyright (c) {CONFIG['copyright']}, {CONFIG['author']}" in text
    flat = words(text)
    for clause in BSD3_CLAUSES:
        assert clause in flat
    assert "IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE" in flat


def test_the_package_metadata_names_the_licence():
    assert PROJECT["license"] == "BSD-3-Clause"  # an SPDX expression (PEP 639)
    assert PROJECT["license-files"] == ["LICENSE"]
    # a licence classifier next to an SPDX expression is an error for setuptools >= 77
    assert not [c for c in PROJECT.get("classifiers", []) if c.startswith("License ::")]
    assert PROJECT["authors"] == [{"name": CONFIG["author"]}]


def test_the_footer_gives_the_texts_licence():
    footer = CONFIG["html"]["extra_footer"]
    assert f'<a href="{CC_BY}">CC BY 4.0</a>' in footer
    assert "BSD 3-Clause" in words(footer)
    assert re.fullmatch(r"\d{4}(-\d{4})?", str(CONFIG["copyright"]))


def test_citation_cff_is_valid_cff_1_2_0():
    path = ROOT / "CITATION.cff"
    run = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
         "vendor.citation-file-format", str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    cff = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert {"cff-version", "message", "title", "authors"} <= set(cff)
    assert cff["cff-version"] == "1.2.0"


def test_citation_agrees_with_the_book_and_the_package():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["title"] == CONFIG["title"]
    assert cff["authors"] == [{"name": CONFIG["author"]}]
    assert str(cff["version"]) == PROJECT["version"]
    assert cff["license"] == ["BSD-3-Clause", "CC-BY-4.0"]


def test_the_citation_check_rejects_a_broken_file(tmp_path):
    broken = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    del broken["authors"]
    broken["cff-version"] = "1.2"
    (tmp_path / "CITATION.cff").write_text(yaml.safe_dump(broken))
    run = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
         "vendor.citation-file-format", str(tmp_path / "CITATION.cff")],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
