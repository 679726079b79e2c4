"""Moving groups of files, with a journal record before and after each move.

A group is a plan and the sub-plans that follow it. Before a group moves,
its plan and destinations go into the journal (`group`), and each file gets
an `intent`; after each move, its outcome. Intents are announced a batch of
groups at a time and made durable by one fsync before any of them moves:
one fsync per move was most of an apply's time. Each file is checked again
just before it moves; one that changed after it was announced stays, and
its intent is closed as `rolled_back`. Apply and recovery share the mover.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from clarity.archive.layout import ArchivedFile, free_name, index_record, quarter, quarter_folder
from clarity.executor.alone import InUse
from clarity.executor.indexing import update_index
from clarity.executor.journal import Batch, Journal
from clarity.executor.moves import CHANGED, ChangedWhileMoving, error_text, move_file
from clarity.executor.records import Ending, GroupRecord, Intent, Move, Outcome, Skip
from clarity.executor.results import ActionResult, Status
from clarity.executor.trash import send_to_trash
from clarity.fsio import hash_file
from clarity.judge.proposal import ProposedFile, ProposedGroup
from clarity.model import STAMP_PROVES_UNCHANGED, Action, FileStamp, Summarizer
from clarity.plans.reader import NotARegularFile, read_opening
from clarity.plans.summary import extract_summary
from clarity.progress import Tick
from clarity.state import DirState


def changed_reason(path: Path, expected: ProposedFile) -> str | None:
    """Why the file at path is not the one the scan proposed to move (None: it is)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "gone since the scan"
    except OSError as error:
        return f"cannot check it: {error.strerror or error}"
    if stat.S_ISLNK(info.st_mode):
        return "now a symlink (links are never followed)"
    if not stat.S_ISREG(info.st_mode):
        return "no longer a regular file"
    stamp = FileStamp.of(info)
    if stamp == expected.stamp and STAMP_PROVES_UNCHANGED:
        return None
    changed = "changed since the scan; scan again to review it"
    if stamp.size != expected.stamp.size or stamp.mtime_ns != expected.stamp.mtime_ns:
        return changed
    # Only ctime or inode moved (or, on Windows, nothing did): the bytes decide.
    try:
        return None if hash_file(path) == expected.sha256 else changed
    except OSError as error:
        return f"cannot read it: {error.strerror or error}"


def _identity(folder: Path) -> tuple[int, int] | None:
    """The folder itself, never what a link leads to: its device and inode."""
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def extractive_summary(path: Path, name: str) -> tuple[str, str]:
    try:
        return extract_summary(read_opening(path)), "extract"
    except (OSError, NotARegularFile):
        return "", "extract"


def _plan_stayed(group: ProposedGroup) -> str:
    """Why a sub-plan stays: a plan that could not move keeps its sub-plans with it."""
    verb = "archived" if group.action is Action.ARCHIVE else "trashed"
    return f"its plan {group.plan.name} could not be {verb}"


def _too_long(name: str, dst: Path | None) -> str:
    where = "the trash" if dst is None else str(dst.parent)
    size = len(os.fsencode(name))
    return (
        f"its name ({size} bytes) is too long for {where}; "
        "rename it shorter (or choose a shorter --archive-dir) to move it"
    )


class _Announced(NamedTuple):
    """A group whose remaining moves are in the journal, waiting for their batch."""

    group: ProposedGroup
    moves: list[tuple[ProposedFile, Intent]]
    moved: list[tuple[ProposedFile, Path | None]]  # moved by an earlier run (recovery)


