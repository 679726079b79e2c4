"""Settle a run that a kill interrupted, before anything else touches the directory.

For each move the journal announced but never concluded, the files say what
happened: the source still in place means it did not happen (rolled back, a
half-made copy removed); the file at its destination means it did (finished,
a source left behind by a verified copy unlinked). Then an apply's group in
progress is finished, missing index records are written, and the run is
closed as interrupted. Every step is idempotent: a kill during recovery is
settled by the next one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from clarity.archive import (
    read_index,
    record_key,
    relative_path,
    remove_from_index,
    write_index_md,
)
from clarity.executor.apply import group_from_record, settled_names
from clarity.executor.journal import MOVING_RUNS, Intent, Journal, Outcome, RunLog, read_run
from clarity.executor.mover import GroupMover
from clarity.executor.trash import freedesktop, locate
from clarity.fsio import fsync_dir, partial_path, same_bytes
from clarity.model import Action
from clarity.state import DirState


def _settle_move(intent: Intent, dst: Path) -> Outcome:
    partial = partial_path(dst)
    src_there = os.path.lexists(intent.src)
    if src_there and os.path.lexists(partial):
        with contextlib.suppress(OSError):
            partial.unlink()  # a copy that never completed; the source is whole
    dst_there = os.path.lexists(dst)
    if src_there and dst_there:
        if same_bytes(dst, intent.sha256) and same_bytes(intent.src, intent.sha256):
            intent.src.unlink()  # the verified copy was in place; only the unlink was left
            fsync_dir(intent.src.parent)
            return Outcome("done", dst, _info(intent))
        return Outcome("rolled_back", error="the destination holds another file; source kept")
    if src_there:
        return Outcome("rolled_back", error="interrupted before it moved")
    if dst_there:
        return Outcome("done", dst, _info(intent))
    return Outcome("failed", error="found neither at its source nor at its destination")


def _info(intent: Intent) -> Path | None:
    info = intent.extra.get("info")
    return Path(info) if info else None


def _settle_trash(intent: Intent) -> Outcome:
    if os.path.lexists(intent.src):
        return Outcome("rolled_back", error="interrupted before it reached the trash")
    entry = locate(intent.src, intent.sha256, intent.size)
    if entry is not None:
        return Outcome("done", entry.file, entry.info)
    if not freedesktop():
        return Outcome("done")
    return Outcome("failed", error="no longer in the plans dir and not found in the trash")


def settle(intent: Intent) -> Outcome:
    if intent.dst is None:
        return _settle_trash(intent)
    outcome = _settle_move(intent, intent.dst)
    info = _info(intent)
    if intent.op == "restore" and outcome.status == "done" and info is not None:
        with contextlib.suppress(OSError):
            info.unlink()  # the trash record of a file already restored
    return outcome


def _finish_apply(log: RunLog, journal: Journal) -> None:
    """Finish each group whose plan had moved; index every archived group once."""
    archive_dir = Path(log.begin["archive_dir"])
    mover = GroupMover(journal, Path(log.begin["plans_dir"]), archive_dir)
    moved = settled_names(log)
    left_alone = {str(skip["name"]) for skip in log.skips} | {
        log.intents[seq].name for seq, outcome in log.outcomes.items() if outcome.status == "failed"
    }
    indexed = {record_key(record) for record in read_index(archive_dir)}
    settled = left_alone | set(moved)
    archived = False
    for record in log.groups:
        group, planned = group_from_record(record)
        if group.plan.name not in moved:
            continue  # the plan moves first: none of this group moved, apply redoes it
        archiving = group.action is Action.ARCHIVE
        archived = archived or archiving
        if all(p.name in settled for p, _ in planned):
            plan_dst = moved[group.plan.name]
            if not archiving or plan_dst is None:
                continue  # a trash group with nothing left to do
            if (log.name, relative_path(plan_dst, archive_dir)) in indexed:
                continue  # finished and indexed before the kill
        done = {p.name: moved[p.name] for p, _ in planned if p.name in moved}
        mover.resume(group, [(p, dst) for p, dst in planned if p.name not in left_alone], done)
    mover.flush()
    if archived:
        mover.records[:] = [r for r in mover.records if record_key(r) not in indexed]
        mover.write_index()
        write_index_md(archive_dir)


def _finish_undo(log: RunLog) -> None:
    archive_dir = Path(log.begin["archive_dir"])
    keys = {
        (str(intent.extra["from_run"]), str(intent.extra["record_path"]))
        for intent, _ in log.done()
        if intent.extra.get("record_path")
    }
    if keys and archive_dir.is_dir():
        remove_from_index(archive_dir, keys)
        write_index_md(archive_dir)


def recover(state: DirState) -> str | None:
    """Settle the interrupted run, if any; a line saying what was done. Hold the lock."""
    run_file = state.running_run()
    if run_file is None:
        return None
    if not run_file.exists():
        state.mark_running(None)
        return None
    log = read_run(run_file)
    if log.end is not None:
        state.mark_running(None)  # it ended; only the marker's removal was cut short
        return None
    journal = Journal.resume(log)
    counts = {"done": 0, "rolled_back": 0, "failed": 0}
    for intent in log.in_flight():
        outcome = settle(intent)
        journal.outcome(intent.seq, outcome)
        log.outcomes[intent.seq] = outcome
        counts[outcome.status] += 1
    if log.kind in MOVING_RUNS:  # an apply or a hand archive: both move groups
        _finish_apply(log, journal)
    elif log.kind == "undo":
        _finish_undo(log)
    journal.close(state, interrupted=True)
    return (
        f"settled the interrupted {log.kind} run {log.name}: "
        f"{counts['done']} move(s) finished, {counts['rolled_back']} rolled back"
        + (f", {counts['failed']} not found" if counts["failed"] else "")
    )
