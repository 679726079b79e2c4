"""`clarity search`: every plan, live or archived, found by its words, best first, from an
index that is a cache (read again only where a plan changed, made anew when damaged)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from clarity.search.index import SearchIndex
from clarity.search.query import terms
from clarity.state import DirState
from tests.builders.files import NOW_ISO, Plan, make_files

BODY = "\n\n## Context\n\nWhy we do it.\n\n## Steps\n\n1. One.\n2. Two.\n"
PLANS = {
    "cache-layer.md": Plan("# Cache layer COMPLETED" + BODY + "A read-through cache.\n", 20),
    "cache-layer-agent-a1.md": Plan("# Research\n\nRedis or memcached for the cache.\n", 20),
    "ledger-export.md": Plan("# Ledger export to CSV" + BODY + "Stream rows as CSV.\n", 3),
    "search-ui.md": Plan("# Search UI" + BODY + "The ui shows a cache hit rate.\n", 2),
    "見直し計画.md": Plan("# 検索の見直し" + BODY + "全文検索の索引を作る。\n", 4),
}


def search(cli, plans_dir: Path, *args: str) -> dict[str, Any]:
    result = cli("search", *args, "--plans-dir", str(plans_dir), "--json")
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = result.json()
    return document


def names(document: dict[str, Any]) -> list[str]:
    return [hit["name"] for hit in document["hits"]]


@pytest.fixture
def shelved(cli, plans_dir: Path) -> Path:
    """The plans, the completed one archived (with its sub-plan), then scanned."""
    make_files(plans_dir, PLANS)
    applied = cli("apply", "--rescan", "--yes", "--now", NOW_ISO, "--plans-dir", str(plans_dir))
    assert applied.exit_code == 0, applied.stderr
    return plans_dir


def test_it_finds_live_and_archived_plans_best_first(cli, shelved: Path) -> None:
    found = search(cli, shelved, "cache")

    assert names(found)[0] == "cache-layer.md"  # in its name and title: ranked first
    assert set(names(found)) == {"cache-layer.md", "search-ui.md"}
    archived, live = found["hits"]
    assert (archived["where"], archived["quarter"], archived["class"]) == (
        "archive",
        archived["path"].split("/")[-2],
        "archived",
    )
    assert archived["path"].startswith(str(shelved.parent / "plans-archive"))
    assert live["where"] == "live" and live["path"] == str(shelved / "search-ui.md")
    for hit in found["hits"]:  # the offsets mark the word in the snippet
        assert all(hit["snippet"][a:b].casefold() == "cache" for a, b in hit["matches"])
    assert found["indexed"] == {"live": 3, "archived": 1}


FRONTMATTER_PLAN = """---
name: Cache warmup
overview: Warm the cache before the morning traffic.
todos:
  - id: t1
    content: Schedule the warmup job
    status: completed
  - id: t2
    content: Measure the hit rate
    status: pending
---

# Cache warmup

