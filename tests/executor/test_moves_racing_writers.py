"""Issue 36 H1: a write that lands while a plan is moved to another filesystem is never lost.

Apply copied the plan into the archive, checked the copy against the scan,
then unlinked the original without looking at it again: a write in between
(an editor saving in place, a sync) was in neither folder. Each test writes at
one exact moment of a real move to a tmpfs (or, last, from another process
while applies run) and then looks for every byte it wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.builders.corpus import leftovers
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.processes import before_each_rename, run_json, run_process

TEXT = "# Cache layer -- Done\n\nWe put a read-through cache in front of search.\n"
ADDED = b"\nA line written while the plan was being moved.\n"


@pytest.fixture
def archive(other_filesystem: Path) -> Path:
    """An archive on another filesystem than the plans dir (a tmpfs), or skip."""
    return other_filesystem / "archive"


@pytest.fixture
def scanned(plans_dir: Path, archive: Path, cli) -> Path:
    make_files(plans_dir, {"done.md": Plan(TEXT, 20)})
    cli("scan", "--plans-dir", str(plans_dir), "--archive-dir", str(archive), "--now", NOW_ISO)
    return plans_dir


def _everything(*folders: Path) -> bytes:
    """Every byte of every file under folders (hidden ones too), in one blob."""
    return b"".join(
        path.read_bytes()
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    )


def _when_the_copy_lands(monkeypatch: pytest.MonkeyPatch, write) -> list[str]:
    """Call write() once, just before the verified copy takes its name in the archive:
    after the copy, before the original goes."""
    fired: list[str] = []

    def hook(src: Path, dst: Path) -> None:
        if src.name.endswith(".clarity-partial") and not fired:
            fired.append(dst.name)
            write()

    before_each_rename(monkeypatch, hook)
    return fired


def _apply_json(plans_dir: Path) -> dict[str, Any]:
    return run_json("apply", "--plans-dir", str(plans_dir), "--yes")[1]


def test_a_write_by_name_between_copy_and_unlink_is_kept(
    scanned: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An editor saving in place opens the plan by its name, appends, closes.
    def write() -> None:
        with (scanned / "done.md").open("ab") as stream:
            stream.write(ADDED)

    fired = _when_the_copy_lands(monkeypatch, write)
    result = _apply_json(scanned)
    assert fired == ["done.md"]
    assert ADDED in _everything(scanned, archive)  # was in neither folder
    assert (archive / "2026-Q4" / "done.md").read_text() == TEXT  # what was reviewed
    assert (scanned / "done.md").read_bytes() == ADDED  # the write made a file of its own
    assert result["results"][0]["status"] == "done"
    assert leftovers(scanned, archive) == []


def test_a_plan_another_program_holds_open_is_left_in_place(
    scanned: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A program that opened the plan before the apply (an editor, a sync) writes through
    # its descriptor at the worst moment, or, if the plan never left, after the apply.
    fd = os.open(scanned / "done.md", os.O_WRONLY | os.O_APPEND)
    try:
        fired = _when_the_copy_lands(monkeypatch, lambda: os.write(fd, ADDED))
        result = _apply_json(scanned)
        if not fired:
            os.write(fd, ADDED)
    finally:
        os.close(fd)
    assert ADDED in _everything(scanned, archive)
    assert (scanned / "done.md").read_bytes() == TEXT.encode() + ADDED
    assert not (archive / "2026-Q4" / "done.md").exists()
    [done] = result["results"]
    if sys.platform == "linux":  # a lease tells it is open before anything is copied
        assert fired == []
        assert (done["status"], done["reason"]) == (
            "skipped",
            "open in another program; left in place (apply again later)",
        )
    assert leftovers(scanned, archive) == []


def _apply_in_a_thread(plans_dir: Path) -> dict[str, Any]:
    """The apply in a thread that is not the main one, where no lease can be taken (as on a
    system without leases): the re-reads alone must catch the write."""
    answer: list[dict[str, Any]] = []
    thread = threading.Thread(target=lambda: answer.append(_apply_json(plans_dir)))
    thread.start()
    thread.join(60)
    return answer[0]


def test_without_a_lease_a_write_before_the_unlink_sends_the_plan_back(
    scanned: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fd = os.open(scanned / "done.md", os.O_WRONLY | os.O_APPEND)
    try:
        fired = _when_the_copy_lands(monkeypatch, lambda: os.write(fd, ADDED))
        result = _apply_in_a_thread(scanned)
    finally:
        os.close(fd)
    assert fired == ["done.md"]
    assert (scanned / "done.md").read_bytes() == TEXT.encode() + ADDED
    assert not (archive / "2026-Q4" / "done.md").exists()  # its copy taken back
    [done] = result["results"]
    assert done["status"] == "skipped"
    assert done["reason"].startswith("changed while it was being moved; left in place")
    assert leftovers(scanned, archive) == []


def test_without_a_lease_a_write_just_after_the_unlink_comes_back(
    scanned: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The last moment: the original's name is gone, a program still holding it writes.
    fd = os.open(scanned / "done.md", os.O_WRONLY | os.O_APPEND)
    real_unlink = os.unlink
    fired: list[str] = []

    def unlink(path, *args, **kwargs):
        real_unlink(path, *args, **kwargs)
        if Path(os.fsdecode(path)).parent == scanned and not fired:
            fired.append(Path(os.fsdecode(path)).name)
            os.write(fd, ADDED)

    monkeypatch.setattr(os, "unlink", unlink)
    try:
        result = _apply_in_a_thread(scanned)
    finally:
        os.close(fd)
    assert fired
    assert ADDED in _everything(scanned, archive)
    assert (scanned / "done.md").read_bytes() == TEXT.encode() + ADDED
    assert (scanned / "done.md").stat().st_mtime_ns > 0
    assert not (archive / "2026-Q4" / "done.md").exists()
    assert result["results"][0]["status"] == "skipped"
    assert leftovers(scanned, archive) == []


WRITER = textwrap.dedent(
    """
    import os, random, sys, time
    plans, how, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    names = sorted(n for n in os.listdir(plans) if n.endswith(".md"))
    held = {}
    if how == "held":  # fds kept open from before the apply, as an editor may
        for name in names[::2]:
            held[name] = os.open(os.path.join(plans, name), os.O_WRONLY | os.O_APPEND)
    print("ready", flush=True)
    while len(os.listdir(plans)) >= len(names) and not os.path.exists(stop):
        time.sleep(0.0002)  # until the apply has begun to move: before, a write only skips
    number = 0
    while not os.path.exists(stop):
        name = random.choice(names)
        line = f"written-{how}-{number:06d}\\n".encode()
        try:
            if name in held:
                os.write(held[name], line)
            else:  # opened by name each time, as a save in place does
                fd = os.open(os.path.join(plans, name), os.O_WRONLY | os.O_APPEND)
                os.write(fd, line)
                os.close(fd)
        except OSError:
            pass  # the name is gone this instant: nothing was written
        else:
            print(line.decode(), end="", flush=True)
        number += 1
        time.sleep(0.0002)
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="a held plan is told by a Linux lease")
@pytest.mark.parametrize("how", ["by-name", "held"])
def test_writers_racing_real_applies_lose_nothing(
    plans_dir: Path, archive: Path, tmp_path: Path, how: str
) -> None:
    # A program that keeps writing through a descriptor after the plan left would write
    # into a file that is gone: only a lease (Linux) tells such a plan is held, and then
    # it is not moved. Without one, the re-reads catch what landed up to the unlink (the
    # tests above), as far as any move across filesystems can.
    # Plans of 256 KiB: each copy and its checks take long enough for writes to land.
    body = "a line of the plan\n" * 14_000
    plans = {f"done-{n:02d}.md": Plan(f"# Plan {n} COMPLETED\n\n{body}", 20) for n in range(40)}
    dirs = ("--plans-dir", str(plans_dir), "--archive-dir", str(archive))
    lost: list[str] = []
    for trial in range(4):
        for path in plans_dir.iterdir():
            path.unlink()
        make_files(plans_dir, plans)
        run_process("scan", *dirs, "--now", NOW_ISO)
        stop = tmp_path / f"stop-{trial}"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(plans_dir), how, str(stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
            applied = run_process("apply", *dirs, "--yes")
            assert applied.exit_code in (0, 1), applied.stderr
        finally:
            stop.touch()
            written, _ = writer.communicate(timeout=60)
        kept = set(_everything(plans_dir, archive).decode().splitlines())
        lost += [line for line in written.splitlines() if line not in kept]
        assert leftovers(plans_dir, archive) == []
    assert lost == [], f"{len(lost)} writes lost"
