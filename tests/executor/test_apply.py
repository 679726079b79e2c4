"""clarity apply: exactly the reviewed proposal, archived as SPEC 5 says, nothing lost."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from clarity.judge.proposal import load_proposal
from clarity.state import DirState
from tests.builders.files import (
    DAY,
    NOW,
    NOW_ISO,
    Plan,
    make_files,
    read_files,
    snapshot,
    trash_files,
)
from tests.builders.plans import DONE_TEXT, PLANS
from tests.builders.processes import run_process


@pytest.fixture
def scanned(cli, plans_dir: Path) -> Path:
    make_files(plans_dir, PLANS)
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    return plans_dir


def apply(cli, plans_dir: Path, *args: str):
    return cli("apply", "--plans-dir", str(plans_dir), "--yes", *args)


def test_completed_plans_are_archived_with_their_subplans_and_stale_ones_trashed(
    cli, scanned: Path, isolated_home: Path
) -> None:
    before = {path.name: path.stat().st_mtime_ns for path in scanned.iterdir()}
    result = apply(cli, scanned, "--json")
    assert result.exit_code == 0, result.stderr

    quarter = scanned.parent / "plans-archive" / "2026-Q4"
    assert read_files(quarter) == {
        "done-a.md": DONE_TEXT.encode(),
        "done-a-agent-x1.md": b"# Sub-plan\n\nbenchmark the cache\n",
    }
    for name in ("done-a.md", "done-a-agent-x1.md"):
        assert (quarter / name).stat().st_mtime_ns == before[name]
    assert (trash_files(isolated_home) / "stub.md").read_bytes() == b"# stub\n"
    assert sorted(path.name for path in scanned.iterdir()) == ["live.md", "old.md"]

    document = result.json()
    assert document["counts"] == {"done": 3, "skipped": 0, "failed": 0}
    by_name = {item["name"]: item for item in document["results"]}
    assert by_name["done-a.md"] == {
        "name": "done-a.md",
        "action": "archive",
        "status": "done",
        "destination": str(quarter / "done-a.md"),
        "error": None,
        "reason": None,
    }
    assert by_name["stub.md"]["action"] == "trash"
    assert by_name["stub.md"]["destination"] == str(trash_files(isolated_home) / "stub.md")


def test_the_index_records_each_archived_plan_with_its_subplans(cli, scanned: Path) -> None:
    apply(cli, scanned)
    archive = scanned.parent / "plans-archive"
    lines = (archive / "index.jsonl").read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    mtime = NOW.timestamp() - 20 * DAY
    assert record["name"] == "done-a.md"
    assert record["title"] == "Cache layer -- Done"
    assert record["path"] == "2026-Q4/done-a.md"
    assert record["size"] == len(DONE_TEXT)
    assert record["sha256"] == hashlib.sha256(DONE_TEXT.encode()).hexdigest()
    assert datetime.fromisoformat(record["mtime"]) == datetime.fromtimestamp(mtime, UTC)
    assert datetime.fromisoformat(record["archived_at"]).tzinfo is not None
    assert [sub["name"] for sub in record["subplans"]] == ["done-a-agent-x1.md"]
    assert record["subplans"][0]["path"] == "2026-Q4/done-a-agent-x1.md"
    assert record["summary"] == "We put a read-through cache in front of search."
    assert record["summary_source"] == "extract"

    index_md = (archive / "INDEX.md").read_text()
    assert "## 2026-Q4" in index_md
    assert "### Cache layer -- Done" in index_md
    assert "We put a read-through cache in front of search." in index_md
    assert "done-a-agent-x1.md" in index_md


def test_a_proposal_is_applied_at_most_once(cli, scanned: Path, isolated_home: Path) -> None:
    assert apply(cli, scanned).exit_code == 0
    everything = snapshot(scanned.parent)
    again = apply(cli, scanned, "--json")
    assert again.exit_code == 0
    assert again.json()["results"] == []
    assert "already applied" in again.json()["notes"][0]
    assert snapshot(scanned.parent) == everything


def test_scan_records_every_move_with_size_mtime_and_sha256(cli, scanned: Path) -> None:
    proposal = load_proposal(DirState.for_plans_dir(scanned))
    assert proposal is not None
    assert proposal.plans_dir == scanned
    moves = {
        proposed.name: (group.action.value, proposed)
        for group in proposal.groups
        for proposed in group.files
    }
    assert sorted(moves) == ["done-a-agent-x1.md", "done-a.md", "stub.md"]
    for name, (_, proposed) in moves.items():
        data = (scanned / name).read_bytes()
        assert proposed.sha256 == hashlib.sha256(data).hexdigest()
        assert proposed.stamp.size == len(data)
        assert proposed.stamp.mtime_ns == (scanned / name).stat().st_mtime_ns
    assert moves["stub.md"][0] == "trash"


def test_each_plans_dir_has_its_own_proposal(cli, tmp_path: Path) -> None:
    first = make_files(tmp_path / "one", {"a.md": Plan("# A COMPLETED\n", 3)})
    second = make_files(tmp_path / "two", {"b.md": Plan("# B COMPLETED\n", 3)})
    for directory in (first, second):
        cli("scan", "--plans-dir", str(directory), "--now", NOW_ISO)
    assert apply(cli, first).exit_code == 0
    assert (second / "b.md").exists()
    assert apply(cli, second).exit_code == 0
    assert (tmp_path / "two-archive" / "2026-Q4" / "b.md").exists()


def test_with_no_recorded_scan_apply_says_so_and_exits_2(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    result = apply(cli, plans_dir)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "no scan of" in result.stderr and "clarity scan" in result.stderr
    assert len(list(plans_dir.iterdir())) == len(PLANS)


def test_without_a_terminal_and_without_yes_apply_refuses(scanned: Path) -> None:
    before = snapshot(scanned.parent)
    result = run_process("apply", "--plans-dir", str(scanned))  # stdin is not a terminal
    assert result.exit_code == 2
    assert "--yes" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(scanned.parent) == before


def test_rescan_scans_and_applies_in_one_go(cli, plans_dir: Path) -> None:
    make_files(plans_dir, PLANS)
    result = apply(cli, plans_dir, "--rescan", "--now", NOW_ISO, "--json")
    assert result.exit_code == 0
    assert result.json()["counts"]["done"] == 3
    assert sorted(path.name for path in plans_dir.iterdir()) == ["live.md", "old.md"]


def _append(path: Path) -> None:
    with path.open("a") as stream:
        stream.write("one more line\n")


def _same_size_same_mtime(path: Path) -> None:
    info = path.stat()
    data = path.read_bytes()
    path.write_bytes(data[:-2] + b"X\n")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _touch(path: Path) -> None:
    os.utime(path)


def _delete(path: Path) -> None:
    path.unlink()


def _symlink(path: Path) -> None:
    target = path.with_name("elsewhere.txt")
    path.rename(target)
    path.symlink_to(target)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_append, "changed since the scan"),
        (_same_size_same_mtime, "changed since the scan"),
        (_touch, "changed since the scan"),
        (_delete, "gone since the scan"),
        (_symlink, "now a symlink"),
    ],
)
def test_a_plan_changed_after_review_is_skipped(cli, scanned: Path, change, reason) -> None:
    change(scanned / "done-a.md")
    kept = read_files(scanned)
    result = apply(cli, scanned, "--json")
    assert result.exit_code == 0
    by_name = {item["name"]: item for item in result.json()["results"]}
    assert by_name["done-a.md"]["status"] == "skipped"
    assert reason in by_name["done-a.md"]["reason"]
    assert by_name["done-a-agent-x1.md"]["status"] == "skipped"
    assert "its plan done-a.md was skipped" in by_name["done-a-agent-x1.md"]["reason"]
    assert by_name["stub.md"]["status"] == "done"
    for name in ("done-a.md", "done-a-agent-x1.md", "elsewhere.txt"):
        if name in kept:
            assert (scanned / name).read_bytes() == kept[name]
    assert not (scanned.parent / "plans-archive" / "index.jsonl").exists()


def test_a_taken_name_in_the_archive_gets_a_numeric_suffix(cli, scanned: Path) -> None:
    quarter = scanned.parent / "plans-archive" / "2026-Q4"
    make_files(quarter, {"done-a.md": "an older plan of the same name\n", "done-a.2.md": "too\n"})
    result = apply(cli, scanned)
    assert result.exit_code == 0
    assert (quarter / "done-a.md").read_text() == "an older plan of the same name\n"
    assert (quarter / "done-a.2.md").read_text() == "too\n"
    assert (quarter / "done-a.3.md").read_text() == DONE_TEXT
    record = json.loads((quarter.parent / "index.jsonl").read_text())
    assert record["path"] == "2026-Q4/done-a.3.md"
    assert record["name"] == "done-a.md"


def test_an_archive_dir_inside_a_file_stops_apply_before_anything_moves(
    cli, plans_dir: Path, tmp_path: Path
) -> None:
    make_files(plans_dir, PLANS)
    (tmp_path / "a-file").write_text("not a folder\n")
    archive = tmp_path / "a-file" / "archive"
    cli("scan", "--plans-dir", str(plans_dir), "--archive-dir", str(archive), "--now", NOW_ISO)
    before = snapshot(tmp_path)
    result = apply(cli, plans_dir)
    assert result.exit_code == 2
    assert "cannot archive into" in result.stderr and "--archive-dir" in result.stderr
    assert snapshot(tmp_path) == before  # the stale stub was not trashed either


def test_an_unwritable_archive_dir_stops_apply_before_anything_moves(
    cli, scanned: Path, tmp_path: Path
) -> None:
    archive = scanned.parent / "plans-archive"
    archive.mkdir()
    archive.chmod(0o555)
    before = snapshot(tmp_path)
    try:
        completed = run_process("apply", "--plans-dir", str(scanned), "--yes", unprivileged=True)
    finally:
        archive.chmod(0o755)
    assert completed.exit_code == 2, completed.stderr
    assert "cannot archive into" in completed.stderr
    assert "Permission denied" in completed.stderr
    assert snapshot(tmp_path) == before


def test_a_symlink_is_never_followed_or_moved(cli, plans_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.md"
    target.write_text("# Somewhere else COMPLETED\n")
    make_files(plans_dir, PLANS)
    (plans_dir / "linked.md").symlink_to(target)
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = apply(cli, plans_dir, "--json")
    assert "linked.md" not in {item["name"] for item in result.json()["results"]}
    assert (plans_dir / "linked.md").is_symlink()
    assert target.read_text() == "# Somewhere else COMPLETED\n"


def test_a_subplan_active_on_its_own_stays_when_its_parent_is_archived(
    cli, plans_dir: Path
) -> None:
    make_files(
        plans_dir,
        {"p.md": Plan("# P COMPLETED\n", 20), "p-agent-z9.md": Plan("# still going\n", 0)},
    )
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    apply(cli, plans_dir)
    assert [path.name for path in plans_dir.iterdir()] == ["p-agent-z9.md"]
    record = json.loads((plans_dir.parent / "plans-archive" / "index.jsonl").read_text())
    assert record["subplans"] == []


def test_an_archive_dir_other_than_the_reviewed_one_is_refused(
    cli, scanned: Path, tmp_path: Path
) -> None:
    result = apply(cli, scanned, "--archive-dir", str(tmp_path / "elsewhere"))
    assert result.exit_code == 2
    assert "reviewed scan archives into" in result.stderr
    assert (scanned / "done-a.md").exists()


def test_the_table_output_lists_moves_and_how_to_undo(cli, scanned: Path) -> None:
    result = apply(cli, scanned)
    assert "archived  done-a.md -> " in result.stdout
    assert "trashed   stub.md" in result.stdout
    assert "Done: 2 archived, 1 trashed, 0 skipped, 0 failed." in result.stdout
    assert "clarity undo" in result.stdout


def test_an_unwritable_state_dir_warns_on_scan_and_stops_apply(
    cli, plans_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_files(plans_dir, PLANS)
    (tmp_path / "state-file").write_text("not a folder\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state-file"))
    scan = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    assert scan.exit_code == 0
    assert "this scan was not recorded, so apply needs --rescan" in scan.stderr
    before = snapshot(plans_dir)
    result = apply(cli, plans_dir, "--rescan", "--now", NOW_ISO)
    assert result.exit_code == 2
    assert "cannot write clarity's state" in result.stderr
    assert snapshot(plans_dir) == before


def test_a_big_plan_is_hashed_in_full_for_the_proposal(cli, plans_dir: Path) -> None:
    big = "# Big COMPLETED\n\n" + "a line of a long plan\n" * 2000  # past the head and tail
    make_files(plans_dir, {"big.md": Plan(big, 20)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    proposal = load_proposal(DirState.for_plans_dir(plans_dir))
    assert proposal is not None
    assert proposal.groups[0].plan.sha256 == hashlib.sha256(big.encode()).hexdigest()
