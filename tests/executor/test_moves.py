"""Moves across filesystems: a verified copy, then the unlink; faults leave the source."""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clarity.executor.moves import ChangedWhileMoving, move_file
from clarity.fsio import partial_path
from tests.builders.files import NOW_ISO, Plan, contents, make_files, read_files
from tests.builders.plans import PLANS
from tests.builders.processes import before_each_rename, full_disk


@pytest.fixture
def no_rename_across(monkeypatch: pytest.MonkeyPatch, plans_dir: Path) -> list[str]:
    """A rename out of the plans dir fails with EXDEV, as between two filesystems:
    send2trash's (os.rename) and clarity's own (the no-replace rename). A rename within
    it (the move's claim) works, as it does on one filesystem."""
    refused: list[str] = []

    def refuse(src: Path, dst: Path) -> None:
        if src.parent == plans_dir and dst.parent != plans_dir:  # a rename within it is not
            refused.append(src.name)
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(src))

    before_each_rename(monkeypatch, refuse)
    return refused


def test_an_exdev_rename_becomes_a_verified_copy_with_bytes_mode_and_mtime_kept(
    cli, plans_dir: Path, no_rename_across: list[str]
) -> None:
    make_files(plans_dir, PLANS)
    (plans_dir / "done-a.md").chmod(0o640)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()}
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = cli("apply", "--plans-dir", str(plans_dir), "--yes")
    assert result.exit_code == 0, result.stdout
    assert {"done-a-agent-x1.md", "done-a.md"} <= set(no_rename_across)
    quarter = plans_dir.parent / "plans-archive" / "2026-Q4"
    for name in ("done-a.md", "done-a-agent-x1.md"):
        assert not (plans_dir / name).exists()
        assert ((quarter / name).read_bytes(), (quarter / name).stat().st_mtime_ns) == before[name]
    assert (quarter / "done-a.md").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in quarter.iterdir()) == ["done-a-agent-x1.md", "done-a.md"]


def test_a_file_that_changes_during_the_copy_is_left_in_place(
    plans_dir: Path, tmp_path: Path, no_rename_across: list[str]
) -> None:
    source = make_files(plans_dir, {"p.md": "# P\n"}) / "p.md"
    target = tmp_path / "archive" / "p.md"
    target.parent.mkdir()
    wrong = hashlib.sha256(b"what the scan saw\n").hexdigest()
    with pytest.raises(ChangedWhileMoving):
        move_file(source, target, wrong)
    assert source.read_text() == "# P\n"
    assert not target.exists() and not partial_path(target).exists()


def test_a_move_never_replaces_an_existing_file(plans_dir: Path, tmp_path: Path) -> None:
    source = make_files(plans_dir, {"p.md": "# P\n"}) / "p.md"
    target = make_files(tmp_path / "archive", {"p.md": "other\n"}) / "p.md"
    with pytest.raises(FileExistsError):
        move_file(source, target)
    assert (source.read_text(), target.read_text()) == ("# P\n", "other\n")


def test_a_real_move_to_another_filesystem_and_back(
    cli, plans_dir: Path, other_filesystem: Path
) -> None:
    make_files(plans_dir, PLANS)
    original = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()}
    archive = other_filesystem / "archive"
    cli("scan", "--plans-dir", str(plans_dir), "--archive-dir", str(archive), "--now", NOW_ISO)
    assert cli("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert (archive / "2026-Q4" / "done-a.md").read_bytes() == original["done-a.md"][0]
    assert not (plans_dir / "done-a.md").exists()
    assert cli("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()} == (
        original
    )


@pytest.mark.skipif(sys.platform != "linux", reason="uses RLIMIT_FSIZE and a tmpfs")
def test_a_full_disk_fails_that_move_cleanly_and_the_rest_go_on(
    cli, plans_dir: Path, other_filesystem: Path
) -> None:
    big = "# Big plan COMPLETED\n" + "line of the plan\n" * 12_000  # ~200 KB
    make_files(
        plans_dir,
        {
            "big.md": Plan(big, 20),
            "small-a.md": Plan("# Small A COMPLETED\n", 20),
            "small-b.md": Plan("# Small B COMPLETED\n", 20),
        },
    )
    before = contents(plans_dir)
    archive = other_filesystem / "archive"
    cli("scan", "--plans-dir", str(plans_dir), "--archive-dir", str(archive), "--now", NOW_ISO)
    completed = subprocess.run(
        [sys.executable, "-m", "clarity", "apply", "--plans-dir", str(plans_dir), "--yes"],
        capture_output=True,
        text=True,
        preexec_fn=full_disk(64 * 1024),
        check=False,
        timeout=120,
    )
    assert completed.returncode == 1, completed.stderr
    assert "FAILED    big.md: File too large" in completed.stdout
    assert (plans_dir / "big.md").read_text() == big
    quarter = archive / "2026-Q4"
    assert sorted(read_files(quarter)) == ["small-a.md", "small-b.md"]  # no partial left
    assert contents(plans_dir, quarter) == before  # nothing lost, nothing doubled
