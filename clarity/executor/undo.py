"""Undo the latest apply: archived files moved back, trashed files restored.

The latest apply is every run that carried out the most recent proposal
not yet undone (an apply a kill interrupted and a later apply finished are
one apply). A file is never put back over one that appeared since: if any
file of a group has a namesake in the plans dir again, the whole group stays
where it is and the result says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clarity.archive import relative_path, remove_from_index, write_index_md
from clarity.executor.journal import MOVING_RUNS, Batch, Intent, Journal, Outcome, read_runs
from clarity.executor.moves import error_text, move_file
from clarity.executor.results import ActionResult, RunReport, Status
from clarity.executor.trash import TrashedFile, freedesktop, restore
from clarity.state import DirState


@dataclass(frozen=True, slots=True)
class Restorable:
    """A file an apply moved, that undo would put back."""

    run: str  # the apply run that moved it
    intent: Intent
    outcome: Outcome

    @property
    def name(self) -> str:
        return self.intent.name

    @property
    def from_trash(self) -> bool:
        return self.intent.op == "trash"

    @property
    def where(self) -> Path | None:
        return self.outcome.dst

    @property
    def trash_info(self) -> Path | None:
        """The trash's record of a trashed file, which goes when the file comes back."""
        return self.outcome.info if self.from_trash else None


@dataclass(frozen=True, slots=True)
class UndoPlan:
    runs: tuple[str, ...]  # the apply runs being undone
    items: tuple[Restorable, ...]
    plans_dir: Path
    archive_dir: Path


def plan_undo(state: DirState, plans_dir: Path, archive_dir: Path) -> UndoPlan | None:
    """What undo would restore; None when no apply is left to undo."""
    logs = read_runs(state)
    undone_runs: set[str] = set()
    restored: set[tuple[str, int]] = set()
    for log in logs:
        if log.kind != "undo":
            continue
        if not log.interrupted:
            undone_runs.update(str(run) for run in log.begin.get("undoes", []))
        for intent, _ in log.done():
            restored.add((str(intent.extra["from_run"]), int(intent.extra["from_seq"])))
    applies = [log for log in logs if log.kind in MOVING_RUNS and log.name not in undone_runs]
    while applies:
        latest = applies[-1]
        runs = [log for log in applies if log.proposal == latest.proposal and log.proposal]
        runs = runs or [latest]
        items = tuple(
            Restorable(log.name, intent, outcome)
            for log in runs
            for intent, outcome in log.done()
            if (log.name, intent.seq) not in restored
        )
        if items:
            return UndoPlan(
                tuple(log.name for log in runs),
                items,
                Path(latest.begin.get("plans_dir") or plans_dir),
                Path(latest.begin.get("archive_dir") or archive_dir),
            )
        applies = [log for log in applies if log not in runs]  # it moved nothing: look further
    return None


def _groups(items: Iterable[Restorable]) -> dict[tuple[str, str], list[Restorable]]:
    groups: dict[tuple[str, str], list[Restorable]] = {}
    for item in items:
        groups.setdefault((item.run, item.intent.group), []).append(item)
    return groups


def _record_path(item: Restorable, archive_dir: Path) -> str | None:
    """The index key's path of the record an archived plan (not a sub-plan) heads."""
    if item.from_trash or item.name != item.intent.group or item.where is None:
        return None
    try:
        return relative_path(item.where, archive_dir)
    except ValueError:
        return None


class _Undoer:
    """Restores groups; like apply, it announces a batch of moves under one fsync."""

    def __init__(self, journal: Journal, plan: UndoPlan) -> None:
        self.journal = journal
        self.plan = plan
        self.results: list[ActionResult] = []
        self.unindex: set[tuple[str, str]] = set()
        self._batch: Batch[tuple[Restorable, Intent]] = Batch(journal, self.restore)

    def result(
        self,
        item: Restorable,
        status: Status,
        *,
        destination: Path | None = None,
        error: str | None = None,
        reason: str | None = None,
    ) -> None:
        self.results.append(
            ActionResult(item.name, "restore", status, destination, error=error, reason=reason)
        )

    def run_group(self, items: list[Restorable]) -> None:
        back = [item for item in items if os.path.lexists(self.plan.plans_dir / item.name)]
        if back:
            self.flush()  # the batch first: results stay in order
            names = ", ".join(item.name for item in back)
            for item in items:
                reason = (
                    f"a file named {names} is in the plans dir again; "
                    f"left at {item.where or 'the trash'}"
                )
                self.journal.write(
                    "skip", sync=False, name=item.name, action="restore", reason=reason
                )
                self.result(item, Status.SKIPPED, reason=reason)
            return
        for item in items:
            self.announce(item)

    def announce(self, item: Restorable) -> None:
        if item.where is None:
            error = (
                "not found in the trash when it was trashed; restore it from the trash by hand"
                if freedesktop()
                else "this platform does not let clarity restore from its trash; "
                "restore it from the trash by hand"
            )
            self.flush()
            self.result(item, Status.FAILED, error=error)
            return
        record_path = _record_path(item, self.plan.archive_dir)
        extra: dict[str, object] = {"from_run": item.run, "from_seq": item.intent.seq}
        if item.trash_info is not None:
            extra["info"] = item.trash_info
        if record_path is not None:
            extra["record_path"] = record_path
        intent = Intent(
            self.journal.next_seq(),
            "restore",
            item.name,
            item.where,
            self.plan.plans_dir / item.name,
            item.intent.sha256,
            item.intent.size,
            item.intent.group,
            extra,
        )
        self._batch.announce((item, intent), [intent])

    def flush(self) -> None:
        """Restore every announced file: call it when there are no more groups."""
        self._batch.flush()

    def restore(self, announced: tuple[Restorable, Intent]) -> None:
        item, intent = announced
        src, dst, seq = intent.src, self.plan.plans_dir / item.name, intent.seq
        try:
            if not os.path.lexists(src):
                place = "trash (was it emptied?)" if item.from_trash else "archive"
                raise FileNotFoundError(0, f"no longer in the {place}", os.fspath(src))
            if item.trash_info is not None:
                restore(TrashedFile(src, item.trash_info), dst)
            else:
                move_file(src, dst)
        except OSError as error:
            text = error_text(error)
            self.journal.outcome(seq, Outcome("failed", error=text))
            self.result(item, Status.FAILED, error=text)
            return
        self.journal.outcome(seq, Outcome("done", dst))
        self.result(item, Status.DONE, destination=dst)
        if (record_path := _record_path(item, self.plan.archive_dir)) is not None:
            self.unindex.add((item.run, record_path))


def undo(state: DirState, plan: UndoPlan) -> RunReport:
    """Put back what the plan lists. Call with the lock held."""
    journal = Journal.start(
        state,
        "undo",
        plans_dir=plan.plans_dir,
        archive_dir=plan.archive_dir,
        undoes=list(plan.runs),
    )
    undoer = _Undoer(journal, plan)
    for items in _groups(plan.items).values():
        undoer.run_group(items)
    undoer.flush()
    if undoer.unindex and plan.archive_dir.is_dir():
        remove_from_index(plan.archive_dir, undoer.unindex)
        write_index_md(plan.archive_dir)
    journal.close(state)
    return RunReport(
        "undo", plan.plans_dir, plan.archive_dir, journal.path.name, tuple(undoer.results)
    )
