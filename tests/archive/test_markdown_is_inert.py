"""Issue 42, case 8: INDEX.md and every Markdown report copied raw HTML from plan titles
and summaries (a remote <img> a Markdown viewer would fetch), and summaries mangled
links. Rendered as a viewer renders Markdown (HTML on), nothing a plan wrote becomes a
tag, and a link's text is its summary's."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.builders.files import NOW_ISO, Plan, make_files

REMOTE = "http://tracker.example/pixel.png"
HOSTILE = (
    f'# Done <img src="{REMOTE}"> ![x]({REMOTE}) COMPLETED\n\n'
    f'We shipped it <img src="{REMOTE}"><script>alert(1)</script> and &lt;b&gt; too, see '
    "[the runbook](https://en.wikipedia.org/wiki/Runbook_(ops)) and `__init__` for "
    f"**details** ![chart]({REMOTE}).\n"
)


def _html(markdown: str) -> str:
    rendered: str = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    return rendered


@pytest.fixture
def archived(cli, plans_dir: Path) -> Path:
    make_files(plans_dir, {"hostile.md": Plan(HOSTILE, 10)})
    assert cli("apply", "--rescan", "--yes", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    return plans_dir.parent / "plans-archive"


def _inert(markdown: str) -> None:
    html = _html(markdown)
    assert "<img" not in html and "<script" not in html, html
    assert 'src="' not in html and f'href="{REMOTE}' not in html  # named, never fetched


def test_index_md_shows_a_plans_markup_as_text(archived: Path) -> None:
    index = (archived / "INDEX.md").read_text()
    _inert(index)
    html = _html(index)
    assert "&lt;img src=" in html  # shown, as the plan wrote it
    assert "the runbook and \\_\\_init\\_\\_ for details" in index  # the link's text, code kept
    assert "the runbook and __init__ for details" in html  # __init__, no emphasis
    assert "(ops))" not in index


@pytest.mark.parametrize(
    "args",
    [
        ["archived", "--format", "markdown"],
        ["archived", "shipped", "--format", "markdown"],
        ["search", "shipped", "--format", "markdown"],
    ],
)
def test_markdown_reports_show_a_plans_markup_as_text(cli, archived, plans_dir, args) -> None:
    ran = cli(*args, "--plans-dir", str(plans_dir))
    assert ran.exit_code == 0, ran.stderr
    _inert(ran.stdout)


def test_the_scan_report_in_markdown_shows_a_title_as_text(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"hostile.md": Plan(HOSTILE, 10)})
    ran = cli("scan", "--format", "markdown", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert ran.exit_code == 0, ran.stderr
    _inert(ran.stdout)