A job that fills the cache at six.
"""


def test_a_frontmatter_is_searched_and_shown_as_its_words_not_its_yaml(
    cli, plans_dir: Path
) -> None:
    """Cursor keeps a plan's name, overview and todos in YAML: a hit's snippet showed
    `todos: - id: t1 content: ...`; it shows the words, and finds them."""
    make_files(plans_dir, {"warmup.md": Plan(FRONTMATTER_PLAN, 2)})
    [hit] = search(cli, plans_dir, "schedule")["hits"]
    assert "Schedule the warmup job" in hit["snippet"]
    assert not any(word in hit["snippet"] for word in ("todos:", "id:", "status:", "t1", "---"))
    assert hit["title"] == "Cache warmup"
    assert search(cli, plans_dir, "pending")["hits"] == []  # a todo's status is no word of it


def test_a_scan_tells_the_index_each_live_plans_class(cli, shelved: Path) -> None:
    # Indexed after the last scan (the apply's), so no scan classed it as it is now: the
    # search scans the folder for its index (issue 46: never "no scan since it changed").
    # That scan's moment is the wall clock's, so only that a class is said is asserted.
    before = search(cli, shelved, "ledger")["hits"][0]
    assert before["class"] in ("active", "dormant")

    cli("scan", "--plans-dir", str(shelved), "--now", NOW_ISO)

    after = search(cli, shelved, "ledger")["hits"][0]
    assert (after["class"], after["reason"]) == (
        "active",
        "in progress: 3.0 days old, dormant after 14",
    )


def test_every_word_must_be_there_and_short_words_and_cjk_are_found(cli, shelved: Path) -> None:
    assert names(search(cli, shelved, "ledger", "csv")) == ["ledger-export.md"]
    assert names(search(cli, shelved, "ledger", "redis")) == []
    assert names(search(cli, shelved, "ui")) == ["search-ui.md"]  # a whole word
    assert set(names(search(cli, shelved, "cach"))) == {"cache-layer.md", "search-ui.md"}
    assert names(search(cli, shelved, "索引")) == ["見直し計画.md"]  # inside a run of CJK
    assert names(search(cli, shelved, "検索")) == ["見直し計画.md"]  # two characters
    assert names(search(cli, shelved, "全文検索")) == ["見直し計画.md"]
    assert names(search(cli, shelved, "MEMCACHED")) == ["cache-layer.md"]  # its sub-plan's


@pytest.mark.parametrize(
    "query", ["cache*", "NEAR(a b)", "a AND", "100%", "x'y", "^cache", "col:cache", "C++"]
)
def test_no_query_is_a_syntax_error(cli, shelved: Path, query: str) -> None:
    result = cli("search", query, "--plans-dir", str(shelved), "--json")
    assert result.exit_code == 0, result.stderr
    assert isinstance(result.json()["hits"], list)


@pytest.mark.parametrize("query", ['"', "_", "(", "- -", "-cache"])
def test_a_query_with_no_word_to_find_is_one_line(cli, shelved: Path, query: str) -> None:
    # Issue 36, item 7: `(` matched every plan up to the limit; `-cache` alone has nothing
    # to find, only something to leave out.
    result = cli("search", "--plans-dir", str(shelved), "--", query)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "nothing to search for" in result.stderr


def test_a_word_led_by_a_dash_leaves_out_the_plans_that_hold_it(cli, shelved: Path) -> None:
    both = set(names(search(cli, shelved, "cach")))
    assert both == {"cache-layer.md", "search-ui.md"}
    result = cli("search", "--plans-dir", str(shelved), "--json", "--", "cach", "-memcached")
    assert result.exit_code == 0, result.stderr
    assert names(result.json()) == ["search-ui.md"]  # cache-layer's sub-plan says memcached


def test_c_plus_plus_is_the_word_c_not_every_word_that_begins_with_c(cli, shelved: Path) -> None:
    assert names(search(cli, shelved, "C++")) == []  # no plan here has the word c
    assert set(names(search(cli, shelved, "c"))) >= {"cache-layer.md"}  # a prefix


def test_repeated_and_too_many_words_and_bytes_that_are_not_text(cli, shelved: Path) -> None:
    # Issue 36, H5: 400 times `a` took 127 s holding the index's lock.
    assert names(search(cli, shelved, *["cache"] * 400)) == names(search(cli, shelved, "cache"))
    many = cli("search", *[f"w{i}" for i in range(40)], "--plans-dir", str(shelved))
    assert many.exit_code == 2 and "40 different words is more than a search takes" in many.stderr
    long = cli("search", "x" * 10_000, "--plans-dir", str(shelved))
    assert long.exit_code == 2 and "longer than a search takes" in long.stderr
    raw = cli("search", b"caf\xe9".decode("utf-8", "surrogateescape"), "--plans-dir", str(shelved))
    assert raw.exit_code == 2 and "not text (not UTF-8)" in raw.stderr
    assert raw.stderr.count("\n") == 1


def test_filters(cli, shelved: Path) -> None:
    assert names(search(cli, shelved, "cache", "--class", "archived")) == ["cache-layer.md"]
    assert names(search(cli, shelved, "steps", "--limit", "1")) != []
    assert len(search(cli, shelved, "steps", "--limit", "1")["hits"]) == 1
    recent = search(cli, shelved, "steps", "--since", "2026-11-16")
    assert set(names(recent)) == {"ledger-export.md", "search-ui.md", "見直し計画.md"}
    bad = cli("search", "x", "--since", "last week", "--plans-dir", str(shelved))
    assert bad.exit_code == 2 and "--since 'last week' is not a date" in bad.stderr


def test_only_what_changed_is_read_again(plans_dir: Path, isolated_home: Path) -> None:
    make_files(plans_dir, PLANS)
    state = DirState.for_plans_dir(plans_dir)
    archive = plans_dir.parent / "plans-archive"
    with SearchIndex.open(state) as index:
        assert index.refresh(plans_dir, archive) == len(PLANS)
        assert index.refresh(plans_dir, archive) == 0
        make_files(plans_dir, {"ledger-export.md": Plan("# Ledger export, now to XLSX\n", 1)})
        (plans_dir / "search-ui.md").unlink()
        assert index.refresh(plans_dir, archive) == 1
        found = index.search(terms("ledger"), plans_dir, archive)
        assert [hit.title for hit in found] == ["Ledger export, now to XLSX"]
        assert index.search(terms("search ui"), plans_dir, archive) == []


@pytest.mark.parametrize(
    "damage", [b"not a database at all", b"", b"SQLite format 3\x00" + b"x" * 500]
)
def test_a_damaged_index_is_made_anew(cli, shelved: Path, damage: bytes) -> None:
    search(cli, shelved, "cache")
    index = DirState.for_plans_dir(shelved).root / "search.sqlite"
    for extra in ("-wal", "-shm"):
        Path(f"{index}{extra}").unlink(missing_ok=True)
    index.write_bytes(damage)

    assert set(names(search(cli, shelved, "cache"))) == {"cache-layer.md", "search-ui.md"}


def test_the_terminal_shows_where_each_plan_lives(cli, shelved: Path) -> None:
    result = cli("search", "cache", "--plans-dir", str(shelved))

    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("2 plans match 'cache' (3 live and 1 archived plan indexed)")
    assert "cache-layer.md  archive 2026-Q4 · archived" in result.stdout
    markdown = cli("search", "cache", "--plans-dir", str(shelved), "--format", "markdown")
    assert "**cache**" in markdown.stdout.casefold()
    nothing = cli("search", "zebra", "--plans-dir", str(shelved))
    assert nothing.exit_code == 0 and "nothing matches 'zebra'" in nothing.stderr
    assert nothing.stdout == ""  # said once (issue 36, item 12), not "0 plans match" too


def test_the_index_is_in_the_state_folder_only(cli, shelved: Path) -> None:
    before = sorted(p.name for p in shelved.parent.rglob("*"))
    search(cli, shelved, "cache")
    assert sorted(p.name for p in shelved.parent.rglob("*")) == before
    assert json.loads(json.dumps(search(cli, shelved, "cache")))  # JSON all the way


def test_a_name_that_is_not_utf8_is_found_and_given_back_exactly(cli, plans_dir: Path) -> None:
    plans_dir.mkdir(parents=True, exist_ok=True)
    odd = plans_dir / os.fsdecode(b"caf\xe9-cache.md")  # Latin-1 bytes in the name
    odd.write_bytes(b"# Cache plan \xff\n\nA read-through cache.\n")
    search(cli, plans_dir, "cache")  # the index first: the scan then records its class
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    [hit] = search(cli, plans_dir, "cache")["hits"]

    assert hit["path"] == str(odd)  # the exact bytes, through JSON's surrogate escapes
    assert hit["name"] == "caf\ufffd-cache.md" and hit["class"] == "active"


def test_a_plans_dir_that_is_not_there_is_said_not_searched(cli, tmp_path: Path) -> None:
    result = cli("search", "cache", "--plans-dir", str(tmp_path / "typo"))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"clarity: error: plans directory {tmp_path / 'typo'} does not exist (from option "
        "--plans-dir); point --plans-dir or CLARITY_PLANS_DIR at your plans"
    ]


def test_searches_at_once_each_find_everything(plans_dir: Path) -> None:
    import subprocess
    import sys

    make_files(
        plans_dir,
        {f"plan-{n:04d}.md": Plan(f"# Plan {n} about the cache\n", 5) for n in range(1500)},
    )
    command = [sys.executable, "-m", "clarity", "search", "cache", "--json", "--limit", "2000"]
    running = [
        subprocess.Popen(
            [*command, "--plans-dir", str(plans_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    said = [process.communicate(timeout=120) for process in running]

    assert [process.returncode for process in running] == [0, 0, 0], said
    for out, _ in said:
        assert len(json.loads(out)["hits"]) == 1500


def test_a_word_that_begins_with_a_dash_is_shown_how_to_give(cli, shelved: Path) -> None:
    result = cli("search", "-flag", "--plans-dir", str(shelved))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "clarity search -- -flag" in result.stderr
    assert "clarity search -- WORD -flag" in result.stderr


@pytest.mark.parametrize(
    "column, value", [("mtime", "'not a moment'"), ("title", "x'01'"), ("quarter", "x'00'")]
)
def test_index_rows_of_the_wrong_kind_are_made_anew(
    cli, shelved: Path, column: str, value: str
) -> None:
    # Issue 36, H5: a row another program wrote gave "internal error" at every search.
    import sqlite3

    search(cli, shelved, "cache")
    index = DirState.for_plans_dir(shelved).root / "search.sqlite"
    with sqlite3.connect(index) as db:
        db.execute(f"UPDATE docs SET {column} = {value}")
    assert set(names(search(cli, shelved, "cache"))) == {"cache-layer.md", "search-ui.md"}


def test_a_same_size_edit_with_its_mtime_put_back_is_found_by_its_new_words(
    cli, shelved: Path
) -> None:
    plan = shelved / "search-ui.md"
    search(cli, shelved, "ui")
    before = plan.stat()
    plan.write_text(plan.read_text().replace("hit rate", "hot spot"))  # same size
    os.utime(plan, ns=(before.st_atime_ns, before.st_mtime_ns))  # cp -p, rsync -t
    assert plan.stat().st_size == before.st_size
    assert names(search(cli, shelved, "spot")) == ["search-ui.md"]


def test_archived_query_reads_the_files_while_another_clarity_holds_the_index(
    cli, shelved: Path
) -> None:
    # Issue 36, H5: it waited 60 s in silence on the index; the files say the same.
    from filelock import FileLock

    index = DirState.for_plans_dir(shelved).root / "search.sqlite"
    index.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{index}.lock"):
        listed = cli("archived", "read-through", "--plans-dir", str(shelved), "--json")
    assert listed.exit_code == 0, listed.stderr
    assert [plan["name"] for plan in listed.json()["plans"]] == ["cache-layer.md"]


def test_the_weekly_run_records_its_verdicts_for_search(cli, shelved: Path, monkeypatch) -> None:
    # Issue 36, item 5: after `CLARITY_DORMANT_DAYS=3 clarity apply --rescan --yes`, search
    # still gave the reasons of the last plain scan.
    search(cli, shelved, "steps")  # the index is made
    assert cli("scan", "--now", NOW_ISO, "--plans-dir", str(shelved)).exit_code == 0
    before = {hit["name"]: hit for hit in search(cli, shelved, "steps")["hits"]}
    assert before["見直し計画.md"]["class"] == "active"  # 4 days old, dormant after 14
    monkeypatch.setenv("CLARITY_DORMANT_DAYS", "3")
    ran = cli("apply", "--rescan", "--yes", "--now", NOW_ISO, "--plans-dir", str(shelved))
    assert ran.exit_code == 0, ran.stderr
    after = {hit["name"]: hit for hit in search(cli, shelved, "steps")["hits"]}
    assert after["見直し計画.md"]["class"] == "dormant"
    assert (
        "dormant after 3" in after["見直し計画.md"]["reason"]
        or "> 3" in (after["見直し計画.md"]["reason"])
    )


def test_a_long_lived_reader_sees_an_index_made_anew_and_a_plan_added(plans_dir: Path) -> None:
    # the MCP server's way: its connection kept, a refresh reused while nothing changed
    import os as _os

    from clarity.model import SearchRequest
    from clarity.search.where import index_file
    from clarity.settings.config import load_settings
    from clarity.workflows.searching import search_plans

    make_files(plans_dir, {"first.md": Plan("# First plan\n\nalphaword here\n", 3)})
    settings = load_settings({"plans_dir": str(plans_dir)}, _os.environ, Path.cwd())

    def names(word: str) -> list[str]:
        found = search_plans(settings, SearchRequest(word), reuse_within=60.0)
        return [hit.name for hit in found.hits]

    assert names("alphaword") == ["first.md"]
    index = index_file(DirState.for_plans_dir(plans_dir))
    index.unlink()  # another clarity found it damaged and removed it
    make_files(plans_dir, {"second.md": Plan("# Second plan\n\nbetaword here\n", 2)})
    assert names("betaword") == ["second.md"]
    assert names("alphaword") == ["first.md"]


def test_after_an_undo_search_still_says_each_plans_class(cli, shelved: Path) -> None:
    """Issue 46: undo gives the plans it puts back new ctimes; search says their class, not
    "no scan since it changed"."""
    search(cli, shelved, "cache")
    assert cli("undo", "--yes", "--plans-dir", str(shelved)).exit_code == 0
    hits = search(cli, shelved, "cache")["hits"]
    live = [hit for hit in hits if hit["where"] == "live"]
    assert {hit["name"] for hit in live} >= {"cache-layer.md"}
    assert all(hit["class"] is not None for hit in live), live


ALIAS_BOMB = (
    "---\na: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
    + "".join(
        f"{this}: &{this} [{', '.join([f'*{last}'] * 10)}]\n"
        for last, this in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\n\n# Alias bomb\n\nA plan whose frontmatter unfolds to a billion numbers.\n"
)


def test_a_frontmatter_that_unfolds_to_a_billion_values_is_indexed_at_once(
    plans_dir: Path,
) -> None:
    """A hostile frontmatter: YAML aliases make nine lines a tree of a billion numbers;
    the walk for its words went through all of them, and the search never answered."""
    from tests.builders.processes import run_process

    make_files(plans_dir, {"bomb.md": Plan(ALIAS_BOMB, 2)})
    found = run_process("search", "unfolds", "--json", "--plans-dir", str(plans_dir))
    assert found.exit_code == 0, found.stderr
    assert [hit["name"] for hit in json.loads(found.stdout)["hits"]] == ["bomb.md"]


_HOLD_THE_INDEX = """
import sys
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_server_answers_while_another_holds_the_index_and_refreshes_behind(
    plans_dir: Path, monkeypatch
) -> None:
    """Issue 45: every call after two seconds paid a refresh (a stat of every plan) under
    the index's lock, the stalls of search_plans' 95th percentile. A server's call answers
    from the connection it kept; an old refresh is done again behind it, and an edit in
    place is found once that refresh is done."""
    import subprocess
    import sys
    import time

    import clarity.search
    from clarity import behind
    from clarity.model import SearchRequest
    from clarity.search.where import index_file

    monkeypatch.setattr(clarity.search, "BEHIND_WAIT", 0.3)  # then it gives up, till the next
    from clarity.settings.config import load_settings
    from clarity.workflows.searching import search_plans

    make_files(plans_dir, {"first.md": Plan("# First plan\n\nalphaword here\n", 3)})
    settings = load_settings({"plans_dir": str(plans_dir)}, os.environ, Path.cwd())

    def names(word: str) -> list[str]:
        found = search_plans(settings, SearchRequest(word), reuse_within=0.01)
        return [hit.name for hit in found.hits]

    def done(key: tuple[object, ...]) -> None:
        for _ in range(3000):  # a hang guard: work behind is done in well under a second
            if not behind.running(key):
                return
            time.sleep(0.01)
        raise AssertionError(f"{key} still running")

    assert names("alphaword") == ["first.md"]  # the first call refreshes, and keeps its connection
    done(("classes", settings.plans_dir))  # the plan unclassed: scanned behind that call
    plan = plans_dir / "first.md"
    with plan.open("r+", encoding="utf-8") as edited:  # in place: the folder does not change
        edited.write("# First plan\n\ngammaword here\n")
    index = index_file(DirState.for_plans_dir(plans_dir))
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_THE_INDEX, f"{index}.lock"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        time.sleep(0.05)  # the last refresh is older than reuse_within
        assert names("alphaword") == ["first.md"]  # answered while the lock is held
        assert names("gammaword") == []  # the refresh behind waits on the lock
        done(("search", settings.plans_dir, settings.archive_dir))  # and gave up on it
        assert names("alphaword") == ["first.md"]  # answered still, not waited on the lock
        assert holder.poll() is None  # still holding it: the calls did not wait on it
    finally:
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.close()
        holder.wait(timeout=60)
        assert holder.stdout is not None
        holder.stdout.close()
    done(("search", settings.plans_dir, settings.archive_dir))  # once the lock is free
    assert names("gammaword") == ["first.md"]
    assert names("alphaword") == []


