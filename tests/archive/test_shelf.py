"""`clarity archived [QUERY]` and `clarity show NAME`: the archive, read and searched.

Plans are archived by the real executor (`clarity archive`), then listed,
searched and shown; both commands must change nothing anywhere.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot
from tests.builders.processes import drain, run_process

PLANS = {
    # ages put them in 2026-Q4 (20, 30 days), 2026-Q3 (100 days) and 2026-Q2 (200 days)
    "cache.md": Plan(
        "# Cache layer\n\nPut the cache behind one interface.\n\n"
        + "filler line\n" * 200
        + "We chose Memcached over Redis for its simpler eviction.\n",
        30,
    ),
    "cache-agent-r1.md": Plan("# Research\n\nThe sub-plan mentions ZOOKEEPER here.\n", 30),
    "search.md": Plan("# Search rewrite\n\nMove search to the new index.\n", 20),
    "billing.md": Plan("# Billing\n\nInvoices in the new format.\n", 100),
    "login.md": Plan("# Login flow\n\nSingle sign-on for the cache admin page.\n", 200),
}
HOSTILE_TITLE = 'Quote " and \x1b[2J escape'


@pytest.fixture
def archive_dir(cli, plans_dir: Path) -> Path:
    make_files(plans_dir, PLANS)
    for name in ("billing", "cache", "login", "search"):  # archived out of date order
        result = cli("archive", "--yes", name, "--plans-dir", str(plans_dir), "--now", NOW_ISO)
        assert result.exit_code == 0, result.stderr
    return plans_dir.parent / "plans-archive"


def archived(cli, plans_dir: Path, *args: str):
    return cli("archived", *args, "--plans-dir", str(plans_dir))


def test_the_listing_is_newest_first_by_quarter(cli, plans_dir: Path, archive_dir: Path) -> None:
    result = archived(cli, plans_dir)

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"4 archived plans in {archive_dir}, newest first"
    quarters = [line for line in lines if re.fullmatch(r"\d{4}-Q\d", line)]
    assert quarters == ["2026-Q4", "2026-Q3", "2026-Q2"]
    names = [line.split()[0] for line in lines if line.startswith("  ") and ".md" in line[:20]]
    assert names == ["search.md", "cache.md", "billing.md", "login.md"]
    assert "      sub-plans: cache-agent-r1.md" in lines
    assert "      Put the cache behind one interface." in lines
    assert f"clarity show NAME --plans-dir {plans_dir}" in result.stderr  # the hint's options


def test_json_has_the_documented_shape(cli, plans_dir: Path, archive_dir: Path) -> None:
    document = archived(cli, plans_dir, "--json").json()

    assert document["schema_version"] == 1
    assert document["archive_dir"] == str(archive_dir)
    assert [plan["name"] for plan in document["plans"]] == [
        "search.md",
        "cache.md",
        "billing.md",
        "login.md",
    ]
    cache = document["plans"][1]
    assert set(cache) >= {
        "name", "title", "quarter", "path", "archived_at", "mtime", "size", "summary",
        "subplans", "matched_in",
    }  # fmt: skip
    assert cache["quarter"] == "2026-Q4"
    assert cache["path"] == str(archive_dir / "2026-Q4" / "cache.md")
    assert cache["subplans"] == ["cache-agent-r1.md"]
    assert cache["title"] == "Cache layer"
    assert cache["size"] == len(PLANS["cache.md"].content)
    assert cache["matched_in"] == []


@pytest.mark.parametrize(
    ("query", "names", "where"),
    [
        ("search REWRITE", ["search.md"], ["title"]),  # any case
        ("new format", ["billing.md"], ["summary"]),
        ("memcached", ["cache.md"], ["text"]),  # past the summary, deep in the plan
        ("zookeeper", ["cache.md"], ["text"]),  # in its sub-plan's text
        ("cache", ["cache.md", "login.md"], None),  # a name and title; a summary
    ],
)
def test_a_query_finds_plans_by_title_summary_or_text(
    cli, plans_dir: Path, archive_dir: Path, query: str, names: list[str], where
) -> None:
    document = archived(cli, plans_dir, query, "--json").json()

    assert [plan["name"] for plan in document["plans"]] == names
    if where is not None:
        assert [plan["matched_in"] for plan in document["plans"]] == [where]
    assert document["query"] == query
    assert document["total"] == 4


def test_a_query_that_matches_nothing_says_so(cli, plans_dir: Path, archive_dir: Path) -> None:
    result = archived(cli, plans_dir, "kubernetes")
    assert result.exit_code == 0
    assert "0 of 4 archived plans" in result.stdout
    assert "no archived plan matches 'kubernetes'" in result.stderr
    assert archived(cli, plans_dir, "kubernetes", "--json").json()["plans"] == []


def test_markdown_lists_each_quarter(cli, plans_dir: Path, archive_dir: Path) -> None:
    text = archived(cli, plans_dir, "--format", "markdown").stdout
    assert text.index("## 2026-Q4") < text.index("## 2026-Q3") < text.index("## 2026-Q2")
    assert "- **Cache layer** (`2026-Q4/cache.md`, modified" in text


def test_an_empty_archive_says_so(cli, plans_dir: Path) -> None:
    (plans_dir.parent / "plans-archive").mkdir()  # an archive everything was restored from

    result = archived(cli, plans_dir)

    assert (result.exit_code, result.stdout) == (0, "")
    assert f"the archive {plans_dir.parent / 'plans-archive'} holds no plans" in result.stderr
    assert "clarity apply" in result.stderr


def test_no_archive_yet_is_a_note_not_an_error(cli, plans_dir: Path) -> None:
    result = archived(cli, plans_dir)
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"no archive yet at {plans_dir.parent / 'plans-archive'}" in result.stderr
    document = archived(cli, plans_dir, "--json").json()
    assert document["plans"] == []
    assert not (plans_dir.parent / "plans-archive").exists()


def test_archived_and_show_change_nothing(
    cli, plans_dir: Path, archive_dir: Path, isolated_home: Path
) -> None:
    """Read-only: no lock, no state, no index written (so the skill may run them unasked)."""
    state = isolated_home / ".local" / "state"
    before = snapshot(plans_dir.parent), snapshot(state)
    from clarity.state import DirState

    with DirState.for_plans_dir(plans_dir).lock():  # an apply holding the lock meanwhile
        assert archived(cli, plans_dir, "memcached").exit_code == 0
        assert cli("show", "cache", "--plans-dir", str(plans_dir)).exit_code == 0
        before = before[0], snapshot(state)  # the lock's own files
    assert archived(cli, plans_dir, "--json").exit_code == 0
    assert (snapshot(plans_dir.parent), snapshot(state)) == before


def test_a_damaged_index_line_is_passed_over_with_a_note(
    cli, plans_dir: Path, archive_dir: Path
) -> None:
    with (archive_dir / "index.jsonl").open("ab") as stream:
        stream.write(b'{"name": "torn\n')
    result = archived(cli, plans_dir, "--json")
    assert result.exit_code == 0
    assert len(result.json()["plans"]) == 4
    assert "index.jsonl line 5 is damaged" in result.json()["notes"][0]


def show_bytes(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "clarity", "show", *args],
        capture_output=True,
        check=False,
        timeout=120,
    )


def test_show_piped_prints_the_exact_bytes(plans_dir: Path) -> None:
    data = b"# Odd \x1b[31mplan\r\n\nbytes \xff\xfe kept\tas\x00they are\n"
    make_files(plans_dir, {"odd.md": Plan(data, 30)})
    assert run_process("archive", "--yes", "odd", "--plans-dir", str(plans_dir)).exit_code == 0

    for name in ("odd", "odd.md", "2026-Q4/odd.md"):
        shown = show_bytes(name, "--plans-dir", str(plans_dir))
        assert (shown.returncode, shown.stdout, shown.stderr) == (0, data, b"")


def test_show_json_carries_the_record_and_text(cli, plans_dir: Path, archive_dir: Path) -> None:
    document = cli("show", "search", "--plans-dir", str(plans_dir), "--json").json()
    assert document["text"] == PLANS["search.md"].content
    assert document["plan"]["title"] == "Search rewrite"
    assert document["path"] == str(archive_dir / "2026-Q4" / "search.md")


def test_show_finds_a_sub_plan(cli, plans_dir: Path, archive_dir: Path) -> None:
    result = cli("show", "cache-agent-r1", "--plans-dir", str(plans_dir))
    assert result.stdout == PLANS["cache-agent-r1.md"].content


def test_a_name_archived_twice_must_be_named_by_its_path(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"twice.md": Plan("# First\n", 30)})
    assert cli("archive", "--yes", "twice", "--plans-dir", str(plans_dir)).exit_code == 0
    make_files(plans_dir, {"twice.md": Plan("# Second\n", 25)})
    assert cli("archive", "--yes", "twice", "--plans-dir", str(plans_dir)).exit_code == 0

    result = cli("show", "twice", "--plans-dir", str(plans_dir))
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert "twice names 2 archived files (2026-Q4/twice.2.md, 2026-Q4/twice.md)" in result.stderr
    assert cli("show", "2026-Q4/twice.2.md", "--plans-dir", str(plans_dir)).stdout == "# Second\n"
    assert cli("show", "twice.2", "--plans-dir", str(plans_dir)).stdout == "# Second\n"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nosuch", "no archived plan named nosuch in"),
        ("2026-Q1/cache.md", "no archived plan named 2026-Q1/cache.md in"),
        (" ", "an empty name was given"),
    ],
)
def test_an_unknown_name_is_one_line_exit_2(
    cli, plans_dir: Path, archive_dir: Path, name: str, message: str
) -> None:
    result = cli("show", name, "--plans-dir", str(plans_dir))
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_hostile_names_and_titles_are_shown_escaped(cli, plans_dir: Path) -> None:
    name = "two\nlines \x1b[2J.md"
    make_files(plans_dir, {name: Plan(f"# {HOSTILE_TITLE}\n\nIt \x1b]0;owned\x07 shipped.\n", 30)})
    assert cli("archive", "--yes", name, "--plans-dir", str(plans_dir)).exit_code == 0

    listing = archived(cli, plans_dir)
    assert "\x1b" not in listing.stdout + listing.stderr
    assert "two\\nlines \\x1b[2J.md" in listing.stdout
    assert 'Quote " and \\x1b[2J escape' in listing.stdout
    markdown = archived(cli, plans_dir, "--format", "markdown").stdout
    assert "\x1b" not in markdown
    document = archived(cli, plans_dir, "--json").json()
    assert document["plans"][0]["name"] == name  # JSON keeps it exact
    assert document["plans"][0]["title"] == HOSTILE_TITLE


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_show_in_a_terminal_renders_the_plan_escaped(plans_dir: Path) -> None:
    make_files(plans_dir, {"odd.md": Plan(f"# {HOSTILE_TITLE}\n\n- a **bold** step\n", 30)})
    assert run_process("archive", "--yes", "odd", "--plans-dir", str(plans_dir)).exit_code == 0
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", "show", "odd", "--plans-dir", str(plans_dir)],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.PIPE,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"},
    )
    os.close(terminal)
    drawn = drain(controller)
    assert process.wait(timeout=120) == 0
    assert process.stderr is not None
    with process.stderr:
        err = process.stderr.read().decode()
    assert f"put it back with clarity restore 2026-Q4/odd.md --plans-dir {plans_dir}" in err
    text = drawn.decode()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)  # rich's own colours, and nothing else
    assert "\x1b" not in plain
    assert 'Quote " and \\x1b[2J escape' in plain
    assert "bold" in plain and "**" not in plain  # rendered, not raw


def test_an_index_that_is_not_clarity_s_is_one_line_exit_2(cli, plans_dir: Path) -> None:
    archive = plans_dir.parent / "plans-archive"
    make_files(archive, {"index.jsonl": "my own notes\n"})
    result = archived(cli, plans_dir)
    assert result.exit_code == 2
    assert "index.jsonl: not clarity's" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_show_of_a_plan_gone_from_the_archive_says_so(
    cli, plans_dir: Path, archive_dir: Path
) -> None:
    (archive_dir / "2026-Q4" / "search.md").unlink()
    result = cli("show", "search", "--plans-dir", str(plans_dir))
    assert result.exit_code == 2
    assert "is in the archive's index but not in the archive" in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize(("steps", "paged"), [(100, True), (3, False)])
def test_show_of_a_long_plan_goes_through_the_pager(
    plans_dir: Path, tmp_path: Path, steps: int, paged: bool
) -> None:
    body = "".join(f"- step {n}\n" for n in range(steps))
    make_files(plans_dir, {"long.md": Plan(f"# Long plan\n\n{body}", 30)})
    assert run_process("archive", "--yes", "long", "--plans-dir", str(plans_dir)).exit_code == 0
    seen = tmp_path / "paged.txt"
    pager = tmp_path / "pager.sh"
    pager.write_text(f'#!/bin/sh\necho "LESS=$LESS" > "{seen}"\ncat >> "{seen}"\n')
    pager.chmod(0o755)
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", "show", "long", "--plans-dir", str(plans_dir)],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.DEVNULL,
        env={
            **{key: value for key, value in os.environ.items() if key != "LESS"},
            **{"PAGER": str(pager), "LINES": "20", "COLUMNS": "80"},
        },
    )
    os.close(terminal)
    drawn = drain(controller).decode()
    assert process.wait(timeout=120) == 0

    if paged:
        text = seen.read_text()
        assert text.startswith("LESS=FRX\n")  # as git sets it, unless the person did
        assert "step 99" in text and "step 99" not in drawn
    else:
        assert not seen.exists() and "step 2" in drawn  # one screen: printed as it is


def test_a_query_asks_the_search_index_for_the_text(
    cli, plans_dir: Path, archive_dir: Path
) -> None:
    from clarity.state import DirState

    first = archived(cli, plans_dir, "memcached", "--json").json()
    index = DirState.for_plans_dir(plans_dir).root / "search.sqlite"
    assert index.exists()  # made by the query, in the state folder
    shelved = archive_dir / first["plans"][0]["path"]
    kept = shelved.read_bytes()
    shelved.write_bytes(b"# Cache layer\n")  # behind clarity's back: the index answers still
    try:
        again = archived(cli, plans_dir, "memcached", "--json").json()
    finally:
        shelved.write_bytes(kept)
    assert [plan["name"] for plan in again["plans"]] == ["cache.md"]  # no file was read
