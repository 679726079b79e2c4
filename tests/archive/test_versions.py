"""Issue 32 (step 1): every text of a plan that clarity sees when it writes is kept, as a
plain file in the archive, and `history`, `show --version` and `diff` read them back.

Kept by apply, archive and the weekly run (`apply --rescan --yes`); never by scan, never
when the person declines; undo leaves them; a plan of 100 MB is kept without being held in
memory; a kill while keeping, and a full disk, lose nothing and say one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot
from tests.builders.processes import full_disk, killed, run_process

FIRST = "# Cache layer\n\n## Context\n\nSearch is slow.\n\n## Steps\n\n1. Add a cache.\n"
SECOND = FIRST.replace("1. Add a cache.", "1. Add a read-through cache.\n2. Invalidate it.")


def _weekly(plans_dir: Path) -> None:
    """The weekly run, as `clarity schedule install` writes it."""
    ran = run_process("apply", "--rescan", "--yes", "--plans-dir", str(plans_dir))
    assert ran.exit_code == 0, ran.stdout + ran.stderr


def _versions(plans_dir: Path, name: str = "cache") -> Path:
    return plans_dir.parent / "plans-archive" / "versions" / name


def test_a_plan_replaced_between_two_weekly_runs_keeps_both_texts(plans_dir: Path) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3)})
    _weekly(plans_dir)
    (plans_dir / "cache.md").write_text(SECOND)  # Claude Code writes a new plan over it
    _weekly(plans_dir)

    listed = run_process("history", "cache", *dirs, "--json").json()
    assert [v["number"] for v in listed["versions"]] == [1, 2]
    assert [v["current"] for v in listed["versions"]] == [False, True]
    assert {v["source"] for v in listed["versions"]} == {"seen in the plans dir"}
    assert listed["where"] == "live"
    first = run_process("show", "cache", "--version", "1", *dirs)
    assert first.exit_code == 0 and first.stdout == FIRST  # exact bytes when piped
    changes = run_process("diff", "cache", *dirs)
    assert "-1. Add a cache.\n+1. Add a read-through cache.\n+2. Invalidate it.\n" in (
        changes.stdout
    )
    table = run_process("history", "cache.md", *dirs)
    assert table.stdout.splitlines()[0] == "cache.md: 2 versions, in the plans dir"
    assert table.stdout.splitlines()[2].endswith("seen in the plans dir  <- the file now")


def test_a_repeat_run_with_nothing_changed_keeps_nothing_new(plans_dir: Path) -> None:
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3), "other.md": Plan(SECOND, 2)})
    _weekly(plans_dir)
    before = snapshot(plans_dir.parent / "plans-archive" / "versions")
    _weekly(plans_dir)
    (plans_dir / "cache.md").touch()  # mtime alone moved: the text is kept already
    _weekly(plans_dir)
    assert snapshot(plans_dir.parent / "plans-archive" / "versions") == before


def test_scan_keeps_nothing_and_a_declined_apply_keeps_nothing(plans_dir: Path) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3), "done.md": Plan("# Done COMPLETED\n", 20)})
    assert run_process("scan", *dirs, "--now", NOW_ISO).exit_code == 0
    from tests.builders.processes import in_a_terminal

    declined = in_a_terminal(["apply", *dirs], b"n\n")
    assert declined.returncode == 0, declined.stderr
    assert not (plans_dir.parent / "plans-archive").exists()


def test_undo_leaves_the_kept_texts(plans_dir: Path) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3), "done.md": Plan("# Done COMPLETED\n", 20)})
    _weekly(plans_dir)
    kept = snapshot(_versions(plans_dir))
    assert run_process("undo", *dirs, "--yes").exit_code == 0
    assert snapshot(_versions(plans_dir)) == kept
    assert run_process("history", "cache", *dirs).exit_code == 0


def test_history_of_an_archived_plan_lists_its_archived_text_once(plans_dir: Path) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"done.md": Plan("# Done COMPLETED\n\nIt shipped.\n", 20)})
    _weekly(plans_dir)
    listed = run_process("history", "done", *dirs, "--json").json()
    assert listed["where"] == "archived"
    [only] = listed["versions"]
    assert only["source"].startswith("archived ") and only["current"]
    assert not _versions(plans_dir, "done").exists()  # the archive holds it: not kept twice


def test_a_name_clarity_knows_no_text_of_is_one_line(plans_dir: Path) -> None:
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3)})
    for args, says in (
        (("history", "nosuch"), "clarity knows no text of nosuch.md"),
        (("show", "cache", "--version", "7"), "cache.md has versions 1 to 1, not 7"),
        (("diff", "cache"), "cache.md has one version only"),
        (("history", "../etc/passwd"), "is not a plan's name"),
    ):
        said = run_process(*args, "--plans-dir", str(plans_dir))
        assert said.exit_code == 2, (args, said.stderr)
        assert says in said.stderr and len(said.stderr.strip().splitlines()) == 1, said.stderr


def test_a_plan_of_100_mb_is_kept_whole(plans_dir: Path) -> None:
    big = b"# Big plan\n\n" + b"a line of a very long plan, kept byte for byte\n" * 2_200_000
    (plans_dir / "big.md").write_bytes(big)
    _weekly(plans_dir)
    [kept] = [p for p in _versions(plans_dir, "big").iterdir() if p.suffix == ".md"]
    assert kept.read_bytes() == big


@pytest.mark.skipif(sys.platform != "linux", reason="the kill harness reads /proc/self/fd")
@pytest.mark.parametrize("moment", ["before-keep-rename", "after-keep-rename"])
def test_a_kill_while_keeping_loses_nothing_and_the_next_run_finishes(
    plans_dir: Path, moment: str
) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3)})
    killed(moment, plans_dir, "apply", "--rescan", "--yes", *dirs)
    assert (plans_dir / "cache.md").read_text() == FIRST
    _weekly(plans_dir)
    listed = run_process("history", "cache", *dirs, "--json").json()
    assert [v["sha256"] for v in listed["versions"]] == [
        __import__("hashlib").sha256(FIRST.encode()).hexdigest()
    ]
    assert list((_versions(plans_dir).parent / ".keeping").iterdir()) == []  # its temp swept


@pytest.mark.skipif(sys.platform != "linux", reason="uses RLIMIT_FSIZE")
def test_a_full_disk_while_keeping_is_one_line_and_the_next_run_keeps_it(plans_dir: Path) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"big.md": Plan("# Big\n\n" + "x" * 300_000, 3)})
    run = subprocess.run(
        [sys.executable, "-m", "clarity", "apply", "--rescan", "--yes", *dirs],
        capture_output=True,
        text=True,
        preexec_fn=full_disk(100_000),
        check=False,
        timeout=120,
    )
    said = [line for line in (run.stdout + run.stderr).splitlines() if "big.md" in line]
    assert said == [
        "the text of big.md was not kept (File too large); the next apply tries again"
    ], run.stdout + run.stderr
    left = [p.name for p in _versions(plans_dir, "big").rglob("*") if p.is_file()]
    assert left == []  # nothing half-kept
    _weekly(plans_dir)
    listed = run_process("history", "big", *dirs, "--json").json()
    assert len(listed["versions"]) == 1 and listed["versions"][0]["current"]


def test_ten_thousand_versions_of_one_plan(plans_dir: Path, tmp_path: Path) -> None:
    # Keeping a text kept already only reads it, however many versions there are (its
    # file is named by its sha256); history reads them all. The archive is on a tmpfs
    # where the machine has one: four fsyncs a version are most of the time otherwise.
    import tempfile
    from datetime import UTC, datetime

    from clarity.archive.versions import SEEN, keep_file

    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else tmp_path) as folder:
        archive = Path(folder) / "archive"
        plan = plans_dir / "cache.md"
        now = datetime(2026, 11, 21, tzinfo=UTC)
        for number in range(10_000):
            plan.write_text(f"{FIRST}\nrevision {number}\n")
            assert keep_file(archive, "cache.md", plan, SEEN, now) is not None
        assert keep_file(archive, "cache.md", plan, SEEN, now) is None  # the same text: once
        dirs = ("--plans-dir", str(plans_dir), "--archive-dir", str(archive))
        listed = run_process("history", "cache", *dirs, "--json").json()
        assert len(listed["versions"]) == 10_000
        assert listed["versions"][-1]["current"]
        text = run_process("show", "cache", "--version", "5000", *dirs).stdout
        assert text.endswith("revision 4999\n")
        manifest = (archive / "versions" / "cache" / "versions.jsonl").read_text().splitlines()
        assert len(manifest) == 10_000 and json.loads(manifest[0])["size"] == len(FIRST) + 12


def test_what_the_kept_versions_take_is_shown(plans_dir: Path) -> None:
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3), "done.md": Plan("# Done COMPLETED\n", 20)})
    _weekly(plans_dir)
    (plans_dir / "cache.md").write_text(SECOND)
    _weekly(plans_dir)
    taken = {"plans": 1, "texts": 2, "bytes": len(FIRST) + len(SECOND)}
    assert run_process("archived", *dirs, "--json").json()["versions"] == taken
    assert run_process("config", *dirs, "--json").json()["versions"] == taken
    said = run_process("archived", *dirs).stderr
    assert f"2 kept texts of 1 plan take {len(FIRST) + len(SECOND)} B in" in said


def test_an_archive_that_takes_no_text_says_so_in_a_few_lines(plans_dir: Path) -> None:
    # A read-only archive: each plan would say the same; the run says it three times and
    # counts the rest, and moves on.
    plans = {f"live-{n}.md": Plan(f"# Live {n}\n", 3) for n in range(6)}
    make_files(plans_dir, plans)
    archive = plans_dir.parent / "plans-archive"
    archive.mkdir()
    archive.chmod(0o555)
    try:
        ran = run_process(
            "apply",
            "--rescan",
            "--yes",
            "--now",
            NOW_ISO,
            "--plans-dir",
            str(plans_dir),
            unprivileged=True,
        )
    finally:
        archive.chmod(0o755)
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    said = [line for line in (ran.stdout + ran.stderr).splitlines() if "not kept" in line]
    assert len(said) == 4, ran.stdout + ran.stderr
    assert said[-1] == "... and 3 more texts not kept, for now"
    assert sorted(p.name for p in plans_dir.iterdir()) == sorted(plans)


def test_hostile_texts_are_shown_escaped_and_a_far_future_date_is_no_error(
    plans_dir: Path, other_filesystem: Path
) -> None:
    # Plan text is untrusted: an escape sequence, markup, a 10 MB line. And an mtime no
    # calendar shows (tmpfs keeps it; ext4 would not).
    import os

    plans = other_filesystem / "plans"
    plans.mkdir()
    dirs = ("--plans-dir", str(plans))
    hostile = "# Plan\x1b[2J\n\n<script>alert(1)</script> <img src=x onerror=alert(1)>\n"
    (plans / "cache.md").write_text(hostile)
    _weekly(plans)
    (plans / "cache.md").write_text(hostile + "x" * 10_000_000 + "\n")
    os.utime(plans / "cache.md", ns=(10**21, 10**21))  # past year 9999
    listed = run_process("history", "cache", *dirs)
    assert listed.exit_code == 0, listed.stderr
    assert "  year > 9999  " in listed.stdout
    changes = run_process("diff", "cache", *dirs)
    assert changes.exit_code == 0, changes.stderr
    assert "\x1b" not in changes.stdout and "\\x1b[2J" in changes.stdout
    assert "+" + "x" * 1000 in changes.stdout


def test_a_same_size_edit_with_its_mtime_put_back_is_kept(plans_dir: Path) -> None:
    # `cp -p`, `rsync --inplace -t`: other bytes, the same size, the old mtime.
    import os

    plan = plans_dir / "cache.md"
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3)})
    _weekly(plans_dir)
    before = plan.stat()
    with plan.open("r+") as stream:
        stream.write(FIRST.replace("slow", "SLOW"))  # same size, in place: same inode
    os.utime(plan, ns=(before.st_atime_ns, before.st_mtime_ns))
    _weekly(plans_dir)
    listed = run_process("history", "cache", "--plans-dir", str(plans_dir), "--json").json()
    assert [v["current"] for v in listed["versions"]] == [False, True]
    assert [v["source"] for v in listed["versions"]] == ["seen in the plans dir"] * 2


def test_a_hand_archive_in_a_project_folder_keeps_none_of_its_files(plans_dir: Path) -> None:
    # `clarity archive` takes no --trust-plans-dir: pointed at a project (a mistaken
    # --plans-dir), it archives the plan named, and copies none of the project's notes.
    project = plans_dir.parent / "project"
    make_files(project, {"README.md": Plan("# Readme\n", 3), "notes.md": Plan("# Notes\n", 3)})
    (project / ".git").mkdir()
    (project / "plan.md").write_text("# A plan\n")
    ran = run_process("archive", "plan.md", "--plans-dir", str(project), "--yes")
    assert ran.exit_code == 0, ran.stdout + ran.stderr
    assert not (project / "plan.md").exists()
    assert not (project.parent / "project-archive" / "versions").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_diff_in_a_terminal_is_coloured_and_paged_as_git_diff(
    plans_dir: Path, tmp_path: Path
) -> None:
    """Issue 46: on a terminal, `clarity diff` colours the lines taken out and put in, and
    a diff longer than the screen goes through $PAGER; piped, it is the plain diff."""
    import os
    import pty

    from tests.builders.processes import drain

    long_first = FIRST + "".join(f"- note {n}\n" for n in range(60))
    make_files(plans_dir, {"cache.md": Plan(long_first, 3)})
    _weekly(plans_dir)
    (plans_dir / "cache.md").write_text(long_first.replace("1. Add a cache.", "1. Add two."))
    _weekly(plans_dir)
    seen = tmp_path / "paged.txt"
    pager = tmp_path / "pager.sh"
    pager.write_text(f'#!/bin/sh\ncat > "{seen}"\n')
    pager.chmod(0o755)
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", "diff", "cache", "--plans-dir", str(plans_dir)],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.DEVNULL,
        env={
            **{k: v for k, v in os.environ.items() if k != "NO_COLOR"},
            **{"PAGER": str(pager), "LINES": "5", "COLUMNS": "80"},
        },
    )
    os.close(terminal)
    drain(controller)
    assert process.wait(timeout=120) == 0
    paged = seen.read_text()
    assert "\x1b[31m-1. Add a cache.\x1b[m" in paged
    assert "\x1b[32m+1. Add two.\x1b[m" in paged
    piped = run_process("diff", "cache", "--plans-dir", str(plans_dir))
    assert "\x1b" not in piped.stdout and "-1. Add a cache.\n+1. Add two.\n" in piped.stdout


def test_history_suggests_a_diff_only_where_there_are_two_texts(plans_dir: Path) -> None:
    """Issue 46: a hint a person pastes works: one version has nothing to compare."""
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"cache.md": Plan(FIRST, 3)})
    _weekly(plans_dir)
    one = run_process("history", "cache", *dirs)
    assert "show cache --version N" in one.stderr and "clarity diff" not in one.stderr
    (plans_dir / "cache.md").write_text(SECOND)
    _weekly(plans_dir)
    two = run_process("history", "cache", *dirs)
    assert "compare two with clarity diff cache A B" in " ".join(two.stderr.split())
