"""Two applies at once on one directory: one moves, the other waits or stops; never twice."""

from __future__ import annotations

import json
import os
from pathlib import Path

from clarity.state import DirState
from tests.builders.corpus import leftovers, make_corpus, start_clarity
from tests.builders.files import NOW_ISO, contents, quarters_of, trash_files
from tests.builders.processes import run_process


def _where(plans_dir: Path, home: Path) -> list[Path]:
    archive = plans_dir.parent / "plans-archive"
    quarters = quarters_of(archive)
    return [plans_dir, *quarters, trash_files(home)]


def _index_names(plans_dir: Path) -> list[str]:
    index = plans_dir.parent / "plans-archive" / "index.jsonl"
    return [json.loads(line)["name"] for line in index.read_text().splitlines()]


def test_two_applies_of_one_scan_at_once_move_each_plan_once(
    plans_dir: Path, isolated_home: Path
) -> None:
    original = make_corpus(plans_dir, 1500)
    run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    env = {"CLARITY_LOCK_WAIT": "300"}
    first = start_clarity("apply", "--plans-dir", str(plans_dir), "--yes", env=env)
    second = start_clarity("apply", "--plans-dir", str(plans_dir), "--yes", env=env)
    outputs = [process.communicate(timeout=300) for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    said = [out.decode() for out, _ in outputs]
    assert sum("already applied" in text for text in said) == 1  # the one that waited
    assert contents(*_where(plans_dir, isolated_home)) == original
    names = _index_names(plans_dir)
    assert len(names) == len(set(names))
    assert leftovers(plans_dir.parent, isolated_home / ".local") == []


def test_two_rescanning_applies_at_once_move_each_plan_once(
    plans_dir: Path, isolated_home: Path
) -> None:
    original = make_corpus(plans_dir, 1500)
    args = ("apply", "--plans-dir", str(plans_dir), "--yes", "--rescan", "--now", NOW_ISO)
    env = {"CLARITY_LOCK_WAIT": "300"}
    processes = [start_clarity(*args, env=env) for _ in range(2)]
    outputs = [process.communicate(timeout=300) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    assert sum("nothing to apply" in out.decode() for out, _ in outputs) == 1
    assert contents(*_where(plans_dir, isolated_home)) == original
    names = _index_names(plans_dir)
    assert len(names) == len(set(names))


def test_an_apply_that_cannot_get_the_lock_in_time_stops_with_a_clear_line(
    plans_dir: Path, isolated_home: Path
) -> None:
    original = make_corpus(plans_dir, 50)
    run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    with DirState.for_plans_dir(plans_dir).lock():  # as a long apply would hold it
        second = run_process(
            "apply", "--plans-dir", str(plans_dir), "--yes", env={"CLARITY_LOCK_WAIT": "0.2"}
        )
    assert second.exit_code == 2
    assert second.stderr.startswith("clarity: error: another clarity run is moving plans in")
    assert f"(process {os.getpid()})" in second.stderr
    assert second.stderr.count("\n") == 1
    assert contents(plans_dir) == original  # it moved nothing
    after = run_process("apply", "--plans-dir", str(plans_dir), "--yes")
    assert after.exit_code == 0
    assert contents(*_where(plans_dir, isolated_home)) == original
