"""What `clarity browse` shows, asked over a real socket of a real server: every plan
(live, archived, kept), the filters, search as `clarity search` ranks it, a plan and
its versions, the pictures; hostile plans shown as text; nothing moved."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.browse import hostile
from tests.browse.page import EDITED, browse_server, clarity, lay_out_home
from tests.browse.server import Served

ROW = re.compile(r'<tr class="row-([a-z]+)" data-plan="([^"]*)" data-place="([a-z]+)">')
HIT = re.compile(r'<li data-plan="([^"]*)" data-place="([a-z]+)">')


def as_shown(name: str) -> str:
    """A name as the page writes it: bytes that are not UTF-8 as \\xNN."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def rows(page: str) -> list[tuple[str, str, str]]:
    """(class, name, place) of each row of the list."""
    return [(c, html.unescape(n), p) for c, n, p in ROW.findall(page)]


def link_to(page: str, name: str) -> str:
    """The address of the plan page linked from the row of that plan."""
    for row in page.split("<tr ")[1:]:
        found = ROW.match("<tr " + row)
        if found and html.unescape(found.group(2)) == as_shown(name):
            href = re.search(r'href="(plan\?[^"]+)"', row)
            assert href, row
            return html.unescape(href.group(1))
    raise AssertionError(f"no row for {name!r}")


