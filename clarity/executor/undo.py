"""Undo the latest run: archived files moved back, trashed files restored, a restored
plan put back in the archive (and its index record back in the index).

The latest run is every run that carried out the most recent proposal
(an apply a kill interrupted and a later apply finished are one apply), or
the latest hand archive or restore, that still has files out that no undo
put back. A file undo could not put back
(its name was taken, it failed) stays undoable: the next undo tries it again
before any older apply. A file is never put back over one that appeared
since: if any file of a group has a namesake in the plans dir again, the
whole group stays where it is and the result says so; a name taken after
that check fails the move itself (the rename never replaces). And only the
bytes apply moved come back: a file in the archive or the trash that does
not hash as it did (a stray copy, a folder in its place) stays.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarity.archive.layout import INDEX_JSONL, INDEX_MD, quarter_folder, relative_path
from clarity.executor.group_records import regroup_all
from clarity.executor.indexing import NOTHING, IndexReport, update_index
from clarity.executor.journal import Batch, Journal, RunLog
from clarity.executor.moves import error_text, is_the_file, keep_mtime, move_file
from clarity.executor.outcomes import carry_out, result_of
from clarity.executor.records import UNDOABLE_RUNS, Intent, Move, Outcome, RunKind, Skip
from clarity.executor.results import ActionResult, RunReport, Status
from clarity.executor.trash import TrashedFile, freedesktop, locate, restore
from clarity.state import DirState

IndexedGroup = tuple[str, list[str], dict[str, Any] | None]  # run, paths, carried record


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
        return self.intent.move is Move.TRASH

    @property
    def to_archive(self) -> bool:
        """A file a restore put back in the plans dir: undo returns it to the archive."""
        return self.intent.move is Move.RESTORE

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
    items: tuple[Restorable, ...]  # none: nothing left to undo (notes say why, if anything)
    plans_dir: Path
    archive_dir: Path
    notes: tuple[str, ...] = ()  # restores passed over: their plan was edited since
    labels: tuple[str, ...] = ()  # the same runs as people name them (RunLog.label)


def _unedited(
    items: tuple[Restorable, ...], notes: list[str], label: str
) -> tuple[Restorable, ...]:
    """A restore's groups whose plan is still the file it put back. A plan edited (or moved)
    since is the person's work now: its restore is no longer undone, and undo looks past it."""
    kept: list[Restorable] = []
    for (_, group), members in _groups(items).items():
        plan = next((m for m in members if m.name == group), None)
        if plan is not None and plan.where is not None and not is_the_file(plan.where, plan.intent):
            notes.append(
                f"{group} changed since {label} restored it, so that restore is not undone "
                f"(clarity archive {group} archives it as it is now)"
            )
            continue
        kept += members
    return tuple(kept)


def plan_undo(logs: Sequence[RunLog], plans_dir: Path, archive_dir: Path) -> UndoPlan | None:
    """What undo would restore; None (or no items) when no run has anything left out."""
    notes: list[str] = []
    restored: set[tuple[str, int]] = set()
    for log in logs:
        if log.kind is RunKind.UNDO:
            for intent, _ in log.done():
                if intent.from_run is not None and intent.from_seq is not None:
                    restored.add((intent.from_run, intent.from_seq))
    # Files a restore took out of the archive (and no undo put back) are the restore's to
    # undo, not the apply's that archived them: that apply's undo passes over them. Only
    # an earlier run's: a later run may have archived a file at the same place again.
    order = {log.name: position for position, log in enumerate(logs)}
    taken_back: dict[Path, int] = {}  # a path in the archive: the latest restore that took it
    for position, log in enumerate(logs):
        if log.kind is RunKind.RESTORE:
            for intent, _ in log.done():
                if (log.name, intent.seq) not in restored:
                    taken_back[intent.src] = position
    applies = [log for log in logs if log.kind in UNDOABLE_RUNS]
    while applies:
        latest = applies[-1]
        runs = [log for log in applies if log.proposal == latest.proposal and log.proposal]
        runs = runs or [latest]
        items = tuple(
            Restorable(log.name, intent, outcome)
            for log in runs
            for intent, outcome in log.done()
            if (log.name, intent.seq) not in restored
            and (outcome.dst is None or taken_back.get(outcome.dst, -1) < order[log.name])
        )
        if latest.kind is RunKind.RESTORE:
            items = _unedited(items, notes, latest.label)
        if items and latest.begin is not None:
            return UndoPlan(
                tuple(log.name for log in runs),
                items,
                latest.begin.plans_dir,
                latest.begin.archive_dir,
                tuple(notes),
                tuple(log.label for log in runs),
            )
        applies = [log for log in applies if log not in runs]  # all back: look further
    return UndoPlan((), (), plans_dir, archive_dir, tuple(notes)) if notes else None


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


