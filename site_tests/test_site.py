"""Open every page of the built book in headless Chromium and fail on what a reader would hit.

One test per page (the test id is the page's path). A page fails on:
console errors and uncaught exceptions, requests that fail or leave the site,
raw TeX left unrendered in the visible text, MathJax errors and undefined
macros, images that did not load, and links to missing pages or anchors.

The site is served from _build/html on 127.0.0.1; MathJax, which readers get
from its CDN, is answered from a local copy of the npm package mathjax@3; every
other outside request is aborted and reported. See conftest.py.
"""

from __future__ import annotations

import html.parser
import json
import re
import urllib.parse
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import HTML, ROOT

MATHJAX_CDN = re.compile(r"^https://cdn\.jsdelivr\.net/npm/mathjax@3/(?P<path>[^?#]*)")
NOT_PAGES = ("_static/", "_sources/", "_images/", "_downloads/")
TIMEOUT_MS = 30_000

# Console messages every Jupyter Book 1.0.4 page produces; no project setting removes them.
KNOWN_HARMLESS = {
    # sphinx-thebe 0.3.1 adds its inline config <script> with app.add_js_file(None, body=...)
    # and Sphinx 7.4 writes that script twice into every page; the first copy defines everything.
    "Identifier 'THEBE_JS_URL' has already been declared",
    # pydata-sphinx-theme on a reader's first page view, while localStorage is still empty.
    "Got invalid theme mode: . Resetting to auto.",
}

# Visible text (outside code and MathJax output) that still looks like TeX.
RAW_TEX = {
    "$$": re.compile(r"\$\$"),
    "TeX delimiter": re.compile(r"\\[()\[\]]"),
    "TeX command": re.compile(r"\\[A-Za-z]+"),
    # $...$ holding \ ^ _ or {: "$5 and $10" does not match
    "$...$": re.compile(
        r"(?<![\\$\w])\$(?=\S)[^$\n]{0,200}?[\\^_{][^$\n]{0,200}?(?<=\S)\$(?![\d$])"),
}

# Runs in the page after `load`: waits for MathJax and the images, then reports.
PAGE_JS = r"""
async (timeoutMs) => {
  const sleep = (ms) => new Promise(r => setTimeout(r, ms));
  const out = {mathjax: 'absent', merrors: [], undefinedMacros: [], images: [],
               texBlocks: [], links: [], ids: []};
  if (window.MathJax) {
    // the config object is replaced by the library when its deferred script has run
    const t0 = Date.now();
    while (!(MathJax.startup && MathJax.startup.promise) && Date.now() - t0 < 3000) await sleep(25);
    if (MathJax.startup && MathJax.startup.promise) {
      const settled = (async () => {  // startup.promise is re-chained while typesetting
        let p;
        do { p = MathJax.startup.promise; await p; } while (p !== MathJax.startup.promise);
      })();
      try {
        const late = sleep(timeoutMs).then(() => { throw new Error('timed out'); });
        await Promise.race([settled, late]);
        out.mathjax = 'ok';
      } catch (e) { out.mathjax = 'typesetting failed: ' + e; }
    } else {
      out.mathjax = 'configured, but the library never loaded';
    }
  }
  for (const e of document.querySelectorAll('mjx-merror'))
    out.merrors.push(e.getAttribute('data-mjx-error') || e.textContent);
  // an undefined \macro is drawn as red text (noundefined), which is no mjx-merror
  for (const e of document.querySelectorAll('mjx-assistive-mml mtext[mathcolor="red"]'))
    if (e.textContent.startsWith('\\')) out.undefinedMacros.push(e.textContent);
  const imgs = Array.from(document.images);
  for (const img of imgs) if (img.loading === 'lazy') img.loading = 'eager';
  await Promise.race([
    Promise.all(imgs.map(img => img.complete ? null : new Promise(r => {
      img.addEventListener('load', r, {once: true}); img.addEventListener('error', r, {once: true});
    }))),
    sleep(timeoutMs)]);
  for (const img of imgs) {
    if (!img.getAttribute('src')) continue;
    let ok = img.complete && img.naturalWidth > 0;
    if (img.complete && !ok) { try { await img.decode(); ok = img.naturalWidth > 0; } catch (e) {} }
    if (!ok) out.images.push(img.getAttribute('src'));
  }
  const SKIP = 'script,style,noscript,template,textarea,pre,code,kbd,samp,mjx-container,math,svg';
  const BLOCK = 'p,li,td,th,dt,dd,h1,h2,h3,h4,h5,h6,figcaption,caption,blockquote,div,section,body';
  const blocks = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => n.parentElement.closest(SKIP) ? NodeFilter.FILTER_REJECT
                                                     : NodeFilter.FILTER_ACCEPT});
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const b = n.parentElement.closest(BLOCK) || document.body;
    blocks.set(b, (blocks.get(b) || '') + n.nodeValue);
  }
  for (const [b, text] of blocks)
    if (/[$\\]/.test(text))
      out.texBlocks.push({where: b.tagName.toLowerCase() + (b.id ? '#' + b.id : ''), text});
  for (const a of document.querySelectorAll('a[href], area[href]'))
    out.links.push({href: a.getAttribute('href'), url: a.href,
                    text: a.textContent.trim().replace(/\s+/g, ' ').slice(0, 60)});
  for (const e of document.querySelectorAll('[id]')) out.ids.push(e.id);
  out.figures = document.querySelectorAll('.cell_output img').length;
  return out;
}
"""


