"""Issue 36 H2: a full disk never tears the archive's index for good.

An apply that filled the archive's disk left a torn line in index.jsonl;
after undo it was the first line, and clarity called the index "not
clarity's": archived, show and restore refused, and every later apply
archived plans without listing them. A record is now written whole or not
at all, and a torn line of clarity's (a kill mid-write) is clarity's wherever
it is. The full disk here is RLIMIT_FSIZE: a write past it is cut short, then
fails, as on a full disk.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.archive.test_index_whole import assert_index_lists_the_archive
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.processes import full_disk, run_process

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="uses RLIMIT_FSIZE")


def _done(names: range) -> dict[str, Plan]:
    summary = "We rebuilt the part of the system this plan was about, and it shipped. " * 3
    return {f"done-{n:02d}.md": Plan(f"# Plan {n} COMPLETED\n\n{summary}\n", 20) for n in names}


def _apply_on_a_full_disk(plans_dir: Path, room: int) -> subprocess.CompletedProcess[str]:
    """apply, in a process whose files may grow only `room` bytes past the index's size."""
    limit = (plans_dir.parent / "plans-archive" / "index.jsonl").stat().st_size + room
    return subprocess.run(
        [sys.executable, "-m", "clarity", "apply", "--plans-dir", str(plans_dir), "--yes"],
        capture_output=True,
        text=True,
        preexec_fn=full_disk(limit),
        check=False,
        timeout=120,
    )


def _lines(plans_dir: Path) -> list[bytes]:
    return (plans_dir.parent / "plans-archive" / "index.jsonl").read_bytes().split(b"\n")


def test_an_apply_that_fills_the_disk_leaves_no_torn_line_and_nothing_wedged(
    plans_dir: Path,
) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, _done(range(20)))
    run_process("scan", *dirs, "--now", NOW_ISO)
    assert run_process("apply", *dirs, "--yes").exit_code == 0
    make_files(plans_dir, _done(range(20, 23)))
    run_process("scan", *dirs, "--now", NOW_ISO)

    full = _apply_on_a_full_disk(plans_dir, room=300)  # room for half a record
    assert full.returncode == 1, full.stdout + full.stderr
    assert "the archive's index" in full.stdout + full.stderr  # said, and kept for later
    assert _lines(plans_dir)[-1] == b""  # every line whole: no torn record
    assert all(line.startswith(b'{"name": ') for line in _lines(plans_dir)[:-1])

    # The disk has room again: the next command lists what the full one could not.
    listed = run_process("archived", *dirs, "--json")
    assert listed.exit_code == 0, listed.stderr
    assert run_process("apply", "--rescan", "--now", NOW_ISO, "--yes", *dirs).exit_code == 0
    assert len(assert_index_lists_the_archive(plans_dir)) == 23

    for _ in range(2):  # both applies undone: the index lists nothing, and stays clarity's
        undone = run_process("undo", *dirs, "--yes")
        assert undone.exit_code == 0, undone.stdout + undone.stderr
    assert assert_index_lists_the_archive(plans_dir) == []
    assert run_process("archived", *dirs).exit_code == 0
    again = run_process("apply", "--rescan", "--now", NOW_ISO, "--yes", *dirs)
    assert again.exit_code == 0, again.stdout + again.stderr
    assert len(assert_index_lists_the_archive(plans_dir)) == 23


def test_a_torn_line_of_clarity_s_first_in_the_index_wedges_nothing(plans_dir: Path) -> None:
    # A kill (or power cut) mid-write, then every record before it undone: the torn line
    # is first. It is clarity's: archived, show, restore and apply all go on.
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, _done(range(3)))
    assert run_process("apply", "--rescan", "--now", NOW_ISO, "--yes", *dirs).exit_code == 0
    index = plans_dir.parent / "plans-archive" / "index.jsonl"
    index.write_bytes(b'{"name": "done-09.md", "title": "Plan 9 COMPLE\n' + index.read_bytes())

    listed = run_process("archived", *dirs)
    assert listed.exit_code == 0, listed.stderr
    assert "done-01.md" in listed.stdout
    shown = run_process("show", "done-01.md", *dirs)
    assert shown.exit_code == 0, shown.stderr
    assert "Plan 1 COMPLETED" in shown.stdout
    restored = run_process("restore", "done-01.md", *dirs, "--yes")
    assert restored.exit_code == 0, restored.stdout + restored.stderr
    assert (plans_dir / "done-01.md").exists()
    make_files(plans_dir, _done(range(5, 7)))
    applied = run_process("apply", "--rescan", "--now", NOW_ISO, "--yes", *dirs)
    assert applied.exit_code == 0, applied.stdout + applied.stderr
    names = {r["name"] for r in assert_index_lists_the_archive_without_torn(plans_dir)}
    assert names == {"done-00.md", "done-02.md", "done-05.md", "done-06.md"}


def assert_index_lists_the_archive_without_torn(plans_dir: Path) -> list[dict[str, object]]:
    """The index with its torn line left out: it lists the archive exactly."""
    index = plans_dir.parent / "plans-archive" / "index.jsonl"
    whole = [line for line in index.read_bytes().split(b"\n") if line.endswith(b"}")]
    index.write_bytes(b"".join(line + b"\n" for line in whole))
    return assert_index_lists_the_archive(plans_dir)