def cli_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    run = subprocess.run([clarity(), *args, "--json"], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    found: dict[str, Any] = json.loads(run.stdout)
    return found


def tree(*folders: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below the folders: its bytes and mtime."""
    found = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                found[os.fsdecode(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("browse-hostile")
    env = lay_out_home(home)
    plans, archive = home / ".claude/plans", home / ".claude/plans-archive"
    hostile.lay_hostile_plans(plans, archive, "http://127.0.0.1:9")
    return home, env


@pytest.fixture(scope="module")
def hostile_served(hostile_home):
    with browse_server(hostile_home[1]) as (_, url):
        yield Served.from_url(url)


def test_the_list_shows_every_plan_live_archived_and_kept(hostile_home, hostile_served):
    env = hostile_home[1]
    live = {plan["name"]: plan["class"] for plan in cli_json(env, "scan")["plans"]}
    shelf = cli_json(env, "archived")
    archived = {plan["name"] for plan in shelf["plans"]}
    kept = {plan["name"] for plan in shelf["kept"]}
    shown = rows(hostile_served.page("/"))
    assert {n: c for c, n, p in shown if p == "live"} == {
        as_shown(name): plan_class for name, plan_class in live.items()
    }
    assert {n for c, n, p in shown if p == "archive"} == archived
    assert {n for c, n, p in shown if p == "kept"} == kept == {hostile.GONE}
    assert len(shown) == len(live) + len(archived) + len(kept)


def test_filters_narrow_the_list(hostile_served):
    everything = rows(hostile_served.page("/"))
    for plan_class in ("active", "dormant", "archived", "kept"):
        shown = rows(hostile_served.page(f"/?class={plan_class}"))
        assert shown and {c for c, _, _ in shown} == {plan_class}
        assert len(shown) == sum(1 for c, _, _ in everything if c == plan_class)
    kept = rows(hostile_served.page("/?place=kept"))
    assert [n for _, n, _ in kept] == [hostile.GONE]
    oldest_first = rows(hostile_served.page("/?sort=old"))
    assert oldest_first == list(reversed(everything))
    assert rows(hostile_served.page("/?class=active&project=/nowhere")) == []
    assert "No plan matches." in hostile_served.page("/?class=active&project=/nowhere")


def test_a_hostile_plan_is_text_on_every_page(hostile_served):
    listed = hostile_served.page("/")
    page = hostile_served.page(link_to(listed, hostile.HOSTILE))
    hits = hostile_served.page("/search/hits?q=alert")
    for shown in (listed, page, hits):
        assert re.findall(r"<script\b[^>]*>", shown) in (
            [],
            ['<script src="static/browse.js" defer>'],
        )
        for tag in ("<img", "<iframe", "<style", "<svg onload", "<b>"):
            assert tag not in shown
        tags = re.findall(r"<[a-zA-Z][^>]*>", shown)  # escaped text holds no "<"
        assert not [tag for tag in tags if re.search(r"\son[a-z]+=", tag)]
        assert 'href="javascript:' not in shown and 'href="data:' not in shown
        assert "\x1b" not in shown and "\x07" not in shown
    assert "&lt;script&gt;alert(1)" in page
    assert "&lt;img src=&#34;http://127.0.0.1:9/raw-img.png&#34; onerror" in page.replace(
        "&quot;", "&#34;"
    )
    # a picture in Markdown is a link to it, never fetched
    assert '<a class="image" href="http://127.0.0.1:9/markdown-img.png"' in page
    assert '<input type="checkbox" disabled checked> done' in page
    assert "<table>" in page and "<code>&lt;img src=x onerror=alert(7)&gt;</code>" in page


@pytest.mark.parametrize("name", [hostile.QUOTED, os.fsdecode(hostile.NOT_UTF8)])
def test_a_name_with_quotes_newlines_or_other_bytes_reaches_its_page(hostile_served, name):
    page = hostile_served.page(link_to(hostile_served.page("/"), name))
    assert as_shown(name).split("\n")[0] in html.unescape(page)
    assert "This plan is not there now" not in page


def test_a_plan_of_10_mb_is_shown_in_part_and_says_how_to_see_it_all(hostile_served):
    page = hostile_served.page(link_to(hostile_served.page("/"), hostile.HUGE))
    assert "Showing the first 256.0 KB of 10.0 MB" in page
    assert "show huge-one-line" in page
    assert len(page) < 2 * 1024 * 1024


def test_a_kept_plan_has_its_page_and_the_command_that_restores_it(hostile_served):
    page = hostile_served.page(link_to(hostile_served.page("/"), hostile.GONE))
    assert "Only clarity kept this text." in page
    assert "restore deleted-by-claude-code" in page


def test_an_archived_plan_shows_its_record_and_sub_plans(served):
    page = served.page(link_to(served.page("/"), "swift-owl-turing.md"))
    assert "Archived" in page and "original_path" not in page
    assert "swift-owl-turing-agent-a1b2c3d4.md" in page
    assert "restore swift-owl-turing" in page


def test_search_ranks_as_clarity_search_does(home, served):
    expected = [(hit["name"], hit["where"]) for hit in cli_json(home[1], "search", "cache")["hits"]]
    fragment = served.page("/search/hits?q=cache")
    assert [(html.unescape(n), p) for n, p in HIT.findall(fragment)] == expected
    assert "<mark>" in fragment
    assert HIT.findall(served.page("/search?q=cache")) == HIT.findall(fragment)
    assert "hits for" not in served.page("/search/hits?q=")


def test_a_query_clarity_search_refuses_is_said_on_the_page(served):
    for query in ("%22", "-cache"):
        fragment = served.page("/search/hits?q=" + query)
        assert '<p class="missing">nothing to search for' in fragment
        assert "<li" not in fragment


def test_a_plan_page_lists_its_versions_and_their_diff(served):
    page = served.page(link_to(served.page("/"), EDITED))
    diffs = re.findall(r'href="(diff\?[^"]+)"', page)
    assert len(diffs) == 2  # side by side and unified, of versions 1 and 2
    split = served.page(html.unescape(diffs[0]))
    added = r'<tr class="added"><td class="ln"></td><td class="old"></td><td class="ln">\d+</td>'
    assert re.search(added + '<td class="new">## Follow-up</td>', split)
    unified = served.page(html.unescape(diffs[1]))
    assert '<span class="added">+## Follow-up</span>' in unified
    assert "diff misty-sleeping-cherny 1 2" in unified


def test_the_pictures_are_svg_drawn_on_the_server(served):
    page = served.page("/pictures")
    assert page.count('<svg class="picture"') == 3
    assert "<title>Plans per week by class</title>" in page
    assert "2026-Q" in page or "nothing archived yet" in page


def test_a_plan_that_is_gone_says_so(served):
    answer = served.ask("/plan?r=nothere&p=live&v=nothing.md")
    assert answer.status == 404 and "This plan is not there now" in answer.body
    chosen = re.search(r'<option value="([0-9a-f]{8})"', served.page("/"))
    assert chosen is not None
    root = chosen.group(1)
    answer = served.ask(f"/plan?r={root}&p=live&v=no-such-plan.md")
    assert answer.status == 404 and "no-such-plan.md" in answer.body
    answer = served.ask(f"/diff?r={root}&v={EDITED}&a=1&b=9")
    assert answer.status == 404 and "versions 1 to" in answer.body


def test_browsing_moves_nothing(home, served):
    claude = home[0] / ".claude"
    before = tree(claude)
    listed = served.page("/")
    links = re.findall(r'href="([^"]*)"', listed)
    assert links and not [link for link in links if link.startswith(("/", "http"))]  # within
    for path in links:
        served.ask(html.unescape(path))
    for path in ("/pictures", "/search?q=cache", "/?class=archived&sort=old"):
        served.page(path)
    assert tree(claude) == before


def test_a_plans_folder_that_vanishes_leaves_the_page_usable(tmp_path):
    env = lay_out_home(tmp_path)
    plans = tmp_path / ".claude/plans"
    with browse_server(env) as (_, url):
        served = Served.from_url(url)
        first = served.page("/")
        address = link_to(first, EDITED)
        plans.rename(tmp_path / "moved-away")
        try:
            answer = served.ask(address)
            assert answer.status == 404 and "This plan is not there now" in answer.body
            for _ in range(100):  # the next catalogue is made in the background
                page = served.page("/")
                if "Cannot read" in page:
                    break
            assert "Cannot read" in page and str(plans) in html.unescape(page)
            assert "live" not in {p for _, _, p in rows(page)}  # the archive, the texts kept
        finally:
            (tmp_path / "moved-away").rename(plans)


def test_many_plans_are_shown_a_page_at_a_time(tmp_path):
    env = lay_out_home(tmp_path)
    plans = tmp_path / ".claude/plans"
    for number in range(450):
        (plans / f"many-{number:04d}.md").write_text(f"# Plan {number}\n\nA plan.\n")
    with browse_server(env) as (_, url):
        served = Served.from_url(url)
        first = served.page("/")
        assert len(rows(first)) == 200 and "Page 1 of 3" in first
        third = served.page("/?page=3")
        assert len(rows(third)) == 450 + 15 - 400
        assert served.page("/?page=99").count("<tr class=") == len(rows(third))
        seen = {n for page in (1, 2, 3) for _, n, _ in rows(served.page(f"/?page={page}"))}
        assert len(seen) == 465


def test_notes_on_a_folder_are_on_the_page(tmp_path):
    env = lay_out_home(tmp_path)
    index = tmp_path / ".claude/plans-archive/index.jsonl"
    lines = index.read_text().splitlines()
    index.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    (tmp_path / ".claude/plans/a-link.md").symlink_to("/etc/hostname")
    with browse_server(env) as (_, url):
        page = html.unescape(Served.from_url(url).page("/"))
    assert "index.jsonl line 2 is damaged" in page
    assert "a-link.md: symlink: not followed" in page and 'class="notes"' in page


def test_a_plan_nested_too_deep_for_the_rendered_page_points_to_its_plain_text(tmp_path):
    env = lay_out_home(tmp_path)
    deep = "# Deep\n\n" + "".join("  " * level + f"- level {level}\n" for level in range(120))
    (tmp_path / ".claude/plans/deep-plan.md").write_text(deep + "SECRET-AT-THE-END\n")
    with browse_server(env) as (_, url):
        served = Served.from_url(url)
        address = link_to(served.page("/"), "deep-plan.md")
        page = served.page(address)
        assert "deeper than the rendered page shows" in page
        plain = served.page(address + "&raw=1")
    assert '<pre class="raw">' in plain and "level 119" in plain
    assert "SECRET-AT-THE-END" in plain


def test_an_archived_sub_plan_and_its_plan_link_each_other(served):
    parent = served.page(link_to(served.page("/"), "swift-owl-turing.md"))
    subs = re.findall(r'<a href="(plan\?[^"]+p=archive[^"]+agent[^"]+)">', parent)
    assert subs
    sub = served.page(html.unescape(subs[0]))
    assert "Sub-plan of" in sub and "v=2026-Q" in sub
    assert "swift-owl-turing.md</a>" in sub
    assert "<dt>Archived</dt>" not in sub  # its plan's record is not shown as its own


def test_a_plans_folder_that_is_not_there_is_one_line_and_exit_2(tmp_path):
    run = subprocess.run(
        [clarity(), "browse", "--no-open", "--plans-dir", str(tmp_path / "nowhere")],
        env=lay_out_home(tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "does not exist" in run.stderr


def test_a_plan_cannot_fake_the_marks_of_a_search_hit(tmp_path):
    env = lay_out_home(tmp_path)
    (tmp_path / ".claude/plans/marks.md").write_text(
        "# Marks\n\nfindme and \x02<script>alert(1)</script>\x03 beside it\n"
    )
    with browse_server(env) as (_, url):
        fragment = Served.from_url(url).page("/search/hits?q=findme")
    assert re.findall(r"<mark>(.*?)</mark>", fragment) == ["findme"]


def test_ctrl_c_while_pages_are_being_made_is_one_line(tmp_path):
    env = lay_out_home(tmp_path)
    (tmp_path / ".claude/plans/long-list.md").write_text(
        "# Long\n\n" + "- item **bold** [link](http://x) `code`\n" * 8000
    )
    with browse_server(env) as (process, url):
        served = Served.from_url(url)
        address = link_to(served.page("/"), "long-list.md")
        import threading

        askers = [threading.Thread(target=served.ask, args=(address,)) for _ in range(3)]
        for asker in askers:
            asker.start()
        import time

        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        for asker in askers:
            asker.join(30)
    assert out.strip().splitlines()[-1] == "clarity browse stopped."
    assert "Traceback" not in err and "Error" not in err


def test_a_plan_page_reads_as_a_person_reads_it(served):
    """Issue 46: the versions table comes before the text (not 9,800 px down), its dates
    read as dates, the unified diff is one line a line, and a title's `code` is code."""
    page = served.page(link_to(served.page("/"), EDITED))
    assert page.index("<h2>Versions</h2>") < page.index("<h2>Text</h2>")
    assert not re.search(r"<td>\d{4}-\d\d-\d\dT\d\d:\d\d", page)  # no raw ISO moment
    assert re.search(r"<td>\d{4}-\d\d-\d\d \d\d:\d\d</td>", page)
    diffs = re.findall(r'href="(diff\?[^"]+)"', page)
    unified = served.page(html.unescape(diffs[1]))
    assert "</span>\n<span" not in unified  # blocks already: a newline would double them


def test_a_title_s_code_spans_are_code_and_everything_else_is_escaped():
    from clarity.browse.pages import inline, when

    assert str(inline("Plan: `cache` <b>x</b>")) == "Plan: <code>cache</code> &lt;b&gt;x&lt;/b&gt;"
    assert str(inline("`<script>`")) == "<code>&lt;script&gt;</code>"
    assert when("2026-11-28T07:25:13+00:00") == "2026-11-28 07:25"
    assert when("not a date") == "not a date"
