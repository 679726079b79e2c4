"""One OS trash for every plans dir: namesakes trashed at once, by clarity or another
trasher, each keep their bytes; a name claimed is never replaced."""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders.corpus import leftovers, start_clarity
from tests.builders.files import NOW_ISO, Plan, contents, make_files, quarters_of, trash_files
from tests.builders.processes import before_each_rename, run_process

NAME_MAX = 255  # bytes in a name on Linux filesystems


def _stubs(plans_dir: Path, numbers: range) -> Counter[bytes]:
    """Small, 40-day-old stubs named as in the other dir, each with bytes of its own."""
    tree = {f"stub-{n:05d}.md": Plan(f"# stub {plans_dir.name} {n}\n", 40) for n in numbers}
    make_files(plans_dir, tree)
    return contents(plans_dir)


def test_two_applies_trashing_namesakes_at_once_lose_no_plan(
    tmp_path: Path, isolated_home: Path
) -> None:
    # The hostile trial's race: dir a holds stub-00000..03999, dir b the even names;
    # b's apply starts while a's runs and catches up with it in the names. With
    # send2trash's check-then-rename, 3 rounds in 8 lost one to three stubs.
    for round_number, delay in enumerate((0.1, 0.15, 0.2, 0.25)):
        first = tmp_path / f"round{round_number}" / "a"
        second = first.with_name("b")
        everything = _stubs(first, range(4000)) + _stubs(second, range(0, 4000, 2))
        for plans_dir in (first, second):
            assert (
                run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
            )
        running = [start_clarity("apply", "--plans-dir", str(first), "--yes")]
        time.sleep(delay)
        running.append(start_clarity("apply", "--plans-dir", str(second), "--yes"))
        said = [process.communicate(timeout=300) for process in running]
        assert [process.returncode for process in running] == [0, 0], said
        trash = trash_files(isolated_home)
        assert contents(trash) == everything  # every stub there, once: none replaced
        infos = trash.parent / "info"
        assert len(list(infos.iterdir())) == len(list(trash.iterdir()))  # one record each
        for plans_dir in (first, second):
            assert run_process("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
        assert contents(first, second) == everything  # each back in its own dir, exactly
        assert list(trash.iterdir()) == [] and list(infos.iterdir()) == []


@pytest.fixture
def racing_trasher(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Another program that drops a file into the trash, without a record, at the very
    name clarity's move is about to take (whichever rename clarity uses)."""
    dropped: list[Path] = []

    def drop(src: Path, dst: Path) -> None:
        if dst.parent.name == "files" and not dropped:
            dst.write_text("another program's file\n")
            dropped.append(dst)

    before_each_rename(monkeypatch, drop)
    return dropped


def test_a_name_taken_between_the_claim_and_the_move_is_passed_over(
    cli, plans_dir: Path, isolated_home: Path, racing_trasher: list[Path]
) -> None:
    make_files(plans_dir, {"stub.md": Plan("# stub\n", 10)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert result.exit_code == 0
    files = trash_files(isolated_home)
    assert racing_trasher == [files / "stub.md"]
    assert (files / "stub.md").read_text() == "another program's file\n"
    assert result.json()["results"][0]["destination"] == str(files / "stub 1.md")
    assert (files / "stub 1.md").read_text() == "# stub\n"
    info = files.parent / "info"
    assert sorted(path.name for path in info.iterdir()) == ["stub 1.md.trashinfo"]
    assert cli("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert (plans_dir / "stub.md").read_text() == "# stub\n"
    assert (files / "stub.md").read_text() == "another program's file\n"


def test_a_record_left_without_its_file_keeps_its_name(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # A trasher that has written its record and not yet moved its file owns the name.
    info = trash_files(isolated_home).parent / "info"
    make_files(info, {"stub.md.trashinfo": "[Trash Info]\nPath=/elsewhere/stub.md\n"})
    make_files(plans_dir, {"stub.md": Plan("# stub\n", 10)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")
    files = trash_files(isolated_home)
    assert result.json()["results"][0]["destination"] == str(files / "stub 1.md")
    assert not (files / "stub.md").exists()
    assert (info / "stub.md.trashinfo").read_text().endswith("/elsewhere/stub.md\n")


def test_a_plan_with_a_name_of_255_bytes_goes_to_the_trash_and_back(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    names = ["s" * (NAME_MAX - 3) + ".md", "é" * ((NAME_MAX - 3) // 2) + ".md"]
    make_files(plans_dir, {name: Plan(f"# stub {n}\n", 10) for n, name in enumerate(names)})
    before = contents(plans_dir)
    files = trash_files(isolated_home)
    make_files(files, {names[0]: "someone else's\n"})  # the first name is taken: ' 1' added
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert result.exit_code == 0, result.stdout
    assert {item["status"] for item in result.json()["results"]} == {"done"}
    assert all(len(os.fsencode(path.name)) <= NAME_MAX for path in files.parent.rglob("*"))
    assert cli("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert contents(plans_dir) == before


@pytest.fixture(params=["across filesystems", "same filesystem"])
def trash_elsewhere(
    request: pytest.FixtureRequest, isolated_home: Path, plans_dir: Path
) -> Iterator[Path]:
    """The home trash on another filesystem than the plans (a tmpfs, or skip), or on the
    same one."""
    if request.param == "same filesystem":
        yield plans_dir.parent / "data"
        return
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == plans_dir.stat().st_dev:
        pytest.skip("no second filesystem to trash across")
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        yield Path(folder)


def test_a_plan_the_plans_dir_will_not_let_go_leaves_no_copy_in_the_trash(
    plans_dir: Path, trash_elsewhere: Path, isolated_home: Path
) -> None:
    make_files(plans_dir, {"stub.md": Plan("# stub\n", 10)})
    env = {"XDG_DATA_HOME": str(trash_elsewhere)}
    where = ("--plans-dir", str(plans_dir))
    assert run_process("scan", *where, "--now", NOW_ISO, env=env).exit_code == 0
    plans_dir.chmod(0o555)
    try:
        completed = run_process("apply", *where, "--yes", env=env, unprivileged=True)
    finally:
        plans_dir.chmod(0o755)
    assert completed.exit_code == 1, completed.stdout
    assert f"cannot write in {plans_dir}" in completed.stdout
    assert (plans_dir / "stub.md").read_text() == "# stub\n"
    trash = trash_elsewhere / "Trash"
    assert [path for path in trash.rglob("*") if path.is_file()] == []  # no copy, no record
    assert leftovers(trash_elsewhere) == []


def test_a_claim_a_killed_run_left_half_made_is_swept_and_no_record_is_empty(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # A record is written beside its name and linked into place: a kill leaves this
    # process's claim file (a dead pid's), never an empty .trashinfo nothing can place.
    info = trash_files(isolated_home).parent / "info"
    make_files(info, {".clarity-claim.999999999.tmp": "[Trash Info]\nPath=/x/stub.md\n"})
    make_files(plans_dir, {f"stub{n}.md": Plan(f"# stub {n}\n", 10) for n in range(3)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert cli("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    records = sorted(path.name for path in info.iterdir())
    assert records == [f"stub{n}.md.trashinfo" for n in range(3)]
    assert all(b"\nPath=" in (info / name).read_bytes() for name in records)


def test_a_plan_the_plans_dir_will_not_let_go_leaves_no_copy_in_the_archive(
    plans_dir: Path, trash_elsewhere: Path
) -> None:
    # Issue 23 item 3: full copies were left in the archive outside the index, the error
    # named the archive's folder, and the next run archived the plan as done.2.md.
    make_files(plans_dir, {"done.md": Plan("# Done COMPLETED\n", 20)})
    archive = trash_elsewhere / "archive"
    where = ("--plans-dir", str(plans_dir), "--archive-dir", str(archive))
    assert run_process("scan", *where, "--now", NOW_ISO).exit_code == 0
    plans_dir.chmod(0o555)
    try:
        failed = run_process("apply", *where, "--yes", unprivileged=True)
    finally:
        plans_dir.chmod(0o755)
    assert failed.exit_code == 1, failed.stdout
    assert f"cannot write in {plans_dir}" in failed.stdout
    quarters = quarters_of(archive)  # (the kept versions are copies, kept on purpose)
    assert not [p for quarter in quarters for p in quarter.rglob("*.md")]
    assert leftovers(trash_elsewhere) == []
    again = run_process("apply", *where, "--yes", "--json")
    assert again.exit_code == 0
    (done,) = again.json()["results"]
    assert Path(done["destination"]).name == "done.md"
