"""`clarity restore NAME`: an archived plan put back, exactly, journaled and undoable; it then
stays active for dormant_days instead of being archived again by the next apply."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.builders.corpus import leftovers
from tests.builders.files import NOW_ISO, Plan, contents, make_files, quarters_of, snapshot
from tests.builders.processes import killed, run_process

PLANS = {
    "cache.md": Plan("# Cache layer COMPLETED\n\nOne interface for the cache.\n" + "x" * 3000, 30),
    "cache-agent-a1.md": Plan("# Research for the cache\n\nRedis or Memcached.\n", 30),
    "cache-agent-a1-agent-b2.md": Plan("# Nested research\n", 30),
    "other.md": Plan("# Other work COMPLETED\n\nShipped.\n" + "y" * 3000, 25),
}
GROUP = ("cache.md", "cache-agent-a1.md", "cache-agent-a1-agent-b2.md")


def index_of(plans_dir: Path) -> list[dict[str, Any]]:
    path = plans_dir.parent / "plans-archive" / "index.jsonl"
    if not path.exists():  # an undo that emptied the archive leaves no index of nothing
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def index_md(plans_dir: Path) -> str:
    return (plans_dir.parent / "plans-archive" / "INDEX.md").read_text()


@pytest.fixture
def shelved(cli, plans_dir: Path) -> dict[str, tuple[bytes | str, int]]:
    """The plans laid out and all archived by hand; what the plans dir held before."""
    make_files(plans_dir, PLANS)
    before = snapshot(plans_dir)
    result = cli(
        "archive", "--yes", "cache", "other", "--plans-dir", str(plans_dir), "--now", NOW_ISO
    )
    assert result.exit_code == 0, result.stderr
    assert list(plans_dir.iterdir()) == []
    return before


def restore(cli, plans_dir: Path, name: str, *args: str):
    return cli("restore", name, "--plans-dir", str(plans_dir), "--yes", *args)


def later(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def test_restore_puts_the_group_back_exactly_and_takes_it_out_of_the_index(
    cli, plans_dir: Path, shelved, isolated_home: Path
) -> None:
    record = next(r for r in index_of(plans_dir) if r["name"] == "cache.md")

    result = restore(cli, plans_dir, "cache", "--json")

    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert {(r["name"], r["action"], r["status"]) for r in document["results"]} == {
        (name, "restore", "done") for name in GROUP
    }
    assert document["results"][0]["name"] == "cache.md"  # the plan first
    assert snapshot(plans_dir) == {k: v for k, v in shelved.items() if k in GROUP}  # bytes, mtime
    assert [r["name"] for r in index_of(plans_dir)] == ["other.md"]
    assert "Cache layer" not in index_md(plans_dir) and "Other work" in index_md(plans_dir)
    journal = isolated_home / ".local" / "state" / "clarity" / "dirs"
    lines = [
        json.loads(x)
        for x in next(journal.glob("*/runs/*-restore.jsonl")).read_bytes().split(b"\n")
        if x
    ]
    assert lines[0]["op"] == "begin" and lines[0]["kind"] == "restore"
    assert lines[1]["op"] == "intent" and lines[1]["record"] == record  # for undo
    assert [line["op"] for line in lines].count("done") == 3 and lines[-1]["op"] == "end"


def test_undo_puts_a_restored_plan_back_in_the_archive_and_the_index(
    cli, plans_dir: Path, shelved
) -> None:
    archive = plans_dir.parent / "plans-archive"
    index_before, md_before = index_of(plans_dir), index_md(plans_dir)
    archived = snapshot(archive / "2026-Q4")
    assert restore(cli, plans_dir, "cache.md").exit_code == 0

    undone = cli("undo", "--plans-dir", str(plans_dir), "--yes", "--json")

    assert undone.exit_code == 0, undone.stderr
    assert {(r["name"], r["action"]) for r in undone.json()["results"]} == {
        (name, "archive") for name in GROUP
    }
    assert list(plans_dir.iterdir()) == []
    assert snapshot(archive / "2026-Q4") == archived
    assert sorted(map(json.dumps, index_of(plans_dir))) == sorted(map(json.dumps, index_before))
    assert index_md(plans_dir).count("Cache layer") == md_before.count("Cache layer") == 1

    # The next undo steps back through the hand archive before it: everything comes back.
    assert cli("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert snapshot(plans_dir) == shelved
    assert index_of(plans_dir) == []


def test_a_restored_plan_stays_active_for_dormant_days_then_is_archived_again(
    cli, plans_dir: Path, shelved
) -> None:
    scan = cli("scan", "--plans-dir", str(plans_dir), "--json")  # the facts cache learns nothing
    assert scan.json()["plans"] == []
    assert restore(cli, plans_dir, "cache").exit_code == 0
    today = datetime.now().astimezone().date().isoformat()

    for days in (0, 13):
        report = cli("scan", "--plans-dir", str(plans_dir), "--now", later(days), "--json")
        plans = {plan["name"]: plan for plan in report.json()["plans"]}
        assert plans["cache.md"]["class"] == "active"
        assert plans["cache.md"]["reason"] == f"restored by you on {today}"
        assert plans["cache.md"]["decided_by"] == "restored from the archive"
        assert {plans[name]["class"] for name in GROUP} == {"active"}
        applied = cli("apply", "--plans-dir", str(plans_dir), "--rescan", "--yes", "--json")
        assert applied.json()["results"] == []
        assert sorted(p.name for p in plans_dir.iterdir()) == sorted(GROUP)

    report = cli("scan", "--plans-dir", str(plans_dir), "--now", later(15), "--json")
    plans = {plan["name"]: plan for plan in report.json()["plans"]}
    assert (plans["cache.md"]["class"], plans["cache.md"]["reason"]) == (
        "completed",
        'H1 marker "COMPLETED"',
    )
    args = ("--plans-dir", str(plans_dir), "--now", later(15), "--rescan", "--yes")
    applied = cli("apply", *args)
    assert applied.exit_code == 0, applied.stderr
    assert list(plans_dir.iterdir()) == []
    assert sorted(r["name"] for r in index_of(plans_dir)) == ["cache.md", "other.md"]  # once


def test_an_apply_of_a_scan_from_before_the_restore_leaves_the_plan(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    assert cli("archive", "--yes", "cache", "--plans-dir", str(plans_dir)).exit_code == 0
    assert restore(cli, plans_dir, "cache").exit_code == 0

    applied = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")

    results = {r["name"]: r for r in applied.json()["results"]}
    assert results["other.md"]["status"] == "done"
    assert results["cache.md"]["status"] == "skipped"
    assert results["cache.md"]["reason"].startswith("restored by you on ")
    assert sorted(p.name for p in plans_dir.iterdir()) == sorted(GROUP)


def test_a_person_may_archive_a_restored_plan_again(cli, plans_dir: Path, shelved) -> None:
    assert restore(cli, plans_dir, "cache").exit_code == 0
    again = cli("archive", "--yes", "cache", "--plans-dir", str(plans_dir))
    assert again.exit_code == 0, again.stderr
    assert list(plans_dir.iterdir()) == []


def test_restore_never_replaces_a_plan_of_the_same_name(cli, plans_dir: Path, shelved) -> None:
    make_files(plans_dir, {"cache-agent-a1.md": "a new plan that took the name\n"})
    archive_before = snapshot(plans_dir.parent / "plans-archive")

    result = restore(cli, plans_dir, "cache")

    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert f"a plan named cache-agent-a1.md is in {plans_dir} already" in result.stderr
    assert (plans_dir / "cache-agent-a1.md").read_text() == "a new plan that took the name\n"
    assert sorted(p.name for p in plans_dir.iterdir()) == ["cache-agent-a1.md"]
    assert snapshot(plans_dir.parent / "plans-archive") == archive_before


def test_restore_refuses_bytes_that_are_not_the_ones_archived(
    cli, plans_dir: Path, shelved
) -> None:
    archived = plans_dir.parent / "plans-archive" / "2026-Q4" / "cache.md"
    archived.write_bytes(archived.read_bytes().replace(b"One", b"Two"))

    result = restore(cli, plans_dir, "cache")

    assert result.exit_code == 2
    assert "is not the file that was archived" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert list(plans_dir.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("cache-agent-a1", "cache-agent-a1.md is a sub-plan of cache.md; restore 2026-Q4/cache.md"),
        ("nosuch", "no archived plan named nosuch in"),
    ],
)
def test_a_name_that_cannot_be_restored_is_one_line(
    cli, plans_dir: Path, shelved, name: str, message: str
) -> None:
    result = restore(cli, plans_dir, name)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_without_a_terminal_and_without_yes_restore_refuses(plans_dir: Path, shelved) -> None:
    archive = plans_dir.parent / "plans-archive"
    result = run_process(
        "restore", "cache", "--plans-dir", str(plans_dir), "--archive-dir", str(archive)
    )
    assert result.exit_code == 2
    assert "clarity restore asks before it moves anything" in result.stderr
    assert "run the same command again with --yes" in result.stderr
    assert list(plans_dir.iterdir()) == []
    # a name that is not in the archive is the real problem: said first
    typo = run_process(
        "restore", "nosuch", "--plans-dir", str(plans_dir), "--archive-dir", str(archive)
    )
    assert typo.exit_code == 2
    assert "asks before" not in typo.stderr


def test_the_hint_after_a_restore_repeats_the_directories(cli, plans_dir: Path, shelved) -> None:
    result = restore(cli, plans_dir, "cache")
    assert f"clarity undo --plans-dir {plans_dir} puts it back in the archive" in result.stderr
    assert "restored  cache.md ->" in result.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd")
@pytest.mark.parametrize(("moment", "back"), [("after-restore", True), ("after-announce", False)])
def test_a_killed_restore_is_finished_or_rolled_back_by_the_next_command(
    plans_dir: Path, isolated_home: Path, moment: str, back: bool
) -> None:
    make_files(plans_dir, PLANS)
    original = contents(plans_dir)
    assert (
        run_process("archive", "--yes", "cache", "other", "--plans-dir", str(plans_dir)).exit_code
        == 0
    )
    archive = plans_dir.parent / "plans-archive"
    killed(moment, plans_dir, "restore", "cache", "--plans-dir", str(plans_dir), "--yes")

    scan = run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert re.search(r"settled the restore of [\d-]+ [\d:]+, which was interrupted", scan.stderr)
    assert contents(plans_dir, archive / "2026-Q4") == original  # every byte, once
    assert leftovers(plans_dir.parent, isolated_home / ".local") == []
    names = [record["name"] for record in index_of(plans_dir)]
    if back:  # the plan had moved: its sub-plans followed, its record left the index
        assert sorted(p.name for p in plans_dir.iterdir()) == sorted(GROUP)
        assert names == ["other.md"]
    else:  # nothing had moved: nothing did
        assert list(plans_dir.iterdir()) == []
        assert sorted(names) == ["cache.md", "other.md"]
        assert (
            run_process("restore", "cache", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
        )
        assert sorted(p.name for p in plans_dir.iterdir()) == sorted(GROUP)
    undo = run_process("undo", "--plans-dir", str(plans_dir), "--yes")
    assert undo.exit_code == 0, undo.stderr
    assert list(plans_dir.iterdir()) == []
    assert sorted(r["name"] for r in index_of(plans_dir)) == ["cache.md", "other.md"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_in_a_terminal_restore_and_its_undo_show_what_they_will_do_and_ask(
    plans_dir: Path, shelved
) -> None:
    from tests.builders.processes import in_a_terminal

    declined = in_a_terminal(["restore", "cache", "--plans-dir", str(plans_dir)], b"n\n")
    assert declined.returncode == 0, declined.stderr
    assert f"clarity restore: put back into {plans_dir}" in declined.stdout
    assert "cache.md  from " in declined.stdout and "└ cache-agent-a1.md" in declined.stdout
    assert "It stays active for 14 days" in declined.stdout
    assert "nothing was restored" in declined.stdout
    assert list(plans_dir.iterdir()) == []

    agreed = in_a_terminal(["restore", "cache", "--plans-dir", str(plans_dir)], b"y\n")
    assert agreed.returncode == 0, agreed.stderr
    assert sorted(p.name for p in plans_dir.iterdir()) == sorted(GROUP)
    undo = in_a_terminal(["undo", "--plans-dir", str(plans_dir)], b"n\n")
    archive = plans_dir.parent / "plans-archive"
    assert re.search(
        rf"that the restore of [\d-]+ [\d:]+ moved, into {re.escape(str(archive))}", undo.stdout
    )
    assert f"cache.md  back into the archive at {archive / '2026-Q4' / 'cache.md'}" in undo.stdout


def test_a_restored_plan_edited_since_is_the_person_s_and_undo_looks_past_it(
    cli, plans_dir: Path, shelved
) -> None:
    assert restore(cli, plans_dir, "cache").exit_code == 0
    with (plans_dir / "cache.md").open("a") as stream:
        stream.write("\nPicking this up again.\n")

    undone = cli("undo", "--plans-dir", str(plans_dir), "--yes", "--json")

    assert undone.exit_code == 0, undone.stderr
    document = undone.json()
    assert re.match(
        r"cache.md changed since the restore of [\d-]+ [\d:]+ restored", document["notes"][0]
    )
    results = {r["name"]: r for r in document["results"]}  # the hand archive before it, undone
    assert results["other.md"]["status"] == "done"
    # what the restore took back is the restore's, not the archive run's to undo: not
    # "skipped ... left at <archive>" (it is not there), and never again on every undo
    assert "cache.md" not in results
    assert "Picking this up again." in (plans_dir / "cache.md").read_text()
    assert sorted(p.name for p in plans_dir.iterdir()) == sorted([*GROUP, "other.md"])
    again = cli("undo", "--plans-dir", str(plans_dir), "--yes", "--json").json()
    assert not any(r["status"] == "skipped" for r in again["results"])


def test_a_plan_moved_back_by_hand_and_archived_again_is_listed_once(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    assert cli("archive", "--yes", "other", "--plans-dir", str(plans_dir)).exit_code == 0
    archived = plans_dir.parent / "plans-archive" / "2026-Q4" / "other.md"
    archived.rename(plans_dir / "other.md")  # by hand, not with clarity restore

    assert cli("archive", "--yes", "other", "--plans-dir", str(plans_dir)).exit_code == 0

    assert [r["name"] for r in index_of(plans_dir)] == ["other.md"]
    assert index_md(plans_dir).count("Other work") == 1


def test_a_restore_past_claude_codes_cleanup_age_says_it_will_be_deleted(cli, isolated_home):
    plans_dir = isolated_home / ".claude" / "plans"  # the folder Claude Code's cleanup empties
    # 45 days before the real now (restore judges the age as of now, not as of NOW)
    old = {"old.md": Plan("# Old work COMPLETED\n\n" + "x" * 3000, 45)}
    make_files(plans_dir, old, now=datetime.now(UTC))
    archive = ("archive", "--yes", "old", "--plans-dir", str(plans_dir))
    assert cli(*archive).exit_code == 0

    result = restore(cli, plans_dir, "old")

    assert result.exit_code == 0, result.stderr
    said = result.stdout + result.stderr
    assert re.search(r"warning: old.md is 4\d days old, and Claude Code deletes plans older", said)
    assert f"clarity undo --plans-dir {plans_dir} puts it back in the archive" in said


def test_restore_and_show_reach_nothing_through_a_linked_quarter_folder(
    cli, plans_dir: Path, shelved, tmp_path: Path
) -> None:
    # Someone swaps the quarter folder for a link to a folder outside the archive that
    # holds the same files: restore would move them out of there, show would print them.
    archive = plans_dir.parent / "plans-archive"
    (quarter,) = quarters_of(archive)
    outside = tmp_path / "outside"
    quarter.rename(outside)
    quarter.symlink_to(outside)
    before = snapshot(outside)

    result = restore(cli, plans_dir, "cache")
    assert result.exit_code == 2
    assert "a link, and clarity follows no link in the archive" in result.stderr
    assert result.stderr.count("\n") == 1
    shown = cli("show", "cache", "--plans-dir", str(plans_dir))
    assert shown.exit_code == 2 and shown.stdout == ""
    assert "follows no link" in shown.stderr
    searched = cli("archived", "memcached", "--plans-dir", str(plans_dir), "--json")
    assert searched.json()["plans"] == []  # the sub-plan's words are read in no linked folder
    assert list(plans_dir.iterdir()) == []
    assert snapshot(outside) == before


def test_a_mistyped_name_is_answered_with_the_names_it_is_close_to(
    cli, plans_dir: Path, shelved
) -> None:
    result = restore(cli, plans_dir, "cach")
    assert result.exit_code == 2
    assert "no archived plan named cach (did you mean cache?)" in result.stderr


def test_the_protection_of_a_restore_goes_when_the_restore_is_undone(
    cli, plans_dir: Path, shelved
) -> None:
    # shelved: cache and other archived by hand. Restore cache, undo that restore, then
    # undo the hand archive: cache is back as it was, and is no longer "restored by you".
    assert restore(cli, plans_dir, "cache").exit_code == 0
    for _ in range(2):
        assert cli("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert snapshot(plans_dir) == shelved

    report = cli("scan", "--plans-dir", str(plans_dir), "--json")

    plans = {plan["name"]: plan for plan in report.json()["plans"]}
    assert plans["cache.md"]["decided_by"] != "restored from the archive"
    assert plans["cache.md"]["class"] == "completed"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_ctrl_c_or_the_end_of_input_at_the_question_cancels_in_one_line(
    plans_dir: Path, shelved
) -> None:
    # Issue 36, item 8: a literal \n, and "the move under way is finished or rolled back"
    # although nothing had started.
    import signal
    import subprocess

    from tests.builders.processes import in_a_terminal

    ended = in_a_terminal(["restore", "cache", "--plans-dir", str(plans_dir)], b"\x04")
    assert ended.returncode == 130
    assert ended.stderr.splitlines()[-1] == "clarity: cancelled; nothing was moved"
    assert "\\n" not in ended.stderr

    controller, terminal = os.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "clarity", "restore", "cache", "--plans-dir", str(plans_dir)],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None
        seen = b""
        while b"Go ahead?" not in seen:  # the question is asked: now the Ctrl-C
            chunk = os.read(process.stdout.fileno(), 4096)
            assert chunk, seen
            seen += chunk
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        os.close(terminal)
        os.close(controller)
    assert process.returncode == 130
    assert err.decode().splitlines()[-1] == "clarity: cancelled; nothing was moved"
    assert list(plans_dir.iterdir()) == []