def index_groups(items: Iterable[Restorable], archive_dir: Path) -> list[IndexedGroup]:
    """The archived groups these files belong to: each as its record's run, its files' paths
    in the archive, and the record a restore carried for it (undo puts it back)."""
    groups: dict[tuple[str, str], tuple[str, list[str], list[dict[str, Any]]]] = {}
    for item in items:
        if item.from_trash:
            continue
        where = item.intent.src if item.to_archive else item.where
        run = item.intent.from_run if item.to_archive else item.run
        if where is None or run is None:
            continue
        try:
            path = relative_path(where, archive_dir)
        except ValueError:
            continue  # not in this archive: no record of it here
        _, paths, carried = groups.setdefault((item.run, item.intent.group), (run, [], []))
        paths.append(path)
        if item.to_archive and item.intent.record is not None:
            carried.append(item.intent.record)
    return [(run, paths, next(iter(carried), None)) for run, paths, carried in groups.values()]


def relist(state: DirState, archive_dir: Path, items: Iterable[Restorable]) -> IndexReport:
    """The index made to list what the archive holds of the groups these files belong to:
    a group put back whole leaves it, a group back in the archive returns to it, a group
    split (a file that could not move) lists what stayed."""
    groups = index_groups(items, archive_dir)
    if not groups:
        return NOTHING
    change = regroup_all(archive_dir, groups)
    if not change.adds and not change.removes:
        return NOTHING
    return update_index(state, archive_dir, change.adds, removes=change.removes)


class _Undoer:
    """Restores groups; like apply, it announces a batch of moves under one fsync.

    whole: a group stays where it is if any of its files' names is taken (an undo); not
    whole, each file that can come back does (recovery finishing a group a kill split).
    """

    def __init__(self, journal: Journal, plan: UndoPlan, *, whole: bool = True) -> None:
        self.journal = journal
        self.plan = plan
        self.whole = whole
        self.results: list[ActionResult] = []
        self.moved: list[Restorable] = []
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
        move = Move.ARCHIVE if item.to_archive else Move.RESTORE
        self.results.append(
            ActionResult(item.name, move, status, destination, error=error, reason=reason)
        )

    def home(self, item: Restorable) -> Path:
        """Where undo puts a file: the plans dir, or (restored) its place in the archive."""
        return item.intent.src if item.to_archive else self.plan.plans_dir / item.name

    def run_group(self, items: list[Restorable]) -> None:
        back = [item for item in items if self.whole and os.path.lexists(self.home(item))]
        if back:
            self.flush()  # the batch first: results stay in order
            names = ", ".join(item.name for item in back)
            for item in items:
                reason = (
                    f"a file named {names} is in the plans dir again; "
                    f"left at {item.where or 'the trash'}"
                    if not item.to_archive
                    else f"its place in the archive is taken ({self.home(item)}); left in the "
                    "plans dir"
                )
                move = Move.ARCHIVE if item.to_archive else Move.RESTORE
                self.journal.write(Skip(item.name, move.value, reason), sync=False)
                self.result(item, Status.SKIPPED, reason=reason)
            return
        for item in items:
            self.announce(item)

    def announce(self, item: Restorable) -> None:
        try:
            src, info = self._source(item)
        except OSError as error:
            self.flush()  # the batch first: results stay in order
            self.result(item, Status.FAILED, error=error_text(error))
            return
        back = item.to_archive  # a restored plan returns to the archive, with its record
        intent = Intent(
            self.journal.next_seq(),
            Move.ARCHIVE if back else Move.RESTORE,
            item.name,
            src,
            self.home(item),
            item.intent.sha256,
            item.intent.size,
            item.intent.group,
            mtime_ns=item.intent.mtime_ns,
            info=info,
            from_run=item.run,
            from_seq=item.intent.seq,
            record_path=None if back else _record_path(item, self.plan.archive_dir),
            record=item.intent.record if back else None,
        )
        self._batch.announce((item, intent), [intent])

    def _source(self, item: Restorable) -> tuple[Path, Path | None]:
        """The file apply moved (and its trash record), checked: a regular file with
        the bytes it had. Raises OSError saying why it cannot come back."""
        if item.from_trash:
            if item.where is not None and is_the_file(item.where, item.intent):
                return item.where, item.trash_info
            # Not recorded, or not these bytes (a stray copy): look for the real entry.
            entry = locate(item.intent.src, item.intent.sha256, item.intent.size)
            if entry is not None and is_the_file(entry.file, item.intent):
                return entry.file, entry.info
            if not freedesktop():
                raise OSError(
                    0,
                    "this platform does not let clarity restore from its trash; "
                    "restore it from the trash by hand",
                )
            raise FileNotFoundError(0, "not found in the trash (was it emptied?)", item.name)
        src, place, run = item.where, "the archive", "apply"
        if item.to_archive:
            place, run = "the plans dir", "restore"
        if src is None or not os.path.lexists(src):
            raise FileNotFoundError(0, f"no longer in {place}", os.fspath(src or item.name))
        if not is_the_file(src, item.intent):
            raise OSError(
                0,
                f"what is at its place in {place} is not the file {run} moved "
                "(not a regular file, or other bytes: edited since?); left where it is",
                os.fspath(src),
            )
        return src, None

    def flush(self) -> None:
        """Restore every announced file: call it when there are no more groups."""
        self._batch.flush()

    def restore(self, announced: tuple[Restorable, Intent]) -> None:
        item, intent = announced
        dst = self.home(item)

        def move() -> None:
            if item.to_archive and dst.parent.parent == self.plan.archive_dir:
                quarter_folder(self.plan.archive_dir, dst.parent.name)  # made again if gone
            if intent.info is not None:
                restore(TrashedFile(intent.src, intent.info), dst, intent.sha256)
            else:
                move_file(intent.src, dst, intent.sha256)
            keep_mtime(dst, intent.mtime_ns)

        where = "the trash" if intent.info is not None else intent.src
        taken = f"a file named {item.name} is in the plans dir again; left at {where}"
        if item.to_archive:
            taken = f"its place in the archive is taken ({dst}); left in the plans dir"
        outcome = carry_out(self.journal, intent.seq, dst, move, taken)
        self.results.append(result_of(item.name, intent.move, outcome))
        if outcome.done:
            self.moved.append(item)


