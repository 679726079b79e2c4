"""`clarity browse` in a real browser: Debian's headless Chromium, driven by Playwright
(SPEC 9.3). A person's journey (list, filter, search as you type, a plan, its diff);
a hostile plan that runs nothing and sends nothing; the refusals as a browser meets
them (no token, a rebound name); and the screenshots of every page at two widths."""

from __future__ import annotations

import http.server
import os
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browse import hostile
from tests.browse.page import (
    EDITED,
    browse_server,
    have_chromium,
    launch,
    lay_out_home,
    pages_base,
)
from tests.browse.screenshots import WIDTHS, take

if not have_chromium():
    if os.environ.get("CI"):
        raise RuntimeError("CI needs Debian's chromium for these tests (.ci/run installs it)")
    pytest.skip("no chromium here: apt-get install chromium", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

REBOUND = "rebound.test"  # a name an attacker points at 127.0.0.1 (DNS rebinding)


class Canary(http.server.ThreadingHTTPServer):
    """A server a hostile plan tries to reach: it notes every request it gets, and every
    cookie sent with one."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.cookies: list[str] = []
        canary = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                canary.asked.append(self.path)
                canary.cookies.extend(self.headers.get_all("Cookie") or [])
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture(scope="module")
def canary() -> Iterator[Canary]:
    server = Canary()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def site(tmp_path_factory, canary) -> Iterator[str]:
    home = tmp_path_factory.mktemp("browser-home")
    env = lay_out_home(home)
    hostile.lay_hostile_plans(home / ".claude/plans", home / ".claude/plans-archive", canary.url)
    with browse_server(env) as (_, url):
        yield url


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright, f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1")
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(30_000)
    yield opened
    context.close()


def plan_rows(page) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = page.eval_on_selector_all(
        "tr[data-plan]",
        "rows => rows.map(r => [r.className, r.dataset.plan, r.dataset.place])",
    )
    return rows


def test_a_person_lists_filters_searches_opens_a_plan_and_its_diff(page, site):
    page.goto(site)
    page.wait_for_selector("table.plans")
    everything = plan_rows(page)
    assert len(everything) >= 15

    page.select_option("select[name=class]", "archived")
    page.click("form.filters button")
    page.wait_for_url("**/?class=archived*")
    archived = plan_rows(page)
    assert archived and all(row[0] == "row-archived" for row in archived)
    assert len(archived) == sum(1 for row in everything if row[0] == "row-archived")

    page.fill("#q", "cache")  # typed, not submitted: the hits come as it is typed
    page.wait_for_selector("#hits li[data-plan]")
    hits = page.eval_on_selector_all("#hits li[data-plan]", "li => li.map(h => h.dataset.plan)")
    assert "swift-owl-turing.md" in hits
    assert page.inner_text("#hits mark").lower() == "cache"

    page.goto(pages_base(page) + "/")
    page.click(f'a[href*="v={EDITED}"]')
    page.wait_for_selector("article.markdown")
    assert page.inner_text("h1") == "Plan: Add OAuth device flow to the CLI"
    assert page.locator("article.markdown input[type=checkbox]:checked").count() >= 1

    page.click("a:has-text('diff with 1')")
    page.wait_for_selector("table.diff.split")
    assert page.locator("tr.added td.new", has_text="## Follow-up").count() == 1
    page.click("a:has-text('unified')")
    page.wait_for_selector("pre.diff.unified")
    assert page.locator("pre.diff span.added", has_text="+## Follow-up").count() == 1


def test_a_hostile_plan_runs_nothing_and_sends_nothing(page, site, canary):
    origin = site.split("/?")[0]
    dialogs: list[str] = []
    requests: list[str] = []

    def dialog_shown(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dialog_shown)
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site)
    page.wait_for_selector("table.plans")
    base = pages_base(page)  # the server's own pages, under their secret path
    page.click(f'a[href*="v={hostile.HOSTILE}"]')
    page.wait_for_selector("article.markdown")
    page.wait_for_load_state("networkidle")
    page.fill("#q", "alert")
    page.wait_for_selector("#hits li[data-plan]")
    page.goto(base + "/?class=active")
    page.wait_for_load_state("networkidle")

    assert dialogs == []
    assert canary.asked == []
    assert [url for url in requests if not url.startswith(origin + "/")] == []
    page.goto(base + "/")
    page.click(f'a[href*="v={hostile.HOSTILE}"]')
    page.wait_for_selector("article.markdown")
    article = page.locator("article.markdown")
    assert article.locator("script, img, iframe, style, svg").count() == 0
    assert "<script>alert(1)" in article.inner_text()
    assert page.evaluate("document.scripts.length") == 1  # the page's own, from /static
    assert page.is_visible("body")  # the plan's <style> hid nothing


def test_the_pages_secret_never_reaches_another_local_server(chromium, site):
    # Issue 42, case 7: a loopback cookie goes to every port of 127.0.0.1, and once the
    # page was open any other local server the browser was sent to received the token.
    other = Canary()
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    context = chromium.new_context()
    try:
        opened = context.new_page()
        assert opened.goto(site).status == 200  # the token is a cookie now
        prefix = urlsplit(pages_base(opened)).path
        for path in ("/", "/plan?r=x", "/static/browse.js", prefix[:-1] + "/", "/deep/er"):
            with pytest.raises(sync_api.Error, match="ERR_ABORTED"):  # its 204: no page
                opened.goto(other.url + path)
        assert len(other.asked) == 5 and other.cookies == []
    finally:
        context.close()
        other.shutdown()
        other.server_close()


def test_a_browser_without_the_token_or_at_a_rebound_name_is_refused(chromium, site):
    base = site.split("/?")[0]
    port = base.rsplit(":", 1)[1]
    token = site.split("token=")[1]
    context = chromium.new_context()
    try:
        opened = context.new_page()
        answer = opened.goto(base + "/")
        assert answer is not None and answer.status == 403
        assert "open the address clarity browse printed" in opened.inner_text("body")
        answer = opened.goto(f"http://{REBOUND}:{port}/?token={token}")
        assert answer is not None and answer.status == 403
        assert "loopback" in opened.inner_text("body")
        answer = opened.goto(site)  # the printed address: served, the token now a cookie
        assert answer is not None and answer.status == 200
        assert "token=" not in opened.url
        cookies = context.cookies()
        assert [c["httpOnly"] for c in cookies] == [True]
        assert cookies[0]["path"] == urlsplit(pages_base(opened)).path + "/"
        answer = opened.goto(f"http://{REBOUND}:{port}/")
        assert answer is not None and answer.status == 403
    finally:
        context.close()


def _png_width(path: Path) -> int:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int(struct.unpack(">I", data[16:20])[0])


def test_the_screenshots_script_shoots_every_page_at_both_widths(chromium, tmp_path):
    shots = take(tmp_path / "shots", tmp_path / "home", chromium)
    names = sorted(path.name for path in shots)
    pages = ("diff", "list", "pictures", "plan", "search")
    assert names == sorted(f"{page}-{width}.png" for page in pages for width in WIDTHS)
    for shot in shots:
        assert _png_width(shot) == int(shot.stem.rsplit("-", 1)[1])
        assert shot.stat().st_size > 5_000  # a page, not a blank


def test_on_a_phone_nothing_is_cut_off_and_the_pictures_labels_stay_readable(chromium, site):
    """Issue 46: at 390 px the session table scrolls inside its box (the page itself does
    not overflow), and a picture keeps labels a person can read (it scrolls instead)."""
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    phone.set_default_timeout(30_000)
    try:
        phone.goto(site)
        phone.wait_for_selector("table.plans")
        base = pages_base(phone)
        for path in ("/pictures", "/"):
            phone.goto(base + path)
            overflow = phone.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            assert overflow <= 1, (path, overflow)
        phone.goto(base + "/pictures")
        heights = phone.eval_on_selector_all(
            "svg.picture text.label", "labels => labels.map(l => l.getBoundingClientRect().height)"
        )
        assert heights and min(heights) >= 8, heights
    finally:
        context.close()
