"""Settle a run that a kill interrupted, before anything else touches the directory.

For each move the journal announced but never concluded, the files say what
happened: the source still in place means it did not happen (rolled back, a
half-made copy removed, in the archive or the trash); the file at its
destination means it did (finished, a source left behind by a verified copy
unlinked). Then an apply's group in progress is finished, missing index
records are written, and the run is closed as interrupted. Every step is
idempotent: a kill during recovery is settled by the next one. What recovery
cannot do (an index it cannot write, a journal it cannot read) it says, and
leaves for later: it never stops the command that called it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from datetime import datetime
from pathlib import Path

from clarity.archive.layout import read_index_lines, record_key, relative_path
from clarity.executor.apply import group_from_record, settled_names
from clarity.executor.journal import (
    MOVING_RUNS,
    Journal,
    RunLog,
    load_runs,
    read_run,
    set_aside_damage,
)
from clarity.executor.mover import GroupMover
from clarity.executor.moves import put_back
from clarity.executor.records import Ending, Intent, Move, Outcome, RunKind
from clarity.executor.restore import finish_restore
from clarity.executor.results import ActionResult, Status
from clarity.executor.trash import freedesktop, locate, remove_strays
from clarity.executor.trash_layout import trash_dirs
from clarity.executor.undo import Restorable, finish_groups, plan_undo, relist
from clarity.fsio import claim_path, fsync_dir, partial_path, same_bytes, sweep_temps
from clarity.model import Action
from clarity.printable import counted
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
            return Outcome(Ending.DONE, dst, intent.info)
        return Outcome(Ending.ROLLED_BACK, error="the destination holds another file; source kept")
    if src_there:
        return Outcome(Ending.ROLLED_BACK, error="interrupted before it moved")
    if dst_there:
        return Outcome(Ending.DONE, dst, intent.info)
    return Outcome(Ending.FAILED, error="found neither at its source nor at its destination")


def _settle_trash(intent: Intent, started: datetime | None) -> Outcome:
    if os.path.lexists(intent.src):
        # The trash may hold a copy a kill cut short (send2trash copies across
        # filesystems): its bytes are all still in the source, so it goes.
        remove_strays(intent.src, started)
        return Outcome(Ending.ROLLED_BACK, error="interrupted before it reached the trash")
    entry = locate(intent.src, intent.sha256, intent.size, intent.mtime_ns)
    if entry is not None:
        return Outcome(Ending.DONE, entry.file, entry.info)
    if not freedesktop():
        return Outcome(Ending.DONE)
    return Outcome(Ending.FAILED, error="no longer in the plans dir and not found in the trash")


def _settle_claim(intent: Intent, claim: Path) -> Outcome | None:
    """A kill during a move across filesystems left the source renamed aside (claim_path).
    If the verified copy is in place and the claim still holds the same bytes, only the
    unlink was left; otherwise the claim goes back to its name (the copy, if any, away).
    None: the claim is back at its name, and the usual settling follows."""
    info = intent.info
    if intent.dst is not None:
        with contextlib.suppress(OSError):
            partial_path(intent.dst).unlink()  # a copy cut short; the claim is whole
        there = intent.dst if same_bytes(intent.dst, intent.sha256) else None
    else:
        entry = locate(intent.src, intent.sha256, intent.size, intent.mtime_ns)
        there, info = (entry.file, entry.info) if entry is not None else (None, None)
    if there is not None and same_bytes(claim, intent.sha256):
        claim.unlink()
        fsync_dir(claim.parent)
        return Outcome(Ending.DONE, there, info)
    back = put_back(claim, intent.src)
    if there is not None and intent.dst is not None:
        with contextlib.suppress(OSError):
            there.unlink()  # the copy of a text the claim no longer holds; the claim is kept
    if back != intent.src:
        return Outcome(Ending.ROLLED_BACK, error=f"interrupted; put back as {back.name}")
    return None


def settle(intent: Intent, started: datetime | None = None) -> Outcome:
    claim = claim_path(intent.src)
    outcome = _settle_claim(intent, claim) if os.path.lexists(claim) else None
    if intent.dst is None:
        return outcome or _settle_trash(intent, started)
    outcome = outcome or _settle_move(intent, intent.dst)
    if intent.move is Move.RESTORE and outcome.done and intent.info is not None:
        with contextlib.suppress(OSError):
            intent.info.unlink()  # the trash record of a file already restored
    return outcome


def _finish_apply(state: DirState, log: RunLog, journal: Journal) -> list[str]:
    """Finish each group whose plan had moved; index every archived group once."""
    assert log.begin is not None  # an unreadable journal is set aside, never resumed
    archive_dir = log.begin.archive_dir
    mover = GroupMover(state, journal, log.begin.plans_dir, archive_dir)
    moved = settled_names(log)
    left_alone = {skip.name for skip in log.skips} | {
        log.intents[seq].name
        for seq, outcome in log.outcomes.items()
        if outcome.ending is Ending.FAILED and seq in log.intents
    }
    settled = left_alone | set(moved)
    indexed = _indexed(archive_dir)
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
                continue  # finished and indexed before the kill: not summarized again
        done = {p.name: moved[p.name] for p, _ in planned if p.name in moved}
        # A group not known to be indexed gets its record again: the index takes it once.
        mover.resume(group, [(p, dst) for p, dst in planned if p.name not in left_alone], done)
    mover.flush()
    if archived:
        mover.write_index(render=True)
    return mover.problems + mover.notes


def _indexed(archive_dir: Path) -> set[tuple[str, str]]:
    """Keys of the index's records; none known if it cannot be read (all are offered)."""
    try:
        lines = read_index_lines(archive_dir)
    except OSError:
        return set()
    return {record_key(line.record) for line in lines if line.record is not None}