def finish_groups(journal: Journal, plan: UndoPlan) -> list[ActionResult]:
    """Put back, file by file, what is left of the plan's groups (recovery: groups a kill
    cut in two); what could not come back stays, and the index lists it."""
    undoer = _Undoer(journal, plan, whole=False)
    for items in _groups(plan.items).values():
        undoer.run_group(items)
    undoer.flush()
    return undoer.results


_QUARTER = re.compile(r"\d{4}-Q[1-4]")  # a quarter folder's name (layout.quarter)


def _tidy(archive_dir: Path, folders: set[Path]) -> None:
    """What an undo of the only apply left of the archive: a quarter folder it emptied
    goes, and an index that lists nothing (with the INDEX.md of it). Never a file that
    holds a plan: rmdir takes only an empty folder, and the index goes only when it has
    no line at all (issue 36, item 12)."""
    for folder in folders:
        if folder.parent == archive_dir:
            with contextlib.suppress(OSError):
                folder.rmdir()  # fails unless empty: another plan, a file of the person's
    index = archive_dir / INDEX_JSONL
    with contextlib.suppress(OSError):
        if index.stat().st_size == 0 and not any(
            entry.is_dir() and _QUARTER.fullmatch(entry.name) for entry in archive_dir.iterdir()
        ):
            index.unlink()
            (archive_dir / INDEX_MD).unlink(missing_ok=True)


def undo(state: DirState, plan: UndoPlan) -> RunReport:
    """Put back what the plan lists. Call with the lock held."""
    journal = Journal.start(state, RunKind.UNDO, plan.plans_dir, plan.archive_dir, undoes=plan.runs)
    undoer = _Undoer(journal, plan)
    for items in _groups(plan.items).values():
        undoer.run_group(items)
    undoer.flush()
    touched = {(item.run, item.intent.group) for item in undoer.moved}
    groups = [item for item in plan.items if (item.run, item.intent.group) in touched]
    index = relist(state, plan.archive_dir, groups)
    journal.close(state)
    if not index.failed:
        emptied = {
            item.where.parent
            for item in undoer.moved
            if item.where is not None and not item.from_trash and not item.to_archive
        }
        _tidy(plan.archive_dir, emptied)
    return RunReport(
        RunKind.UNDO,
        plan.plans_dir,
        plan.archive_dir,
        journal.path.name,
        tuple(undoer.results),
        notes=(*plan.notes, *index.notes),
        problems=tuple(index.failed),
    )
