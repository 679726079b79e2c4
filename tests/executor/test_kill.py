"""kill -9 a real `clarity apply` at several points; the next run finishes the work.

Afterwards every plan's bytes exist exactly once (plans dir, archive or
trash), every archived plan has exactly one index record, and no half-made
copy is left anywhere.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from tests.builders.corpus import leftovers, make_corpus, run_count, start_clarity, wait_for_journal
from tests.builders.files import NOW_ISO, contents, quarters_of, trash_files
from tests.builders.processes import run_process

# Bytes of the new run's journal at which each successive apply is killed.
KILL_AT = (1, 2_000, 6_000, 60_000, 250_000, 500_000)


def _kill_repeatedly(plans_dir: Path, state_home: Path, kill_at: tuple[int, ...]) -> int:
    """Start apply, kill it once its journal reaches each size in turn; how many were killed."""
    killed = 0
    for size in kill_at:
        before = run_count(state_home)
        process = start_clarity("apply", "--plans-dir", str(plans_dir), "--yes")
        if wait_for_journal(process, state_home, before, size):
            process.kill()
            killed += 1
        process.communicate(timeout=120)
    return killed


def _check_everything_done_once(
    plans_dir: Path, archive: Path, home: Path, original: Counter[bytes]
) -> None:
    quarters = quarters_of(archive)
    where = [plans_dir, *quarters, trash_files(home)]
    assert contents(*where) == original  # every plan's bytes exactly once
    assert leftovers(plans_dir, archive, home / ".local") == []
    remaining = sorted(path.name for path in plans_dir.iterdir())
    assert all("live" in path.read_text() for path in plans_dir.iterdir()), remaining[:5]

    records = [json.loads(line) for line in (archive / "index.jsonl").read_text().splitlines()]
    names = Counter(record["name"] for record in records)
    assert max(names.values()) == 1  # no plan indexed twice
    archived = {p.name for q in quarters for p in q.iterdir() if "-agent-" not in p.name}
    assert set(names) == archived  # and none left out
    for record in records:
        assert (archive / record["path"]).is_file()
        for sub in record["subplans"]:
            assert (archive / sub["path"]).is_file()
    assert sum(len(r["subplans"]) for r in records) == sum(
        1 for q in quarters for p in q.iterdir() if "-agent-" in p.name
    )


def _run_with_kills(plans_dir: Path, archive: Path, home: Path, count: int) -> None:
    original = make_corpus(plans_dir, count)
    assert run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    state_home = home / ".local" / "state"
    killed = _kill_repeatedly(plans_dir, state_home, KILL_AT)
    assert killed >= 2, "the runs ended before they could be killed: use more plans"

    final = run_process("apply", "--plans-dir", str(plans_dir), "--yes")
    assert final.exit_code == 0, final.stderr + final.stdout
    again = run_process("apply", "--plans-dir", str(plans_dir), "--yes")
    assert "already applied" in again.stdout
    _check_everything_done_once(plans_dir, archive, home, original)
    for journal in sorted((state_home / "clarity" / "dirs").glob("*/runs/*.jsonl")):
        last = json.loads(journal.read_bytes().splitlines()[-1])
        assert last["op"] == "end", journal.name  # every run, killed or not, is settled


def test_an_apply_killed_at_several_points_is_finished_by_the_next_run(
    plans_dir: Path, isolated_home: Path
) -> None:
    _run_with_kills(plans_dir, plans_dir.parent / "plans-archive", isolated_home, 3000)


def test_a_killed_cross_filesystem_apply_leaves_no_half_copy(
    plans_dir: Path, isolated_home: Path
) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == plans_dir.stat().st_dev:
        pytest.skip("no second filesystem to move across")
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        archive = Path(folder) / "archive"
        config = isolated_home / ".config" / "clarity"
        config.mkdir(parents=True)
        (config / "config.toml").write_text(f'archive_dir = "{archive}"\n')
        _run_with_kills(plans_dir, archive, isolated_home, 1500)
        os.sync()


def test_ctrl_c_during_apply_says_what_is_left_and_the_next_run_finishes(
    plans_dir: Path, isolated_home: Path
) -> None:
    # Issue 23 item 6: Ctrl-C said nothing the person could act on.
    import signal

    original = make_corpus(plans_dir, 1500)
    assert run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    state_home = isolated_home / ".local" / "state"
    process = start_clarity("apply", "--plans-dir", str(plans_dir), "--yes")
    interrupted = wait_for_journal(process, state_home, run_count(state_home), 20_000)
    if interrupted:
        process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    if not interrupted:
        pytest.skip("the apply ended before it could be interrupted")
    assert process.returncode == 130, (process.returncode, err)
    said = err.decode().strip().splitlines()
    assert said[-1] == (
        "clarity: interrupted; the move under way is finished or rolled back by the next "
        "clarity command, and clarity undo puts back what this run moved"
    )
    assert run_process("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    archive = plans_dir.parent / "plans-archive"
    _check_everything_done_once(plans_dir, archive, isolated_home, original)