def test_a_kept_text_that_is_the_plans_own_is_indexed_once(cli, plans_dir: Path) -> None:
    """Issue 45: most kept texts are the live plan's own (the first apply keeps every live
    text), and each was indexed twice. Such a text's words are indexed once, with its
    plan's; a search of the kept texts alone (MCP's where: kept) still finds it by them,
    and once the plan changes, its earlier text is found by words only it holds."""
    from clarity.model import Place, SearchRequest
    from clarity.settings.config import load_settings
    from clarity.workflows.searching import search_plans

    make_files(plans_dir, {"ledger.md": Plan("# Ledger" + BODY + "Export it to CSV.\n", 3)})
    applied = cli("apply", "--rescan", "--yes", "--now", NOW_ISO, "--plans-dir", str(plans_dir))
    assert applied.exit_code == 0, applied.stderr
    history = cli("history", "ledger", "--json", "--plans-dir", str(plans_dir)).json()
    assert len(history["versions"]) == 1  # kept: the plan's text as it is
    settings = load_settings({"plans_dir": str(plans_dir)}, os.environ, Path.cwd())

    def kept_only(word: str) -> list[tuple[str, str]]:
        found = search_plans(settings, SearchRequest(word, place=Place.KEPT))
        return [(hit.name, hit.place) for hit in found.hits]

    def texts_indexed() -> int:
        with SearchIndex.open(DirState.for_plans_dir(plans_dir)) as index:
            return int(index.db.execute("SELECT count(*) FROM text").fetchone()[0])

    assert [(h["name"], h["where"]) for h in search(cli, plans_dir, "CSV")["hits"]] == [
        ("ledger.md", "live")
    ]
    assert texts_indexed() == 1  # the live text's words, once
    assert kept_only("CSV") == [("ledger.md", "kept")]
    plan = plans_dir / "ledger.md"
    with plan.open("r+", encoding="utf-8") as edited:  # in place, the same size
        edited.write(plan.read_text(encoding="utf-8").replace("CSV", "XML"))
    hits = search(cli, plans_dir, "CSV")["hits"]
    assert [(h["name"], h["where"]) for h in hits] == [("ledger.md", "kept")]
    assert texts_indexed() == 2
    assert kept_only("CSV") == [("ledger.md", "kept")]
    assert kept_only("XML") == []
    assert [(h["name"], h["where"]) for h in search(cli, plans_dir, "XML")["hits"]] == [
        ("ledger.md", "live")
    ]


