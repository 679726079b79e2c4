"""`clarity archive NAME...`: a person archives chosen plans, with apply's safety."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.builders.claude_home import plan_mode, write_transcript
from tests.builders.files import NOW_ISO, Plan, make_files, snapshot

SESSION = "6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b"
PLANS = {
    "search.md": Plan("# Search rewrite\n\nMove search to the new index.\n" + "x" * 3000, 30),
    "search-agent-b7.md": Plan("# Index research\n", 30),
    "notes.md": Plan("# Notes\n\n" + "y" * 3000, 25),
    "stub.md": Plan("# Quick idea\n", 10),
    "done.md": Plan("# Cache COMPLETED\n", 20),
    "today.md": Plan("# Working on it\n", 0),
}


def archive(cli, plans_dir: Path, *args: str):
    return cli("archive", *args, "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json", "--yes")


def test_archives_named_plans_with_their_sub_plans_and_undo_brings_them_back(cli, plans_dir: Path):
    make_files(plans_dir, PLANS)
    before = snapshot(plans_dir)

    result = archive(cli, plans_dir, "search", "stub.md", str(plans_dir / "notes.md"))

    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert document["counts"] == {"done": 4, "skipped": 0, "failed": 0}
    assert {r["name"] for r in document["results"]} == {
        "search.md",
        "search-agent-b7.md",
        "stub.md",  # stale, but a person may rather keep it than trash it
        "notes.md",
    }
    assert {r["action"] for r in document["results"]} == {"archive"}
    assert sorted(p.name for p in plans_dir.iterdir()) == ["done.md", "today.md"]
    archive_dir = plans_dir.parent / "plans-archive"
    records = [json.loads(line) for line in (archive_dir / "index.jsonl").read_text().splitlines()]
    assert sorted(r["name"] for r in records) == ["notes.md", "search.md", "stub.md"]
    search = next(r for r in records if r["name"] == "search.md")
    assert [sub["name"] for sub in search["subplans"]] == ["search-agent-b7.md"]
    assert document["run"].endswith("-archive.jsonl")

    undo = cli("undo", "--plans-dir", str(plans_dir), "--yes")
    assert undo.exit_code == 0, undo.stderr
    assert snapshot(plans_dir) == before
    assert not (archive_dir / "index.jsonl").exists()  # an index of nothing is no index


def test_a_hand_archive_leaves_the_reviewed_scan_for_apply(cli, plans_dir: Path):
    make_files(plans_dir, PLANS)
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    assert archive(cli, plans_dir, "notes.md").exit_code == 0

    applied = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")

    assert applied.exit_code == 0, applied.stderr
    done = {r["name"] for r in applied.json()["results"] if r["status"] == "done"}
    assert done == {"done.md", "stub.md"}  # the reviewed proposal, still whole


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["search-agent-b7"], "search-agent-b7.md is a sub-plan of search.md; archive search.md"),
        (["nosuch"], "no plan named nosuch.md in"),
        (["notes.md", "typo.md"], "no plan named typo.md in"),
        (["a", "notes", "b"], "no plan named a.md; no plan named b.md in"),  # every one
        (
            ["note", "serch"],
            "note.md (did you mean notes.md?); no plan named serch.md (did you mean",
        ),
        (["/elsewhere/notes.md"], "/elsewhere/notes.md is not in the plans directory"),
        ([" "], "an empty plan name was given"),
    ],
)
def test_a_bad_name_is_one_line_exit_2_and_nothing_moves(cli, plans_dir: Path, names, message):
    make_files(plans_dir, PLANS)
    before = snapshot(plans_dir)

    result = cli("archive", *names, "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert snapshot(plans_dir) == before
    assert not (plans_dir.parent / "plans-archive").exists()


def test_a_plan_a_live_session_uses_is_refused(cli, plans_dir: Path, isolated_home: Path):
    make_files(plans_dir, PLANS)
    write_transcript(
        isolated_home / ".claude", SESSION, [plan_mode(SESSION, plans_dir / "notes.md")]
    )

    result = cli("archive", "notes.md", "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    assert result.exit_code == 2
    assert (
        f"notes.md is in use by session {SESSION[:8]}; "
        "clarity never moves a plan a live session uses" in result.stderr
    )
    assert (plans_dir / "notes.md").exists()


def test_any_other_active_plan_is_the_persons_to_archive(cli, plans_dir: Path):
    pinned = Plan("---\npinned: true\n---\n# Roadmap\n" + "z" * 3000, 40)
    make_files(plans_dir, {**PLANS, "roadmap.md": pinned})

    result = archive(cli, plans_dir, "today.md", "roadmap")

    assert result.exit_code == 0, result.stderr
    assert {r["name"] for r in result.json()["results"]} == {"today.md", "roadmap.md"}
    assert not (plans_dir / "today.md").exists()


def test_without_a_terminal_it_asks_for_yes_once_the_names_are_good(cli, plans_dir: Path):
    make_files(plans_dir, PLANS)
    before = snapshot(plans_dir)
    args = ("--plans-dir", str(plans_dir), "--now", NOW_ISO)

    typo = cli("archive", "typo.md", *args)
    unasked = cli("archive", "notes.md", *args)

    assert "no plan named typo.md" in typo.stderr  # the real problem first
    assert unasked.exit_code == 2
    assert "clarity archive asks before it moves anything" in unasked.stderr
    assert snapshot(plans_dir) == before


def test_a_symlink_is_named_as_such(cli, plans_dir: Path, tmp_path: Path):
    make_files(plans_dir, PLANS)
    (plans_dir / "link.md").symlink_to(plans_dir / "notes.md")

    result = cli("archive", "link.md", "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    assert result.exit_code == 2
    assert "link.md: not archived: symlink: not followed" in result.stderr


def test_no_name_is_a_usage_error(cli, plans_dir: Path):
    result = cli("archive", "--plans-dir", str(plans_dir))
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


def test_archiving_a_plan_archived_already_says_so_and_how_to_put_it_back(cli, plans_dir: Path):
    # Issue 46: it said "no plan named alpha.md", as if the plan were nowhere.
    make_files(plans_dir, {"alpha.md": Plan("# Alpha\n\nsteps\n", 3)})
    assert archive(cli, plans_dir, "alpha").exit_code == 0
    again = archive(cli, plans_dir, "alpha")
    assert again.exit_code == 2
    assert re.search(r"alpha\.md is archived already \(\d{4}-Q\d/alpha\.md in ", again.stderr)
    assert "restore alpha" in again.stderr and "no plan named" not in again.stderr
    assert "no plan named nothere.md" in archive(cli, plans_dir, "nothere").stderr
