"""Files clarity did not write are never overwritten, and no link in the archive is
followed (issue 16, items 1, 4, 5 and 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot
from tests.builders.plans import PLANS


def scan(cli, plans_dir: Path, *args: str):
    return cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, *args)


def apply(cli, plans_dir: Path, *args: str):
    return cli("apply", "--plans-dir", str(plans_dir), "--yes", *args)


def archive_of(plans_dir: Path) -> Path:
    return plans_dir.parent / "plans-archive"


@pytest.mark.parametrize("command", ["scan", "apply", "archive"])
def test_an_archive_that_is_the_plans_dir_is_refused(cli, plans_dir: Path, command: str) -> None:
    make_files(plans_dir, {**PLANS, "INDEX.md": Plan("# my own index\n", 40)})
    before = snapshot(plans_dir)
    args = ["--plans-dir", str(plans_dir), "--archive-dir", str(plans_dir)]
    extra = {"scan": [], "apply": ["--yes", "--rescan"], "archive": ["done-a.md"]}[command]
    result = cli(command, *extra, *args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "is the plans dir itself" in result.stderr
    assert snapshot(plans_dir) == before


def test_a_plans_dir_inside_the_archive_is_refused(cli, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    plans = make_files(archive / "2026-Q4", {"a.md": Plan("# A COMPLETED\n", 20)})
    result = cli(
        "apply", "--yes", "--rescan", "--plans-dir", str(plans), "--archive-dir", str(archive)
    )
    assert result.exit_code == 2
    assert "is inside the archive" in result.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["a.md"]  # no a.2.md, a.2.2.md, ...


def test_a_users_own_index_files_in_the_archive_are_left_alone(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    archive = make_files(
        archive_of(plans_dir),
        {"INDEX.md": "# My archive notes\n", "index.jsonl": '{"my": "own data"}\n'},
    )
    scan(cli, plans_dir)
    result = apply(cli, plans_dir)
    assert result.exit_code == 1  # the plans moved; their index could not be written
    assert (archive / "INDEX.md").read_text() == "# My archive notes\n"
    assert (archive / "index.jsonl").read_text() == '{"my": "own data"}\n'
    assert (archive / "2026-Q4" / "done-a.md").is_file()
    assert "not clarity's" in result.stdout


def test_clarity_rewrites_its_own_index_md_but_not_one_edited_since(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"a.md": Plan("# A COMPLETED\n", 20), "b.md": Plan("# B\n", 1)})
    scan(cli, plans_dir)
    assert apply(cli, plans_dir).exit_code == 0
    index_md = archive_of(plans_dir) / "INDEX.md"
    assert "clarity-managed sha256:" in index_md.read_text()
    index_md.write_text(index_md.read_text().replace("# Plan archive", "# Our decisions"))
    edited = index_md.read_text()
    make_files(plans_dir, {"b.md": Plan("# B COMPLETED\n", 20)})
    scan(cli, plans_dir)
    result = apply(cli, plans_dir)
    # Issue 23 item 4: the person's edit is respected with one note, once, and exit 0
    # (it made every later apply, archive and undo exit 1, the weekly job failing for ever).
    assert result.exit_code == 0
    assert result.stdout.count("the archive's INDEX.md is yours now") == 1
    assert index_md.read_text() == edited
    records = (archive_of(plans_dir) / "index.jsonl").read_text().splitlines()
    assert [json.loads(line)["name"] for line in records] == ["a.md", "b.md"]
    make_files(plans_dir, {"c.md": Plan("# C COMPLETED\n", 20)})
    scan(cli, plans_dir)
    later = apply(cli, plans_dir)
    assert later.exit_code == 0 and "INDEX.md" not in later.stdout  # said once
    assert index_md.read_text() == edited
    assert "Edit it and clarity leaves it as you left it" in edited  # as its stamp says


def test_a_symlinked_index_is_never_written_through(cli, plans_dir: Path, tmp_path: Path) -> None:
    make_files(plans_dir, PLANS)
    elsewhere = make_files(tmp_path / "elsewhere", {"target.jsonl": "untouched\n"})
    archive = archive_of(plans_dir)
    archive.mkdir()
    (archive / "index.jsonl").symlink_to(elsewhere / "target.jsonl")
    scan(cli, plans_dir)
    result = apply(cli, plans_dir)
    assert result.exit_code == 1
    assert (elsewhere / "target.jsonl").read_text() == "untouched\n"
    assert "follows no link" in result.stdout


def test_a_symlinked_quarter_folder_receives_nothing(cli, plans_dir: Path, tmp_path: Path) -> None:
    make_files(plans_dir, PLANS)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    archive = archive_of(plans_dir)
    archive.mkdir()
    (archive / "2026-Q4").symlink_to(elsewhere)
    scan(cli, plans_dir)
    result = apply(cli, plans_dir, "--json")
    assert result.exit_code == 1
    by_name = {r["name"]: r for r in result.json()["results"]}
    assert by_name["done-a.md"]["status"] == "failed"
    assert "follows no link" in by_name["done-a.md"]["error"]
    assert list(elsewhere.iterdir()) == []
    assert (plans_dir / "done-a.md").is_file() and (plans_dir / "done-a-agent-x1.md").is_file()


def test_undo_leaves_a_folder_that_took_an_archived_files_place(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    scan(cli, plans_dir)
    assert apply(cli, plans_dir).exit_code == 0
    archived = archive_of(plans_dir) / "2026-Q4" / "done-a.md"
    archived.unlink()
    archived.mkdir()
    (archived / "inside.md").write_text("someone's folder\n")
    result = cli("undo", "--plans-dir", str(plans_dir), "--yes", "--json")
    by_name = {r["name"]: r for r in result.json()["results"]}
    assert by_name["done-a.md"]["status"] == "failed"
    assert "not the file apply moved" in by_name["done-a.md"]["error"]
    assert not (plans_dir / "done-a.md").exists()
    assert (archived / "inside.md").read_text() == "someone's folder\n"


def test_undo_can_be_retried_once_the_conflict_is_cleared(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    original = {name: plan.content for name, plan in PLANS.items()}
    scan(cli, plans_dir)
    assert apply(cli, plans_dir).exit_code == 0
    (plans_dir / "done-a.md").write_text("a new plan that took the name\n")
    first = cli("undo", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert {r["name"]: r["status"] for r in first.json()["results"]}["done-a.md"] == "skipped"
    (plans_dir / "done-a.md").unlink()  # the conflict is cleared
    second = cli("undo", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert second.exit_code == 0, second.stderr
    assert {r["name"] for r in second.json()["results"]} == {"done-a.md", "done-a-agent-x1.md"}
    for name in ("done-a.md", "done-a-agent-x1.md"):
        assert (plans_dir / name).read_text() == original[name]
    third = cli("undo", "--plans-dir", str(plans_dir), "--yes")
    assert "nothing to undo" in third.stdout


def test_a_scheduled_report_scan_does_not_replace_the_reviewed_proposal(
    cli, plans_dir: Path
) -> None:
    make_files(plans_dir, PLANS)
    reviewed = scan(cli, plans_dir, "--stale-days", "300", "--json").json()
    assert all(plan["action"] != "trash" for plan in reviewed["plans"])
    # What `schedule install --mode report` runs each week:
    report = cli("scan", "--no-record", "--format", "markdown", "--plans-dir", str(plans_dir))
    assert report.exit_code == 0
    assert "not recorded" in report.stdout
    result = apply(cli, plans_dir, "--json")
    assert result.exit_code == 0
    assert {r["action"] for r in result.json()["results"]} == {"archive"}  # nothing trashed
    assert result.json()["proposal"] == reviewed["proposal"]["id"]


def test_apply_proposal_refuses_when_a_later_scan_replaced_it(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    reviewed = scan(cli, plans_dir, "--stale-days", "300", "--json").json()["proposal"]["id"]
    later = scan(cli, plans_dir, "--json").json()["proposal"]["id"]
    assert later != reviewed
    before = snapshot(plans_dir)
    result = apply(cli, plans_dir, "--proposal", reviewed)
    assert result.exit_code == 2
    assert f"no scan {reviewed} is recorded" in result.stderr and later in result.stderr
    assert snapshot(plans_dir) == before
    assert apply(cli, plans_dir, "--proposal", later).exit_code == 0


def test_scan_reports_name_their_proposal(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    document = scan(cli, plans_dir, "--json").json()
    proposal = document["proposal"]
    assert proposal["scanned_at"] == NOW_ISO
    table = scan(cli, plans_dir)
    assert f"Proposal {proposal['id']} (2026-11-21 10:00)" in table.stdout
    assert f"--proposal {proposal['id']}" in table.stderr
    markdown = scan(cli, plans_dir, "--format", "markdown")
    assert f"Proposal {proposal['id']}" in markdown.stdout
    result = apply(cli, plans_dir)
    assert f"carried out the scan {proposal['id']} (2026-11-21 10:00)" in result.stdout
