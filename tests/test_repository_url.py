"""The repository's address is written once, in _config.yml's repository.url.

The repository button and the Binder buttons are made from it by jupyter-book,
the intro's `git clone` line through the MyST substitution `repository_url`,
which is a YAML alias of that line. Whoever publishes the book under another
name changes one line (README.md, "Publishing").
"""

import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
URL = CONFIG["repository"]["url"]


def tracked_text_files():
    """Every file git tracks (or is about to) that reads as UTF-8 text."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in sorted(set(listed.splitlines())):
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the work tree
        try:
            yield name, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def test_the_url_is_a_repository_address():
    parts = urlsplit(URL)
    assert parts.scheme == "https" and parts.netloc
    assert len(parts.path.strip("/").split("/")) == 2, "https://HOST/OWNER/NAME"
    assert not URL.endswith(("/", ".git"))


def test_the_url_is_written_once():
    """Exactly one copy in the whole repository: the line in _config.yml."""
    owner_name = urlsplit(URL).path.strip("/")
    copies = [(name, n) for name, text in tracked_text_files()
              for n, line in enumerate(text.splitlines(), 1) if owner_name in line]
    assert len(copies) == 1 and copies[0][0] == "_config.yml", (
        f"{owner_name} is written in {copies}: use repository.url in _config.yml")
    line = (ROOT / "_config.yml").read_text().splitlines()[copies[0][1] - 1]
    assert re.match(r"\s+url: &repository_url ", line), line


def test_the_substitution_is_the_repository_url():
    assert CONFIG["parse"]["myst_substitutions"]["repository_url"] == URL
    raw = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+repository_url: \*repository_url\s*$", raw, re.M), \
        "the substitution must be the YAML alias of repository.url, not a copy"


def test_the_intro_clones_the_configured_repository():
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    clone = [line for line in intro.splitlines() if "git clone" in line]
    assert len(clone) == 1, clone
    assert re.search(r"^\{\{.*git clone .*~ repository_url ~.*\}\}$", clone[0]), clone[0]


def test_the_book_publishes_with_buttons_made_from_the_url():
    assert CONFIG["html"]["use_repository_button"] is True
    assert CONFIG["launch_buttons"]["binderhub_url"]
    # the buttons take their address from repository.url; none may have its own
    assert "baseurl" not in CONFIG["html"]
    assert not {"url", "repository_url"} & set(CONFIG["launch_buttons"])