class _StaticPage(html.parser.HTMLParser):
    """The ids and <a name> anchors of a page as written, and its meta-refresh target."""

    def __init__(self, path: Path):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refresh: str | None = None
        self.feed(path.read_text(encoding="utf-8", errors="replace"))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.ids.update(v for v in (a.get("id"), a.get("name") if tag == "a" else None) if v)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            m = re.search(r"url\s*=\s*['\"]?([^'\"\s>]+)", a.get("content") or "", re.I)
            self.refresh = m.group(1) if m else None


@lru_cache(maxsize=None)
def static_page(path: Path) -> _StaticPage:
    return _StaticPage(path)


def stored_figures(rel: str) -> int | None:
    """PNG outputs stored in the notebook a page was built from (None: not a notebook).

    The page is built from the notebook's stored outputs (`make book` does not execute
    it); a figure that is stored but not on the page was lost on the way.
    """
    source = (ROOT / rel).with_suffix(".ipynb")
    if not source.is_file():
        return None
    hidden = {"remove-output", "remove_output", "remove-cell", "remove_cell"}
    cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
    return sum("image/png" in out.get("data", {})
               for c in cells if c["cell_type"] == "code"
               and not hidden & set(c.get("metadata", {}).get("tags", []))
               for out in c.get("outputs", []))


def built_pages() -> list[str]:
    pages = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html"))
    pages = [p for p in pages if not p.startswith(NOT_PAGES)]
    if not pages:  # a collection error, never an empty (skipped) run
        raise pytest.UsageError(f"no built site in {HTML}: run `make book` first")
    return pages


def link_problem(href: str, url: str, here: str, dom_ids: set[str], origin: str) -> str | None:
    """Why an internal link is broken (None if it is fine or not internal)."""
    u = urllib.parse.urlsplit(url)
    if f"{u.scheme}://{u.netloc}" != origin:
        return None  # outside links are not followed (the test is offline)
    rel = urllib.parse.unquote(u.path).lstrip("/")
    target = HTML / rel
    if rel == "" or rel.endswith("/") or target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return f"{href!r}: {target.relative_to(HTML)} does not exist"
    anchor = urllib.parse.unquote(u.fragment)
    if not anchor or anchor == "top" or anchor.startswith(":~:") or target.suffix != ".html":
        return None
    ids = dom_ids if target.relative_to(HTML).as_posix() == here else static_page(target).ids
    if anchor not in ids:
        return f"{href!r}: no id {anchor!r} in {target.relative_to(HTML)}"
    return None