@dataclass
class GroupMover:
    """Moves groups and records each step; shared by apply and by recovery.

    `run` (or `resume`) announces a group; its files move when the batch is
    full or at `flush`, which the caller must call when it has no more groups.
    """

    state: DirState
    journal: Journal
    plans_dir: Path
    archive_dir: Path
    results: list[ActionResult] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    progress: Tick | None = None
    summarize: Summarizer = extractive_summary
    held: Mapping[str, str] = field(default_factory=dict)  # file name -> why it must stay
    _folders: set[Path] = field(default_factory=set)  # archive folders made in this run
    _taken: set[Path] = field(default_factory=set)  # archive names chosen in this run
    _batch: Batch[_Announced] = field(init=False)  # announced groups not yet moved
    indexed: bool = False  # whether this run archived a group (its index needs writing)
    _anchor: tuple[int, int] | None = field(default=None, init=False)  # the archive folder
    problems: list[str] = field(default_factory=list)  # index changes left for the next run
    notes: list[str] = field(default_factory=list)  # damage found in the index

    def __post_init__(self) -> None:
        self._batch = Batch(self.journal, self._carry_out)

    def skip(self, group: ProposedGroup, files: Iterable[ProposedFile], reason: str) -> None:
        for proposed in files:
            self.journal.write(Skip(proposed.name, group.action.value, reason), sync=False)
            self.results.append(
                ActionResult(proposed.name, Move(group.action.value), Status.SKIPPED, reason=reason)
            )
            self._tick()

    def _tick(self) -> None:
        if self.progress is not None:
            self.progress(1)

    def run(self, group: ProposedGroup) -> None:
        """Check a group, choose its destinations and announce its moves."""
        plan = group.plan
        # A plan already known to have changed is not announced at all (it is
        # checked again, like every file, just before it moves).
        reason = self._held_reason(group) or changed_reason(self.plans_dir / plan.name, plan)
        if reason is not None:
            self.flush()  # the batch first: results stay in the proposal's order
            self.skip(group, [plan], reason)
            self.skip(group, group.subplans, f"its plan {plan.name} was skipped")
            return
        planned = self._plan_destinations(group)
        if planned is None:
            return
        # on disk with the batch's fsync, before anything moves
        self.journal.write(GroupRecord(group.action, tuple(planned)), sync=False)
        self._announce(group, planned, moved=[])

    def _held_reason(self, group: ProposedGroup) -> str | None:
        """Why a group must stay because one of its files is held: it moves whole or not at all."""
        held = next((f for f in group.files if f.name in self.held), None)
        if held is None:
            return None
        why = self.held[held.name]
        return why if held is group.plan else f"its sub-plan {held.name}: {why}"

    def resume(
        self,
        group: ProposedGroup,
        planned: list[tuple[ProposedFile, Path | None]],
        done: dict[str, Path | None],
    ) -> None:
        """Announce every planned file not yet settled; `done` holds those already moved."""
        to_move = [(proposed, dst) for proposed, dst in planned if proposed.name not in done]
        moved = [(p, done[p.name]) for p, _ in planned if p.name in done]
        self._announce(group, to_move, moved)

    def _plan_destinations(
        self, group: ProposedGroup
    ) -> list[tuple[ProposedFile, Path | None]] | None:
        if group.action is not Action.ARCHIVE:
            return [(proposed, None) for proposed in group.files]
        folder = self.archive_dir / quarter(group.plan.stamp.mtime_ns)
        try:
            if folder not in self._folders:  # one mkdir per quarter, not one per group
                quarter_folder(self.archive_dir, folder.name)
                self._folders.add(folder)
        except OSError as error:
            self.flush()
            self._fail(group.plan, group.action, error_text(error))
            self.skip(group, group.subplans, _plan_stayed(group))
            return None
        planned: list[tuple[ProposedFile, Path | None]] = []
        for proposed in group.files:  # names no file has, nor any announced move takes
            dst = free_name(folder, proposed.name, self._taken)
            self._taken.add(dst)
            planned.append((proposed, dst))
        return planned

    def _announce(
        self,
        group: ProposedGroup,
        planned: list[tuple[ProposedFile, Path | None]],
        moved: list[tuple[ProposedFile, Path | None]],
    ) -> None:
        intents = [
            Intent(
                self.journal.next_seq(),
                Move(group.action.value),
                proposed.name,
                self.plans_dir / proposed.name,
                dst,
                proposed.sha256,
                proposed.stamp.size,
                group.plan.name,
                mtime_ns=proposed.stamp.mtime_ns,
            )
            for proposed, dst in planned
        ]
        moves = [(proposed, intent) for (proposed, _), intent in zip(planned, intents, strict=True)]
        self._batch.announce(_Announced(group, moves, moved), intents)

    def flush(self) -> None:
        """Move every announced file: call it when there are no more groups."""
        self._batch.flush()

    def _carry_out(self, announced: _Announced) -> None:
        group, moved = announced.group, list(announced.moved)
        for index, (proposed, intent) in enumerate(announced.moves):
            is_plan = proposed is group.plan
            # Checked again here: the file may have changed since it was announced; and
            # the archive folder, replaced by a link or another folder, is gone to no more.
            reason = self._archive_replaced(intent) or changed_reason(intent.src, proposed)
            if reason is None:
                moved_ok, where = self._move(group, proposed, intent)
                if moved_ok:
                    moved.append((proposed, where))
                    continue
                if not is_plan:
                    continue
                reason = _plan_stayed(group)
            else:
                self._withdraw(group, proposed, intent, reason)
                if not is_plan:
                    continue
                reason = f"its plan {group.plan.name} was skipped"
            for follower, its_intent in announced.moves[index + 1 :]:
                self._withdraw(group, follower, its_intent, reason)  # it stays with its plan
            break
        if group.action is Action.ARCHIVE and moved and moved[0][0] is group.plan:
            self.records.append(self._record(group, moved))

    def _archive_replaced(self, intent: Intent) -> str | None:
        """Why nothing more goes into the archive, if its folder was replaced since this
        run's first move into it (a link put in its place: the index would be written, and
        plans moved, wherever it leads). Said once among the run's problems."""
        if intent.dst is None:
            return None  # to the trash
        now = _identity(self.archive_dir)
        if self._anchor is None:
            self._anchor = now
            return None
        if now == self._anchor:
            return None
        reason = (
            f"the archive folder {self.archive_dir} was replaced while clarity ran; left in "
            "place: put the archive back, then apply again (undo puts back what moved)"
        )
        if reason not in self.problems:
            self.problems.append(reason)
        return reason

    def _withdraw(
        self, group: ProposedGroup, proposed: ProposedFile, intent: Intent, reason: str
    ) -> None:
        """An announced file that is not moved after all: its intent is closed, it is skipped."""
        self.journal.outcome(intent.seq, Outcome(Ending.ROLLED_BACK, error=reason))
        self.skip(group, [proposed], reason)

    def _move(
        self, group: ProposedGroup, proposed: ProposedFile, intent: Intent
    ) -> tuple[bool, Path | None]:
        """Move one announced file: whether it moved, and its new path (None: in a
        trash clarity cannot see into)."""
        src, dst, seq = intent.src, intent.dst, intent.seq
        try:
            if dst is not None:
                move_file(src, dst, proposed.sha256)
                outcome = Outcome(Ending.DONE, dst)
            else:
                entry = send_to_trash(src, proposed.sha256, proposed.stamp.size)
                outcome = Outcome(
                    Ending.DONE,
                    entry.file if entry else None,
                    entry.info if entry else None,
                )
        except (ChangedWhileMoving, InUse) as error:  # it stayed (or went back): said, not failed
            self._withdraw(group, proposed, intent, error.strerror or CHANGED)
            return False, None
        except OSError as error:
            if error.errno == errno.ENAMETOOLONG:  # the same every week: said, not failed
                self._withdraw(group, proposed, intent, _too_long(proposed.name, dst))
                return False, None
            text = error_text(error, dst)
            self.journal.outcome(seq, Outcome(Ending.FAILED, error=text))
            self._fail(proposed, group.action, text)
            return False, None
        self.journal.outcome(seq, outcome)
        self.results.append(
            ActionResult(proposed.name, Move(group.action.value), Status.DONE, outcome.dst)
        )
        self._tick()
        return True, outcome.dst

    def _fail(self, proposed: ProposedFile, action: Action, error: str) -> None:
        result = ActionResult(proposed.name, Move(action.value), Status.FAILED, error=error)
        self.results.append(result)
        self._tick()

    def _record(
        self, group: ProposedGroup, moved: list[tuple[ProposedFile, Path | None]]
    ) -> dict[str, Any]:
        files = [
            ArchivedFile(p.name, where, p.stamp.size, p.sha256, p.stamp.mtime_ns)
            for p, where in moved
            if where is not None
        ]
        summary, source = self.summarize(files[0].path, group.plan.name)
        return index_record(
            self.archive_dir,
            self.journal.path.name,
            files[0],
            files[1:],
            title=group.plan.title,
            summary=summary,
            summary_source=source,
            original=self.plans_dir / group.plan.name,
            project=group.plan.project,
            reason=group.plan.reason,
        )

    def write_index(self, *, render: bool = False) -> None:
        """Add the records so far to index.jsonl; with render, rewrite INDEX.md too.

        INDEX.md is rendered from the whole index, so it is written once, at
        the end of a run (and by recovery after a kill), not every 200 records.
        A change the index cannot take is kept for the next run (indexing.py).
        """
        if self.records or render:
            report = update_index(self.state, self.archive_dir, self.records, render=render)
            self.problems += report.failed
            self.notes += report.notes
            self.indexed = self.indexed or bool(self.records)
            self.records.clear()
