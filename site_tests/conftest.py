"""Fixtures of the browser test: the built site on 127.0.0.1, a local MathJax, one Chromium.

Run by `make site-test` after `make book`. Nothing here is optional: a missing
site, browser or MathJax copy fails the run with a message saying what to do.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("SITE_TEST_HTML", ROOT / "_build" / "html")).resolve()
CHROMIUM = os.environ.get("SITE_TEST_CHROMIUM", "/usr/bin/chromium")
# The npm package mathjax@3, unpacked: .cache/mathjax3/package/es5/tex-mml-chtml.js
MATHJAX_CACHE = ROOT / ".cache" / "mathjax3"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # the browser dropping a connection; a real miss shows up as an HTTP 404


@pytest.fixture(scope="session")
def origin():
    """Serve _build/html on 127.0.0.1 (free port, loopback only) from a thread."""
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _fetch_mathjax(dest: Path) -> None:
    """`npm pack mathjax@3` and unpack it into dest/package (what .ci/run also does)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"no MathJax 3 copy in {dest} and no npm to fetch one: "
                    "apt-get install npm, or unpack `npm pack mathjax@3` there")
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([npm, "pack", "mathjax@3", "--silent", "--pack-destination", tmp],
                             capture_output=True, text=True, timeout=300)
        packed = sorted(Path(tmp).glob("mathjax-*.tgz"))
        if run.returncode != 0 or not packed:
            pytest.fail(f"`npm pack mathjax@3` failed: {run.stderr.strip()[:500]}")
        with tarfile.open(packed[0]) as tar:
            # the "data" filter (no absolute paths, no links out) exists from Python 3.11.4
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(dest, **safe)


@pytest.fixture(scope="session")
def mathjax_dir() -> Path:
    """Root of the unpacked npm package mathjax@3 (the folder holding es5/)."""
    root = Path(os.environ.get("SITE_TEST_MATHJAX_DIR", MATHJAX_CACHE / "package"))
    if not (root / "es5" / "tex-mml-chtml.js").is_file():
        _fetch_mathjax(root.parent)
    if not (root / "es5" / "tex-mml-chtml.js").is_file():
        pytest.fail(f"{root}/es5/tex-mml-chtml.js missing after fetching mathjax@3")
    return root


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the whole session (never Playwright's own build)."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: the site test needs Debian's browser "
                    "(apt-get install chromium); it is never skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    yield ctx
    ctx.close()