@pytest.mark.parametrize("rel", built_pages())
def test_page(rel, origin, context, mathjax_dir):
    refresh = static_page(HTML / rel).refresh
    if refresh:  # a redirect such as the root index.html: check where it points
        problem = link_problem(refresh, urllib.parse.urljoin(f"{origin}/{rel}", refresh),
                               rel, set(), origin)
        assert problem is None, f"redirect {problem}"
        return

    problems: list[str] = []
    blocked: set[str] = set()
    failed: dict[str, str] = {}

    def on_route(route):
        url = route.request.url
        m = MATHJAX_CDN.match(url)
        if m:  # fonts are fetched with CORS, hence the header
            local = mathjax_dir / urllib.parse.unquote(m.group("path"))
            headers = {"access-control-allow-origin": "*"}
            if local.is_file():
                route.fulfill(path=str(local), headers=headers)
            else:
                route.fulfill(status=404, body="not in the local MathJax copy", headers=headers)
            return
        blocked.add(url)
        route.abort("blockedbyclient")

    def on_console(msg):
        if msg.type == "error":
            text = msg.text
            url = (msg.location or {}).get("url", "")
            if text.startswith("Failed to load resource") and (url in failed or url in blocked):
                return  # reported below as a request
            if text not in KNOWN_HARMLESS:
                problems.append(f"console error: {text}")

    def on_page_error(exc):
        if exc.message not in KNOWN_HARMLESS:
            problems.append(f"uncaught exception: {exc.message}")

    def on_failed(request):
        if request.url not in blocked:
            failed.setdefault(request.url, request.failure or "failed")

    def on_response(response):
        if response.status >= 400:
            failed[response.url] = f"HTTP {response.status}"

    page = context.new_page()
    try:
        page.route(re.compile("^(?!" + re.escape(origin) + "/)"), on_route)
        page.on("console", on_console)
        page.on("pageerror", on_page_error)
        page.on("requestfailed", on_failed)
        page.on("response", on_response)
        page.goto(f"{origin}/{urllib.parse.quote(rel)}", wait_until="load", timeout=TIMEOUT_MS)
        found = page.evaluate(PAGE_JS, TIMEOUT_MS * 3 // 4)
        page.wait_for_timeout(50)  # late console and request events
    finally:
        page.close()

    problems += [f"outside request (blocked; the test is offline): {u}" for u in sorted(blocked)]
    problems += [f"request failed: {u} ({why})" for u, why in sorted(failed.items())]
    if found["mathjax"] not in ("ok", "absent"):
        problems.append(f"MathJax {found['mathjax']}")
    problems += [f"MathJax error: {e}" for e in found["merrors"]]
    problems += [f"undefined TeX macro: {m}" for m in found["undefinedMacros"]]
    problems += [f"image did not load: {src}" for src in found["images"]]
    stored = stored_figures(rel)
    if stored is not None and found["figures"] < stored:
        problems.append(f"{stored} figure(s) stored in the notebook, {found['figures']} "
                        "on the page: the build's kernel drew none (MPLBACKEND=Agg?)")
    for block in found["texBlocks"]:
        for name, pattern in RAW_TEX.items():
            m = pattern.search(block["text"])
            if m:
                context_text = block["text"][max(0, m.start() - 40): m.end() + 40]
                problems.append(f"raw TeX ({name}) in {block['where']}: {context_text!r}")
                break
    dom_ids = set(found["ids"])
    seen = set()
    for link in found["links"]:
        if link["url"] in seen:
            continue
        seen.add(link["url"])
        problem = link_problem(link["href"], link["url"], rel, dom_ids, origin)
        if problem:
            problems.append(f"broken link {problem} (text: {link['text']!r})")

    assert not problems, f"{rel}: {len(problems)} problem(s)\n  " + "\n  ".join(problems)
