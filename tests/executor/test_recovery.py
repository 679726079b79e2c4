"""kill -9 at the worst moments of a move, exactly; the next command settles it.

A child process runs clarity with one system call wrapped so that, at the
chosen moment, the process SIGKILLs itself: no cleanup runs, as with a real
kill. Then an ordinary clarity command must finish or roll back the move.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from clarity.executor.journal import BATCH_MOVES
from tests.builders.corpus import leftovers, make_corpus
from tests.builders.files import NOW_ISO, Plan, contents, make_files, quarters_of, trash_files
from tests.builders.processes import killed, run_process, run_until_killed

PLANS = {
    "done.md": Plan("# Done plan COMPLETED\n\nIt shipped.\n", 20),
    "done-agent-a1.md": Plan("# its sub-plan\n", 20),
    "stub.md": Plan("# stub\n", 10),
}


@pytest.fixture
def scanned(plans_dir: Path) -> Path:
    make_files(plans_dir, PLANS)
    run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    return plans_dir


def _settled(plans_dir: Path, home: Path, original) -> list[dict[str, Any]]:
    archive = plans_dir.parent / "plans-archive"
    assert contents(plans_dir, archive / "2026-Q4", trash_files(home)) == original
    assert leftovers(plans_dir.parent, home / ".local") == []
    return [json.loads(line) for line in (archive / "index.jsonl").read_text().splitlines()]


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd")
@pytest.mark.parametrize(
    "moment", ["after-announce", "cross-before-unlink", "cross-mid-copy", "after-rename"]
)
def test_a_killed_archive_move_is_settled_by_the_next_scan(
    scanned: Path, isolated_home: Path, moment: str
) -> None:
    original = contents(scanned)
    killed(moment, scanned, "apply", "--plans-dir", str(scanned), "--yes")
    if moment == "after-announce":  # its batch's intents were on disk, and nothing had moved
        assert contents(scanned) == original

    scan = run_process("scan", "--plans-dir", str(scanned), "--now", NOW_ISO)
    assert re.search(
        r"settled the apply of \d{4}-\d\d-\d\d \d\d:\d\d, which was interrupted", scan.stderr
    )
    assert ".jsonl" not in scan.stderr  # the run as people name it, not its journal file
    finish = run_process("apply", "--plans-dir", str(scanned), "--yes")
    assert finish.exit_code == 0, finish.stderr

    records = _settled(scanned, isolated_home, original)
    assert [record["name"] for record in records] == ["done.md"]
    assert [sub["name"] for sub in records[0]["subplans"]] == ["done-agent-a1.md"]
    assert sorted(path.name for path in scanned.iterdir()) == []


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd")
def test_a_plan_written_to_just_before_a_killed_unlink_goes_back_whole(
    scanned: Path, isolated_home: Path
) -> None:
    # Issue 36 H1: the copy is in the archive, the plan (renamed aside in the plans dir)
    # was written to, then the kill. The newer text is the plan; the copy goes.
    killed("cross-written-before-unlink", scanned, "apply", "--plans-dir", str(scanned), "--yes")
    assert not (scanned / "done.md").exists()  # renamed aside, as the move does first
    scan = run_process("scan", "--plans-dir", str(scanned), "--now", NOW_ISO)
    assert "0 moves finished" in scan.stderr, scan.stderr
    assert (scanned / "done.md").read_text() == (
        "# Done plan COMPLETED\n\nIt shipped.\nwritten at the last moment\n"
    )
    quarter = scanned.parent / "plans-archive" / "2026-Q4"
    assert not (quarter / "done.md").exists()
    assert leftovers(scanned.parent, isolated_home / ".local") == []


def test_a_plan_killed_on_its_way_to_the_trash_is_found_there(
    scanned: Path, isolated_home: Path
) -> None:
    original = contents(scanned)
    killed("after-trash", scanned, "apply", "--plans-dir", str(scanned), "--yes")
    assert (trash_files(isolated_home) / "stub.md").exists()

    resumed = run_process("apply", "--plans-dir", str(scanned), "--yes", "--json")
    assert resumed.exit_code == 0, resumed.stderr
    assert "1 move finished" in resumed.json()["notes"][0]
    _settled(scanned, isolated_home, original)

    back = run_process("undo", "--plans-dir", str(scanned), "--yes")
    assert back.exit_code == 0, back.stderr
    assert (scanned / "stub.md").read_text() == "# stub\n"  # found again, and put back


@pytest.mark.parametrize(("moment", "back"), [("after-restore", 1), ("after-announce", 0)])
def test_a_killed_undo_is_settled_and_the_next_undo_finishes_it(
    scanned: Path, isolated_home: Path, moment: str, back: int
) -> None:
    original = {path.name: path.read_bytes() for path in scanned.iterdir()}
    assert run_process("apply", "--plans-dir", str(scanned), "--yes").exit_code == 0
    killed(moment, scanned, "undo", "--plans-dir", str(scanned), "--yes")
    assert len(list(scanned.iterdir())) == back

    again = run_process("undo", "--plans-dir", str(scanned), "--yes", "--json")
    assert again.exit_code == 0, again.stderr
    assert re.match(
        r"settled the undo of [-\d: ]+, which was interrupted", again.json()["notes"][0]
    )
    assert {path.name: path.read_bytes() for path in scanned.iterdir()} == original
    index = scanned.parent / "plans-archive" / "index.jsonl"
    assert not index.exists() or index.read_text() == ""  # an index of nothing: gone
    nothing = run_process("undo", "--plans-dir", str(scanned), "--yes")
    assert "nothing to undo" in nothing.stdout


def test_a_torn_last_journal_line_is_ignored(scanned: Path, isolated_home: Path) -> None:
    original = contents(scanned)
    killed("after-rename", scanned, "apply", "--plans-dir", str(scanned), "--yes")
    journal = next((isolated_home / ".local" / "state").glob("clarity/dirs/*/runs/*.jsonl"))
    with journal.open("ab") as stream:
        stream.write(b'{"op": "intent", "seq": 9, "kind": "arch')  # cut mid-write
    assert run_process("apply", "--plans-dir", str(scanned), "--yes").exit_code == 0
    _settled(scanned, isolated_home, original)


def test_a_killed_hand_archive_is_finished_by_the_next_command_and_undone_whole(
    plans_dir: Path, isolated_home: Path
) -> None:
    make_files(plans_dir, {**PLANS, "idle.md": Plan("# Idle plan\n\n" + "words " * 500, 30)})
    original = contents(plans_dir)
    killed(
        "after-rename",
        plans_dir,
        "archive",
        "done",
        "--plans-dir",
        str(plans_dir),
        "--now",
        NOW_ISO,
        "--yes",
    )

    scan = run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert re.search(r"settled the archive of [-\d: ]+, which was interrupted", scan.stderr)
    records = _settled(plans_dir, isolated_home, original)
    assert [record["name"] for record in records] == ["done.md"]
    assert [sub["name"] for sub in records[0]["subplans"]] == ["done-agent-a1.md"]
    assert sorted(path.name for path in plans_dir.iterdir()) == ["idle.md", "stub.md"]

    undo = run_process("undo", "--plans-dir", str(plans_dir), "--yes")
    assert undo.exit_code == 0, undo.stderr
    assert sorted(p.name for p in plans_dir.iterdir()) == sorted(["idle.md", *PLANS])


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd")
def test_every_move_is_announced_on_disk_before_it_starts(
    plans_dir: Path, isolated_home: Path
) -> None:
    """Apply's moves out and undo's moves back, over several batches each."""
    original = make_corpus(plans_dir, BATCH_MOVES * 2 + 30)
    before = {path.name: path.read_bytes() for path in plans_dir.iterdir()}
    assert run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    process = run_until_killed(
        "durable-before-move", plans_dir, "apply", "--plans-dir", str(plans_dir), "--yes"
    )
    assert process.returncode == 0, process.stderr
    archive = plans_dir.parent / "plans-archive"
    quarters = quarters_of(archive)
    assert contents(plans_dir, *quarters, trash_files(isolated_home)) == original
    assert len(list(plans_dir.iterdir())) < len(original) - BATCH_MOVES * 2  # several batches

    process = run_until_killed(
        "durable-before-move", plans_dir, "undo", "--plans-dir", str(plans_dir), "--yes"
    )
    assert process.returncode == 0, process.stderr
    assert {path.name: path.read_bytes() for path in plans_dir.iterdir()} == before


def test_a_trash_record_a_kill_left_half_claimed_is_swept_by_recovery(
    scanned: Path, isolated_home: Path
) -> None:
    # Issue 36, H7: an empty `.clarity-claim.<pid>.tmp` in the trash's info/ that nothing
    # removed (only a later run that trashed something there would have).
    original = contents(scanned)
    killed("mid-trash-claim", scanned, "apply", "--plans-dir", str(scanned), "--yes")
    info = trash_files(isolated_home).parent / "info"
    assert [p.name for p in info.iterdir() if p.name.startswith(".clarity-claim.")] != []

    settled = run_process("scan", "--plans-dir", str(scanned), "--now", NOW_ISO)
    assert settled.exit_code == 0, settled.stderr
    undo = run_process("undo", "--plans-dir", str(scanned), "--yes")  # settles, then undoes
    assert undo.exit_code == 0, undo.stderr
    assert [p.name for p in info.iterdir() if p.name.startswith(".clarity-claim.")] == []
    assert contents(scanned) == original


def test_an_archive_folder_replaced_by_a_link_mid_run_stops_the_moves_and_the_index(
    tmp_path: Path, isolated_home: Path
) -> None:
    # Issue 36, H7: the run went on through the link, and its index records were written
    # there. Now nothing more moves where it leads, no record is written through it, and
    # undo puts back what moved.
    plans = tmp_path / "plans"
    make_files(plans, {f"p{i}.md": Plan(f"# Done {i} COMPLETED\n\nbody\n", 3) for i in range(12)})
    original = contents(plans)
    assert run_process("scan", "--plans-dir", str(plans), "--now", NOW_ISO).exit_code == 0
    process = run_until_killed("swap-archive:4", plans, "apply", "--plans-dir", str(plans), "--yes")
    assert process.returncode == 1, process.stderr
    assert "was replaced while clarity ran" in process.stdout + process.stderr
    real = tmp_path / "plans-archive.real"
    moved = sorted(path.name for path in (real / "2026-Q4").iterdir())
    assert 1 <= len(moved) < 12  # stopped: what is left stays in the plans dir
    assert len(moved) + len(list(plans.iterdir())) == 12
    assert not (real / "index.jsonl").exists() or not (real / "index.jsonl").read_text()

    (tmp_path / "plans-archive").unlink()  # the person puts the archive back
    real.rename(tmp_path / "plans-archive")
    back = run_process("undo", "--plans-dir", str(plans), "--yes")
    assert back.exit_code == 0, back.stderr
    assert contents(plans) == original


def test_undo_of_the_only_apply_leaves_no_empty_quarter_or_index_of_nothing(
    cli, tmp_path: Path
) -> None:
    # Issue 36, item 12.
    plans = tmp_path / "plans"
    make_files(plans, {"done.md": Plan("# Done COMPLETED\n\nIt shipped.\n", 3)})
    original = contents(plans)
    assert cli("apply", "--rescan", "--yes", "--plans-dir", str(plans)).exit_code == 0
    archive = tmp_path / "plans-archive"
    assert quarters_of(archive) != [] and (archive / "index.jsonl").exists()

    assert cli("undo", "--yes", "--plans-dir", str(plans)).exit_code == 0
    assert contents(plans) == original
    assert quarters_of(archive) == []
    assert not (archive / "index.jsonl").exists() and not (archive / "INDEX.md").exists()
    assert cli("archived", "--plans-dir", str(plans)).exit_code == 0
