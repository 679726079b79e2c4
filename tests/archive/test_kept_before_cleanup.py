"""Issue 32, part 2: a plan that comes within keep_days of Claude Code's cleanup has its
text kept; once Claude Code has deleted it, `archived` lists it, `restore` brings it back
byte for byte with its mtime (active for dormant_days, undoable), and `search` finds it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.builders.files import Plan, make_files, quarters_of
from tests.builders.processes import killed

# A real plan (plan mode's sections), never marked done: dormant, reported, never archived.
TEXT = (
    "# Payments retry\n\n## Context\n\nRetries are lost when the queue restarts.\n\n"
    "## Steps\n\n1. Queue them with a backoff named zanzibar.\n2. Alert after five.\n"
)


def _cleanup_dir(home: Path) -> Path:
    return home / ".claude" / "plans"  # the folder Claude Code's cleanup empties


def _weekly(cli, plans_dir: Path):
    ran = cli("apply", "--rescan", "--yes", "--plans-dir", str(plans_dir))
    assert ran.exit_code == 0, ran.stderr
    return ran


def test_a_dormant_plan_deleted_by_claude_code_is_listed_restored_and_found(
    cli, isolated_home: Path
) -> None:
    plans_dir = _cleanup_dir(isolated_home)
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 25)}, now=datetime.now(UTC))
    mtime = (plans_dir / "payments.md").stat().st_mtime_ns

    ran = _weekly(cli, plans_dir)
    said = ran.stdout + ran.stderr
    assert "kept the text of 1 plan before Claude Code's cleanup deletes it" in said
    assert (plans_dir / "payments.md").read_text() == TEXT  # the live file stays
    (plans_dir / "payments.md").unlink()  # Claude Code's cleanup, five days later

    listed = cli("archived", *dirs, "--json").json()
    assert listed["plans"] == []
    (kept,) = listed["kept"]
    assert (kept["name"], kept["title"]) == ("payments.md", "Payments retry")
    assert kept["size"] == len(TEXT)
    table = cli("archived", *dirs)
    heading = "Gone from the plans dir near Claude Code's cleanup, their text kept by clarity"
    assert f"{heading} (1):" in table.stdout
    assert "payments.md" in table.stdout and "Payments retry" in table.stdout
    assert cli("archived", "zanzibar", *dirs, "--json").json()["kept"][0]["matched_in"] == ["text"]

    found = cli("search", "zanzibar", *dirs, "--json").json()
    assert [hit["name"] for hit in found["hits"]] == ["payments.md"]

    restored = cli("restore", "payments", "--yes", *dirs)
    assert restored.exit_code == 0, restored.stderr
    assert (plans_dir / "payments.md").read_bytes() == TEXT.encode()
    assert (plans_dir / "payments.md").stat().st_mtime_ns == mtime

    scanned = cli("scan", *dirs, "--json").json()
    (plan,) = scanned["plans"]
    assert plan["class"] == "active" and plan["reason"].startswith("restored by you on")

    assert cli("undo", "--yes", *dirs).exit_code == 0  # back where undo puts any restore
    assert not (plans_dir / "payments.md").exists()
    shelf = cli("archived", *dirs, "--json").json()
    assert [p["name"] for p in shelf["plans"]] == ["payments.md"]
    assert shelf["kept"] == []
    archived = Path(shelf["plans"][0]["path"])
    assert archived.read_bytes() == TEXT.encode() and archived.stat().st_mtime_ns == mtime


def test_a_plan_seen_a_week_before_is_marked_when_the_cleanup_comes_near(
    cli, isolated_home: Path
) -> None:
    # Kept first as "seen" (day 20), then, unchanged, within keep_days of the cleanup (day 27):
    # the text is kept once, and marked, so that archived lists it once Claude Code deletes it.
    plans_dir = _cleanup_dir(isolated_home)
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 20)}, now=datetime.now(UTC))
    _weekly(cli, plans_dir)
    versions = plans_dir.parent / "plans-archive" / "versions" / "payments"
    assert len(list(versions.glob("*.md"))) == 1
    week = 7 * 86400
    stamp = (plans_dir / "payments.md").stat()
    os.utime(plans_dir / "payments.md", (stamp.st_atime - week, stamp.st_mtime - week))
    _weekly(cli, plans_dir)
    assert len(list(versions.glob("*.md"))) == 1  # the same text, kept once
    (plans_dir / "payments.md").unlink()

    (kept,) = cli("archived", *dirs, "--json").json()["kept"]
    assert kept["name"] == "payments.md"
    assert cli("restore", "payments", "--yes", *dirs).exit_code == 0
    assert (plans_dir / "payments.md").stat().st_mtime == stamp.st_mtime - week


def test_a_plan_far_from_the_cleanup_or_trashed_by_clarity_is_not_listed_as_kept(
    cli, isolated_home: Path
) -> None:
    plans_dir = _cleanup_dir(isolated_home)
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"young.md": Plan(TEXT, 10)}, now=datetime.now(UTC))
    _weekly(cli, plans_dir)
    (plans_dir / "young.md").unlink()  # a person deleted it, far from the cleanup
    listed = cli("archived", *dirs, "--json").json()
    assert listed["kept"] == []
    gone = cli("restore", "young", "--yes", *dirs)
    assert gone.exit_code == 2 and "no archived plan named young" in gone.stderr


def test_search_finds_words_only_an_earlier_version_holds_and_says_which(
    cli, plans_dir: Path
) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 3)})
    _weekly(cli, plans_dir)
    (plans_dir / "payments.md").write_text(TEXT.replace("zanzibar", "mandolin"))
    _weekly(cli, plans_dir)

    earlier = cli("search", "zanzibar", *dirs, "--json").json()
    (hit,) = earlier["hits"]
    assert (hit["name"], hit["where"]) == ("payments.md", "kept")
    assert hit["reason"].startswith("version 1, kept ")
    assert Path(hit["path"]).read_text() == TEXT
    shown = cli("search", "zanzibar", *dirs)
    assert "kept text, version 1, kept" in shown.stdout
    now = cli("search", "mandolin", *dirs, "--json").json()
    assert [(h["name"], h["where"]) for h in now["hits"]] == [("payments.md", "live")]
    both = cli("search", "backoff", *dirs, "--json").json()  # in every text: the live plan
    assert [(h["name"], h["where"]) for h in both["hits"]] == [("payments.md", "live")]


def test_show_reads_a_live_plan_and_a_kept_one(cli, isolated_home: Path) -> None:
    plans_dir = _cleanup_dir(isolated_home)
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 25)}, now=datetime.now(UTC))
    live = cli("show", "payments", *dirs)
    assert live.exit_code == 0 and live.stdout == TEXT  # exact bytes when piped
    assert cli("show", "payments", *dirs, "--json").json()["where"] == "live"

    _weekly(cli, plans_dir)
    (plans_dir / "payments.md").unlink()  # Claude Code's cleanup
    kept = cli("show", "payments", *dirs)
    assert kept.exit_code == 0 and kept.stdout == TEXT
    assert cli("show", "payments", *dirs, "--json").json()["where"] == "kept"
    missing = cli("show", "nothing-here", *dirs)
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    assert "no live plan nothing-here.md" in missing.stderr


def _gone_and_kept(cli, home: Path) -> tuple[Path, tuple[str, ...], int]:
    plans_dir = _cleanup_dir(home)
    make_files(plans_dir, {"payments.md": Plan(TEXT, 25)}, now=datetime.now(UTC))
    mtime = (plans_dir / "payments.md").stat().st_mtime_ns
    _weekly(cli, plans_dir)
    (plans_dir / "payments.md").unlink()  # Claude Code's cleanup
    return plans_dir, ("--plans-dir", str(plans_dir)), mtime


@pytest.mark.parametrize("moment", ["after-shelve-copy", "after-restore"])
def test_a_restore_of_a_kept_plan_killed_midway_loses_nothing_and_a_rerun_finishes(
    cli, isolated_home: Path, moment: str
) -> None:
    plans_dir, dirs, mtime = _gone_and_kept(cli, isolated_home)
    versions = plans_dir.parent / "plans-archive" / "versions" / "payments"
    kept_before = {path.name: path.read_bytes() for path in versions.iterdir()}

    killed(moment, plans_dir, "restore", "payments", "--yes", *dirs)

    assert {path.name: path.read_bytes() for path in versions.iterdir()} == kept_before
    if not (plans_dir / "payments.md").exists():  # killed before the plan came back
        again = cli("restore", "payments", "--yes", *dirs)
        assert again.exit_code == 0, again.stderr
    assert (plans_dir / "payments.md").read_bytes() == TEXT.encode()
    assert (plans_dir / "payments.md").stat().st_mtime_ns == mtime
    _weekly(cli, plans_dir)  # settles what the kill left, and leaves the restored plan be
    assert (plans_dir / "payments.md").read_bytes() == TEXT.encode()
    listed = cli("archived", *dirs, "--json").json()  # nothing listed twice
    assert listed["kept"] == [] and listed["plans"] == []
    (quarter,) = quarters_of(plans_dir.parent / "plans-archive")
    assert list(quarter.iterdir()) == []  # no copy left behind by the kill
    plan = cli("scan", *dirs, "--json").json()["plans"][0]
    assert plan["reason"].startswith("restored by you on"), plan["reason"]


def test_a_restore_near_the_cleanup_says_how_many_days_are_left(cli, isolated_home: Path) -> None:
    # The new user's walk: a kept plan of 28 days came back with no word that Claude Code
    # deletes it again in 2 days.
    plans_dir = _cleanup_dir(isolated_home)
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 27.5)}, now=datetime.now(UTC))
    _weekly(cli, plans_dir)
    (plans_dir / "payments.md").unlink()
    restored = cli("restore", "payments", "--yes", *dirs)
    assert restored.exit_code == 0, restored.stderr
    said = " ".join((restored.stdout + restored.stderr).split())
    assert "warning: payments.md is 28 days old" in said and "it goes in 2 days" in said


def test_restore_of_a_live_plan_with_kept_texts_names_the_real_reason(
    cli, isolated_home: Path
) -> None:
    # Issue 42, case 10: a live plan whose text was kept was refused with "no archived
    # plan named payments": the right refusal, with the wrong reason.
    plans_dir = _cleanup_dir(isolated_home)
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 25)}, now=datetime.now(UTC))
    _weekly(cli, plans_dir)  # near the cleanup: its text kept, the plan left where it is
    refused = cli("restore", "payments", "--yes", *dirs)
    assert refused.exit_code == 2
    (line,) = refused.stderr.splitlines()
    assert "payments.md is in" in line and "nothing to restore" in line
    assert "clarity history payments" in line and "no archived plan" not in line
    assert [p.name for p in plans_dir.iterdir()] == ["payments.md"]
