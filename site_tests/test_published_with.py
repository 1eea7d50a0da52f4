"""The built site carries the repository's one address and the licences.

_config.yml's repository.url must reach the repository button, the Binder
buttons and the intro's `git clone` line; every page's footer states the
licences. Read from the HTML files `make book` wrote; no browser needed.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import pytest
import yaml
from conftest import HTML, ROOT

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
URL = CONFIG["repository"]["url"]
BRANCH = CONFIG["repository"]["branch"]
TAGS = re.compile(r"<[^>]+>")


def page(rel: str) -> str:
    path = HTML / rel
    if not path.is_file():
        pytest.fail(f"{path} missing: run `make book` first")
    return path.read_text(encoding="utf-8")


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(TAGS.sub("", fragment)).split())


def test_the_intro_clones_the_configured_repository():
    blocks = re.findall(r'<div class="highlight-bash notranslate">(.*?)</pre>', page(
        "book/intro.html"), re.S)
    clone = [text_of(b) for b in blocks if "git clone" in text_of(b)]
    assert clone == [f"git clone {URL} boostlib-book"]


def test_the_repository_button_points_at_the_repository():
    assert f'href="{URL}"' in page("book/intro.html")


def test_the_binder_button_opens_the_chapter_from_the_repository():
    owner_name = urlsplit(URL).path.strip("/")
    links = set(re.findall(r'href="(https://mybinder\.org/[^"]+)"',
                           page("book/03_gradient_boosting.html")))
    assert links, "no Binder button on a chapter page"
    for link in links:
        link = html.unescape(link)
        assert link.startswith(f"https://mybinder.org/v2/gh/{owner_name}/{BRANCH}?"), link
        assert "book/03_gradient_boosting.ipynb" in link


@pytest.mark.parametrize("rel", ["book/intro.html", "book/05_closed_form_step.html"])
def test_the_footer_states_the_licences(rel):
    footer = page(rel).split('<footer class="bd-footer-content', 1)[-1]
    assert '<a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>' in footer
    text = text_of(footer)
    assert "BSD 3-Clause" in text
    assert f"Copyright {CONFIG['copyright']}" in text
