"""Put an archived plan back: its group moved from the archive into the plans dir.

A restore is a run like apply's, in reverse: every file of the group (the
plan first, then its sub-plans) is announced in the journal, with one fsync,
before the first of them moves; each move is a no-replace rename (or a
verified copy across filesystems), so a plan that appeared in the plans dir
meanwhile is never replaced. Once the plan is back, its index record leaves
index.jsonl (a sub-plan that could not follow it is listed on its own) and
INDEX.md is rendered again; the plan's intent carries the whole record, so
that undo can put the plan back in the archive and the record back in the
index. A restore that a kill cut short is finished by
recovery when its plan had moved (the sub-plans follow it), and rolled back
when it had not.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarity.executor.group_records import regroup_all
from clarity.executor.indexing import NOTHING, IndexReport, update_index
from clarity.executor.journal import Journal, RunLog
from clarity.executor.moves import move_file
from clarity.executor.outcomes import carry_out, result_of
from clarity.executor.records import Ending, Intent, Move, Outcome, RunKind
from clarity.executor.results import ActionResult, RunReport, Status
from clarity.state import DirState


@dataclass(frozen=True, slots=True)
class ShelvedFile:
    """A file of an archived group, checked where it lies in the archive."""

    name: str  # its name in the plans dir
    src: Path  # where it is in the archive
    sha256: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class RestoreGroup:
    """An archived plan and its sub-plans, to be put back together."""

    record: dict[str, Any]  # the plan's index record, as index.jsonl holds it
    files: tuple[ShelvedFile, ...]  # the plan first

    @property
    def key(self) -> tuple[str, str]:
        return (str(self.record["run"]), str(self.record["path"]))


def _intents(journal: Journal, plans_dir: Path, group: RestoreGroup) -> list[Intent]:
    plan = group.files[0]
    run, path = group.key
    return [
        Intent(
            journal.next_seq(),
            Move.RESTORE,
            file.name,
            file.src,
            plans_dir / file.name,
            file.sha256,
            file.size,
            plan.name,
            mtime_ns=file.mtime_ns,
            from_run=run,
            record_path=path if file is plan else None,
            record=group.record if file is plan else None,
        )
        for file in group.files
    ]


def _move_all(
    journal: Journal,
    intents: Sequence[Intent],
    results: list[ActionResult],
    *,
    plan_first: bool = True,
) -> bool:
    """Announce the intents (one fsync), then move each; whether the first (the plan) moved.

    A file whose move fails keeps its place; when it is the plan (plan_first), its
    sub-plans stay with it.
    """
    for intent in intents:
        journal.intent(intent)
    journal.sync()
    plan_moved = False
    for index, intent in enumerate(intents):
        assert intent.dst is not None  # a restore always names where the file goes
        move = functools.partial(move_file, intent.src, intent.dst, intent.sha256)
        taken = f"a file named {intent.name} is in the plans dir; left at {intent.src}"
        outcome = carry_out(journal, intent.seq, intent.dst, move, taken)
        results.append(result_of(intent.name, Move.RESTORE, outcome))
        if outcome.done:
            plan_moved = plan_moved or index == 0
            continue
        if index == 0 and plan_first:  # the plan stayed: so do its sub-plans
            reason = f"its plan {intent.name} stayed in the archive"
            stays = Outcome(Ending.ROLLED_BACK, error=reason)
            for follower in intents[1:]:
                journal.outcome(follower.seq, stays)
                results.append(result_of(follower.name, Move.RESTORE, stays))
            break
    return plan_moved


def restore_group(
    state: DirState, plans_dir: Path, archive_dir: Path, group: RestoreGroup
) -> RunReport:
    """Move a checked group back into the plans dir, journaled. Call with the lock held."""
    journal = Journal.start(state, RunKind.RESTORE, plans_dir, archive_dir)
    results: list[ActionResult] = []
    index = NOTHING
    if _move_all(journal, _intents(journal, plans_dir, group), results):
        index = _relist(state, archive_dir, group.record)
    journal.close(state)
    return RunReport(
        RunKind.RESTORE,
        plans_dir,
        archive_dir,
        journal.path.name,
        tuple(results),
        notes=tuple(index.notes),
        problems=tuple(index.failed),
    )


def _relist(state: DirState, archive_dir: Path, record: dict[str, Any]) -> IndexReport:
    """The group's record out of the index; a sub-plan left in the archive (its name was
    taken in the plans dir) listed on its own, so that it can still be found and restored."""
    paths = [str(record["path"]), *(str(sub["path"]) for sub in record.get("subplans") or [])]
    change = regroup_all(archive_dir, [(str(record["run"]), paths, record)])
    return update_index(state, archive_dir, change.adds, removes=change.removes)


def finish_restore(state: DirState, log: RunLog, journal: Journal) -> list[str]:
    """After a kill (its moves in flight settled): if the plan had moved, every sub-plan
    still in the archive follows it, and the plan's record leaves the index; if it had
    not, nothing moved and nothing is left to do. Idempotent, like every step of recovery."""
    assert log.begin is not None
    plan = next((i for i in log.intents.values() if i.record is not None), None)
    if plan is None or not log.outcomes.get(plan.seq, Outcome(Ending.FAILED)).done:
        return []
    done = {intent.name for intent, _ in log.done()}
    again: dict[str, Intent] = {}
    for intent in log.intents.values():
        if intent.name in done or intent.name in again or intent.dst is None:
            continue
        if os.path.lexists(intent.src) and not os.path.lexists(intent.dst):
            again[intent.name] = dataclasses.replace(intent, seq=journal.next_seq())
    results: list[ActionResult] = []
    if again:
        _move_all(journal, list(again.values()), results, plan_first=False)
    index: IndexReport = NOTHING
    if plan.record is not None:
        index = _relist(state, log.begin.archive_dir, plan.record)
    failed = [f"{r.name}: {r.error or r.reason}" for r in results if r.status is not Status.DONE]
    return failed + index.failed + index.notes
