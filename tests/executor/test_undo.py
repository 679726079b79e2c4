"""clarity undo, and the question apply and undo ask in a terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot, trash_files
from tests.builders.plans import PLANS
from tests.builders.processes import in_a_terminal, run_process


@pytest.fixture
def applied(cli, plans_dir: Path) -> dict[str, tuple[bytes, int]]:
    """PLANS scanned and applied; returns every original file's bytes and mtime."""
    make_files(plans_dir, PLANS)
    original = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()}
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert cli("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    return original


def undo(cli, plans_dir: Path, *args: str):
    return cli("undo", "--plans-dir", str(plans_dir), "--yes", *args)


def state_of(plans_dir: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()}


def test_undo_puts_back_archived_and_trashed_plans_exactly(
    cli, plans_dir: Path, applied, isolated_home: Path
) -> None:
    result = undo(cli, plans_dir, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["counts"] == {"done": 3, "skipped": 0, "failed": 0}
    assert {item["action"] for item in result.json()["results"]} == {"restore"}
    assert state_of(plans_dir) == applied
    archive = plans_dir.parent / "plans-archive"
    assert not (archive / "index.jsonl").exists()  # an index of nothing is no index
    assert not (archive / "INDEX.md").exists()
    trash = trash_files(isolated_home).parent
    assert list((trash / "files").iterdir()) == []
    assert list((trash / "info").iterdir()) == []


def test_undo_never_overwrites_a_file_that_appeared_since(cli, plans_dir: Path, applied) -> None:
    (plans_dir / "done-a.md").write_text("a new plan that took the name\n")
    result = undo(cli, plans_dir, "--json")
    assert result.exit_code == 0
    by_name = {item["name"]: item for item in result.json()["results"]}
    assert by_name["done-a.md"]["status"] == "skipped"
    assert "in the plans dir again" in by_name["done-a.md"]["reason"]
    assert by_name["done-a-agent-x1.md"]["status"] == "skipped"  # it stays with its plan
    assert by_name["stub.md"]["status"] == "done"
    assert (plans_dir / "done-a.md").read_text() == "a new plan that took the name\n"
    archive = plans_dir.parent / "plans-archive"
    assert (archive / "2026-Q4" / "done-a.md").read_bytes() == applied["done-a.md"][0]
    assert json.loads((archive / "index.jsonl").read_text())["name"] == "done-a.md"


def test_each_undo_steps_back_one_apply(cli, plans_dir: Path, applied) -> None:
    make_files(plans_dir, {"second.md": Plan("# Second -- Done\n", 9)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    cli("apply", "--plans-dir", str(plans_dir), "--yes")
    assert not (plans_dir / "second.md").exists()

    first = undo(cli, plans_dir, "--json").json()
    assert [item["name"] for item in first["results"]] == ["second.md"]
    second = undo(cli, plans_dir, "--json").json()
    assert sorted(item["name"] for item in second["results"]) == [
        "done-a-agent-x1.md",
        "done-a.md",
        "stub.md",
    ]
    nothing = undo(cli, plans_dir, "--json")
    assert nothing.exit_code == 0
    assert nothing.json()["results"] == []
    assert "nothing to undo" in nothing.json()["notes"][-1]


def test_a_file_gone_from_the_archive_is_reported_and_the_rest_restored(
    cli, plans_dir: Path, applied, isolated_home: Path
) -> None:
    (plans_dir.parent / "plans-archive" / "2026-Q4" / "done-a-agent-x1.md").unlink()
    (trash_files(isolated_home) / "stub.md").unlink()  # the trash was emptied
    result = undo(cli, plans_dir, "--json")
    assert result.exit_code == 1
    by_name = {item["name"]: item for item in result.json()["results"]}
    assert by_name["done-a.md"]["status"] == "done"
    assert "no longer in the archive" in by_name["done-a-agent-x1.md"]["error"]
    assert "was it emptied" in by_name["stub.md"]["error"]


def test_undo_with_nothing_applied_says_so(cli, plans_dir: Path) -> None:
    result = undo(cli, plans_dir)
    assert result.exit_code == 0
    assert "nothing to undo" in result.stdout


def test_without_a_terminal_and_without_yes_undo_refuses(plans_dir: Path, applied) -> None:
    before = snapshot(plans_dir.parent)
    result = run_process("undo", "--plans-dir", str(plans_dir))
    assert result.exit_code == 2
    assert "--yes" in result.stderr
    assert snapshot(plans_dir.parent) == before


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_in_a_terminal_apply_shows_the_plan_and_asks(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    before = snapshot(plans_dir.parent)

    declined = in_a_terminal(["apply", "--plans-dir", str(plans_dir)], b"n\n")
    assert declined.returncode == 0, declined.stderr
    assert "Archive: 1 plan (+1 sub-plan) into" in declined.stdout
    assert "    └ done-a-agent-x1.md" in declined.stdout
    assert "Send to the trash: 1 plan" in declined.stdout
    assert "nothing was moved" in declined.stdout
    assert snapshot(plans_dir.parent) == before

    accepted = in_a_terminal(["apply", "--plans-dir", str(plans_dir)], b"y\n")
    assert accepted.returncode == 0, accepted.stderr
    assert "Done: 2 archived, 1 trashed" in accepted.stdout
    assert not (plans_dir / "done-a.md").exists()

    undone = in_a_terminal(["undo", "--plans-dir", str(plans_dir)], b"y\n")
    assert undone.returncode == 0, undone.stderr
    assert "clarity undo: put back 3 files that the apply of " in undone.stdout
    assert ".jsonl" not in undone.stdout  # the run as people name it
    assert (plans_dir / "done-a.md").exists()
