"""After any interruption or race, the archive and its index agree: every archived file is
listed by exactly one record, and every record's files are there; undo takes the latest
run first. (The hostile trial's sequences, on a group of a plan and many sub-plans.)"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from clarity.executor.journal import BATCH_MOVES
from tests.builders.files import NOW_ISO, Plan, contents, make_files
from tests.builders.processes import before_each_rename, killed, run_process

SUBS = BATCH_MOVES * 2 + 44  # a group spread over three of undo's batches


def _big_group(plans_dir: Path) -> Counter[bytes]:
    tree = {"big.md": Plan("# Big COMPLETED\n\nAll done.\n" + "b" * 3000, 40)}
    for n in range(SUBS):
        tree[f"big-agent-s{n:04d}.md"] = Plan(f"# sub {n}\n" + "s" * 3000, 40)
    make_files(plans_dir, tree)
    return contents(plans_dir)


def _archive(plans_dir: Path) -> Path:
    return plans_dir.parent / "plans-archive"


def records(plans_dir: Path) -> list[dict[str, Any]]:
    index = _archive(plans_dir) / "index.jsonl"
    return [json.loads(line) for line in index.read_text().splitlines()] if index.exists() else []


def assert_index_lists_the_archive(plans_dir: Path) -> list[dict[str, Any]]:
    """Every archived file listed once, and every listed file there; the records."""
    archive = _archive(plans_dir)
    found = sorted(
        path.relative_to(archive).as_posix()
        for path in archive.rglob("*.md")
        if path.name != "INDEX.md" and path.relative_to(archive).parts[0] != "versions"
    )
    listed = Counter(
        path
        for record in records(plans_dir)
        for path in [record["path"], *(sub["path"] for sub in record["subplans"])]
    )
    assert [path for path, times in listed.items() if times > 1] == []  # none listed twice
    assert sorted(listed) == found  # none unlisted, none listed but gone
    return records(plans_dir)


def _apply(plans_dir: Path) -> None:
    applied = run_process(
        "apply", "--rescan", "--now", NOW_ISO, "--yes", "--plans-dir", str(plans_dir)
    )
    assert applied.exit_code == 0, applied.stderr
    assert [record["name"] for record in records(plans_dir)] == ["big.md"]


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd")
def test_a_killed_undo_of_a_large_group_is_finished_by_the_next_command(
    plans_dir: Path,
) -> None:
    # Before: the record left the index while most sub-plans stayed in the archive, unlisted.
    original = _big_group(plans_dir)
    _apply(plans_dir)
    killed("back-into-plans:150", plans_dir, "undo", "--plans-dir", str(plans_dir), "--yes")
    assert 0 < len(list(plans_dir.iterdir())) < SUBS  # cut in the middle of the group

    scan = run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    assert "settled the undo" in scan.stderr
    assert contents(plans_dir) == original  # the rest of the group followed its plan
    assert assert_index_lists_the_archive(plans_dir) == []


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd")
def test_a_killed_undo_of_a_restore_puts_the_group_back_in_the_archive_whole(
    plans_dir: Path,
) -> None:
    # Before: the record came back listing every sub-plan, most of them not in the archive,
    # and `restore big` then refused.
    original = _big_group(plans_dir)
    _apply(plans_dir)
    restored = run_process("restore", "big", "--yes", "--plans-dir", str(plans_dir))
    assert restored.exit_code == 0, restored.stderr
    killed("back-into-archive:150", plans_dir, "undo", "--plans-dir", str(plans_dir), "--yes")

    scan = run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    assert "settled the undo" in scan.stderr
    assert list(plans_dir.iterdir()) == []
    [record] = assert_index_lists_the_archive(plans_dir)
    assert len(record["subplans"]) == SUBS
    again = run_process("restore", "big", "--yes", "--plans-dir", str(plans_dir))
    assert again.exit_code == 0, again.stderr
    assert contents(plans_dir) == original


def test_a_sub_plan_whose_name_is_taken_during_a_restore_stays_listed(
    cli, plans_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: "2000 restored, 1 skipped", and the skipped sub-plan stayed in the archive
    # with no record: invisible to `archived`, never to be restored.
    _big_group(plans_dir)
    _apply(plans_dir)
    last = plans_dir / f"big-agent-s{SUBS - 1:04d}.md"

    def writer(src: Path, dst: Path) -> None:
        if dst == plans_dir / "big.md" and not last.exists():
            last.write_text("a writer's own file\n")  # while the restore runs

    before_each_rename(monkeypatch, writer)
    restored = cli("restore", "big", "--yes", "--plans-dir", str(plans_dir), "--json")

    assert restored.exit_code == 0, restored.stderr
    assert [r["status"] for r in restored.json()["results"]].count("skipped") == 1
    [record] = assert_index_lists_the_archive(plans_dir)
    assert record["name"] == last.name and record["parent"] == "big.md"
    assert last.name in cli("archived", "--plans-dir", str(plans_dir)).stdout
    last.rename(plans_dir.parent / "elsewhere.md")
    alone = cli("restore", last.name, "--yes", "--plans-dir", str(plans_dir))
    assert alone.exit_code == 0, alone.stderr
    assert last.read_text().startswith(f"# sub {SUBS - 1}\n")
    assert assert_index_lists_the_archive(plans_dir) == []


def test_a_sub_plan_whose_name_is_taken_during_an_undo_stays_listed_and_undoable(
    cli, plans_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = _big_group(plans_dir)
    _apply(plans_dir)
    last = plans_dir / f"big-agent-s{SUBS - 1:04d}.md"
    written: list[int] = []

    def writer(src: Path, dst: Path) -> None:
        if dst == plans_dir / "big.md" and not written:
            written.append(last.write_text("a writer's own file\n"))  # after undo's check

    before_each_rename(monkeypatch, writer)
    undone = cli("undo", "--yes", "--plans-dir", str(plans_dir))

    assert undone.exit_code == 0, undone.stderr
    [record] = assert_index_lists_the_archive(plans_dir)
    assert record["name"] == last.name
    last.unlink()
    again = cli("undo", "--yes", "--plans-dir", str(plans_dir))  # it tries that file again
    assert again.exit_code == 0, again.stderr
    assert contents(plans_dir) == original, again.stdout
    assert assert_index_lists_the_archive(plans_dir) == []


def test_undo_takes_back_the_latest_run_first(cli, plans_dir: Path) -> None:
    # Before: the hand archive of alpha (at the place a restore had freed) was passed
    # over as "restored", and undo undid the apply before it (beta came back).
    make_files(
        plans_dir,
        {
            "alpha.md": Plan("# Alpha COMPLETED\n\n" + "a" * 3000, 40),
            "beta.md": Plan("# Beta COMPLETED\n\n" + "b" * 3000, 40),
        },
    )
    for args in (
        ("apply", "--rescan", "--now", NOW_ISO),
        ("restore", "alpha"),
        ("archive", "alpha", "--now", NOW_ISO),
    ):
        done = cli(*args, "--yes", "--plans-dir", str(plans_dir))
        assert done.exit_code == 0, done.stderr

    undone = cli("undo", "--yes", "--plans-dir", str(plans_dir))

    assert undone.exit_code == 0, undone.stderr
    assert sorted(path.name for path in plans_dir.iterdir()) == ["alpha.md"]
    assert [record["name"] for record in assert_index_lists_the_archive(plans_dir)] == ["beta.md"]
    # And back through the runs, one undo at a time: the restore, then the apply.
    assert cli("undo", "--yes", "--plans-dir", str(plans_dir)).exit_code == 0
    assert list(plans_dir.iterdir()) == []
    assert len(assert_index_lists_the_archive(plans_dir)) == 2
    assert cli("undo", "--yes", "--plans-dir", str(plans_dir)).exit_code == 0
    assert sorted(path.name for path in plans_dir.iterdir()) == ["alpha.md", "beta.md"]
    assert assert_index_lists_the_archive(plans_dir) == []