def test_a_servers_index_damaged_in_place_is_made_anew_without_an_error(plans_dir: Path) -> None:
    """A server asks its kept connection without the index's lock; one that finds the
    index damaged leaves it to an attempt under the lock, which removes it, and one more
    makes it anew: the call answers (a hostile trial had it say "cannot be used" once:
    damage that the checks made on opening do not reach, found by the search itself)."""
    import sqlite3
    import time

    from clarity.model import SearchRequest
    from clarity.search.where import index_file
    from clarity.settings.config import load_settings
    from clarity.workflows.searching import search_plans

    plans = {f"plan-{n:02d}.md": Plan(f"# Plan {n}\n\nalphaword {BODY}\n", 3) for n in range(40)}
    make_files(plans_dir, plans)
    settings = load_settings({"plans_dir": str(plans_dir)}, os.environ, Path.cwd())

    def names(word: str) -> list[str]:
        found = search_plans(settings, SearchRequest(word, limit=100), reuse_within=0.01)
        return sorted(hit.name for hit in found.hits)

    assert names("alphaword") == sorted(plans)
    time.sleep(0.05)  # the refresh is old: the next call reads the kept connection
    index = index_file(DirState.for_plans_dir(plans_dir))
    with contextlib.closing(sqlite3.connect(index)) as db:
        root = db.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'text_content'")
        (page,) = root.fetchone()
        (size,) = db.execute("PRAGMA page_size").fetchone()
    with index.open("r+b") as damaged:  # in place: the texts' table (the snippets read it)
        damaged.seek((page - 1) * size)
        damaged.write(bytes(size))
        damaged.seek(24)
        damaged.write(b"\xff\xff\xff\xff")  # the change counter: other readers see it
    assert names("alphaword") == sorted(plans)
