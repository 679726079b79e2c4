"""Two plans dirs sharing one archive: runs in each change its index at the same time,
and the index (index.jsonl, and INDEX.md made from it) still lists each archived file
once. Its lock is the archive's own (state.DirState.archive_lock), not a plans dir's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from clarity import state
from clarity.state import DirState
from tests.builders.corpus import make_corpus, start_clarity
from tests.builders.files import NOW_ISO, Plan, make_files, quarters_of
from tests.builders.processes import run_process


def _listed(archive: Path) -> tuple[Counter[str], list[str]]:
    """Each file the index's records name (plans and sub-plans), and the plans' paths."""
    files: Counter[str] = Counter()
    plans: list[str] = []
    for line in (archive / "index.jsonl").read_text().splitlines():
        record = json.loads(line)
        plans.append(record["path"])
        files[record["path"]] += 1
        files.update(sub["path"] for sub in record["subplans"])
    return files, plans


def _archived(archive: Path) -> Counter[str]:
    """The files in the archive's quarter folders, by path relative to the archive."""
    return Counter(
        path.relative_to(archive).as_posix()
        for folder in quarters_of(archive)
        for path in folder.iterdir()
    )


def _in_index_md(archive: Path) -> list[str]:
    """The plans INDEX.md lists, by path (each entry's line of facts opens with it)."""
    text = (archive / "INDEX.md").read_text()
    return re.findall(r"^`([^`]+)` · ", text, flags=re.MULTILINE)


def _check_index(archive: Path) -> None:
    """Each archived file listed by one record, each record's files there, and INDEX.md
    listing the records of index.jsonl."""
    files, plans = _listed(archive)
    archived = _archived(archive)
    figures = f"{len(plans)} records list {sum(files.values())} files; {len(archived)} archived"
    assert files == archived, figures
    assert sorted(_in_index_md(archive)) == sorted(plans)


def _meanwhile(process: subprocess.Popen[bytes], commands: Iterator[list[str]]) -> None:
    """Run commands one after another while the process runs; then wait for it."""
    for command in commands:
        if process.poll() is not None:
            break
        result = run_process(*command)
        assert result.exit_code == 0, result.stderr
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, (out, err)


def test_runs_in_two_dirs_sharing_an_archive_keep_its_index_whole(tmp_path: Path) -> None:
    # The hostile trial's race: restores and undo in one dir while the other applies and
    # undoes. Each changes index.jsonl by reading it, then appending or rewriting it: with
    # only a plans dir's lock, 6,000 plans lost about a tenth of their records every time.
    archive = tmp_path / "shared-archive"
    first, second = tmp_path / "a", tmp_path / "b"
    in_first = ("--plans-dir", str(first), "--archive-dir", str(archive))
    in_second = ["--plans-dir", str(second), "--archive-dir", str(archive), "--yes"]
    names = [f"b-{number:03d}.md" for number in range(100)]
    make_files(second, {name: Plan(f"# {name} COMPLETED\n\nDone.\n", 20) for name in names})
    put_away = run_process("apply", *in_second, "--rescan", "--now", NOW_ISO)
    assert put_away.exit_code == 0, put_away.stderr
    make_corpus(first, 6000)
    assert run_process("scan", *in_first, "--now", NOW_ISO).exit_code == 0
    restores = (["restore", name, *in_second] for name in names)

    _meanwhile(start_clarity("apply", *in_first, "--yes"), restores)
    _check_index(archive)
    # An undo of a restore puts its plan back in the archive: the index gets it again.
    undo_or_restore = (command for c in restores for command in (["undo", *in_second], c))
    _meanwhile(start_clarity("undo", *in_first, "--yes"), undo_or_restore)
    _check_index(archive)


def _index_names(archive: Path) -> list[str]:
    return sorted(
        json.loads(line)["name"] for line in (archive / "index.jsonl").read_text().splitlines()
    )


def _rescan_and_apply(plans_dir: Path, archive: Path) -> tuple[str, ...]:
    dirs = ("--plans-dir", str(plans_dir), "--archive-dir", str(archive))
    return ("apply", *dirs, "--yes", "--rescan", "--now", NOW_ISO)


def test_an_archive_locked_too_long_leaves_the_change_for_the_next_run(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive, plans_dir = tmp_path / "shared-archive", tmp_path / "a"
    make_files(plans_dir, {"done.md": Plan("# Done COMPLETED\n", 20)})
    monkeypatch.setattr(state, "ARCHIVE_LOCK_WAIT_SECONDS", 0.1)
    with DirState.for_plans_dir(tmp_path / "b").archive_lock(archive):  # another dir's run
        first = cli(*_rescan_and_apply(plans_dir, archive))
    assert first.exit_code == 1
    assert "was not updated (another clarity run held the archive's lock" in first.stdout
    assert (archive / "2026-Q4" / "done.md").is_file()  # the plan moved all the same
    assert not (archive / "index.jsonl").exists()
    make_files(plans_dir, {"late.md": Plan("# Late COMPLETED\n", 20)})
    second = cli(*_rescan_and_apply(plans_dir, archive))
    assert second.exit_code == 0, second.stdout
    assert _index_names(archive) == ["done.md", "late.md"]


def test_a_run_killed_holding_the_archive_lock_blocks_no_other(tmp_path: Path) -> None:
    archive, plans_dir = tmp_path / "shared-archive", tmp_path / "a"
    hold = (
        "import sys, time; from pathlib import Path; from clarity.state import DirState\n"
        "with DirState.for_plans_dir(Path(sys.argv[1])).archive_lock(Path(sys.argv[2])):\n"
        "    print('held', flush=True); time.sleep(600)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", hold, str(tmp_path / "b"), str(archive)], stdout=subprocess.PIPE
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        holder.kill()  # SIGKILL: no chance to let go of the lock
    make_files(plans_dir, {"done.md": Plan("# Done COMPLETED\n", 20)})
    result = run_process(*_rescan_and_apply(plans_dir, archive))  # waits 60 s if wedged
    assert result.exit_code == 0, result.stdout
    assert _index_names(archive) == ["done.md"]