def _finish_undo(state: DirState, log: RunLog, journal: Journal) -> list[str]:
    """Finish each group the undo had begun (a kill must not leave a group half back: the
    rest of it follows), then list in the index what the archive holds of those groups."""
    assert log.begin is not None
    touched = {(intent.from_run, intent.group) for intent, _ in log.done()}
    if not touched:
        return []
    logs = [other for other in load_runs(state).logs if other.name != log.name]
    logs.append(log)  # as settled just now
    archive_dir = log.begin.archive_dir
    plan = plan_undo(logs, log.begin.plans_dir, archive_dir)
    results: list[ActionResult] = []
    if plan is not None and set(plan.runs) <= set(log.begin.undoes):
        left = tuple(item for item in plan.items if (item.run, item.intent.group) in touched)
        if left:
            results = finish_groups(journal, dataclasses.replace(plan, items=left))
    groups = [
        Restorable(run.name, intent, outcome)
        for run in logs
        if run.name in log.begin.undoes
        for intent, outcome in run.done()
        if (run.name, intent.group) in touched
    ]
    index = relist(state, archive_dir, groups)
    failed = [f"{r.name}: {r.error or r.reason}" for r in results if r.status is not Status.DONE]
    return failed + index.failed + index.notes


def _started(log: RunLog) -> datetime | None:
    try:
        return datetime.fromisoformat(log.begin.started_at) if log.begin else None
    except ValueError:
        return None


def _sweep_trash_claims(log: RunLog) -> None:
    """The record a killed trasher was writing (`.clarity-claim.<pid>.tmp` in the trash's
    info/): removed now, not only when a later run happens to trash something there."""
    folders = {intent.info.parent for intent in log.intents.values() if intent.info is not None}
    for intent in log.intents.values():
        if intent.move is Move.TRASH:  # its record's name was not journaled yet
            folders.update(trash.folder / "info" for trash in trash_dirs(intent.src))
    for folder in folders:
        sweep_temps(folder / "clarity-claim")


def recover(state: DirState) -> list[str]:
    """Settle the interrupted run, if any; lines saying what was done and what is left.
    Hold the lock."""
    run_file = state.running_run()
    if run_file is None:
        return []
    if not run_file.exists():
        state.mark_running(None)
        return []
    log = read_run(run_file)
    notes = [note] if (note := set_aside_damage(log)) is not None else []
    if log.begin is None or log.end is not None:
        state.mark_running(None)  # it ended (only the marker's removal was cut short), or unusable
        return notes
    journal = Journal.resume(log)
    counts = dict.fromkeys(Ending, 0)
    started = _started(log)
    for intent in log.in_flight():
        outcome = settle(intent, started)
        journal.outcome(intent.seq, outcome)
        log.outcomes[intent.seq] = outcome
        counts[outcome.ending] += 1
    if log.kind in MOVING_RUNS:  # an apply or a hand archive: both move groups
        problems = _finish_apply(state, log, journal)
    elif log.kind is RunKind.UNDO:
        problems = _finish_undo(state, log, journal)
    else:
        problems = finish_restore(state, log, journal)
    journal.close(state, interrupted=True)
    _sweep_trash_claims(log)
    failed = counts[Ending.FAILED]
    notes.append(
        f"settled {log.label}, which was interrupted: "
        f"{counted(counts[Ending.DONE], 'move')} finished, {counts[Ending.ROLLED_BACK]} rolled back"
        + (f", {failed} not found" if failed else "")
    )
    return notes + problems
