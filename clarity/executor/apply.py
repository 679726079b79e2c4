"""Carry out a proposal: archive and trash, group by group, journaling every move.

A group is a plan and the sub-plans that follow it. Before a group moves,
its plan and destinations go into the journal (`group`); each file then gets
an `intent` before it moves and an outcome after. Recovery uses the same
`GroupMover` to finish a group a kill left half moved.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clarity.archive import (
    ArchivedFile,
    append_index,
    free_name,
    index_record,
    quarter,
    write_index_md,
)
from clarity.executor.journal import Intent, Journal, Outcome, RunLog
from clarity.executor.moves import error_text, hash_file, move_file
from clarity.executor.results import ActionResult, RunReport, Status
from clarity.executor.trash import send_to_trash
from clarity.model import Action, FileStamp
from clarity.progress import Tick
from clarity.proposal import Proposal, ProposedFile, ProposedGroup
from clarity.reader import NotARegularFile, read_opening
from clarity.state import DirState
from clarity.summary import extract_summary


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
    if stamp == expected.stamp:
        return None
    changed = "changed since the scan; scan again to review it"
    if stamp.size != expected.stamp.size or stamp.mtime_ns != expected.stamp.mtime_ns:
        return changed
    try:
        return None if hash_file(path) == expected.sha256 else changed
    except OSError as error:
        return f"cannot read it: {error.strerror or error}"


Summarizer = Callable[[Path, str], tuple[str, str]]  # (archived file, name) -> (text, source)


def extractive_summary(path: Path, name: str) -> tuple[str, str]:
    try:
        return extract_summary(read_opening(path)), "extract"
    except (OSError, NotARegularFile):
        return "", "extract"


@dataclass
class GroupMover:
    """Moves groups and records each step; shared by apply and by recovery."""

    journal: Journal
    plans_dir: Path
    archive_dir: Path
    results: list[ActionResult] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    progress: Tick | None = None
    summarize: Summarizer = extractive_summary
    held: Mapping[str, str] = field(default_factory=dict)  # file name -> why it must stay
    _folders: set[Path] = field(default_factory=set)  # archive folders made in this run
    indexed: bool = False  # whether this run added records to index.jsonl

    def skip(self, group: ProposedGroup, files: Iterable[ProposedFile], reason: str) -> None:
        for proposed in files:
            self.journal.write(
                "skip", sync=False, name=proposed.name, action=group.action, reason=reason
            )
            self.results.append(
                ActionResult(proposed.name, group.action.value, Status.SKIPPED, reason=reason)
            )
            self._tick()

    def _tick(self) -> None:
        if self.progress is not None:
            self.progress(1)

    def run(self, group: ProposedGroup) -> None:
        plan = group.plan
        held = next((f for f in group.files if f.name in self.held), None)
        if held is not None:  # a group moves whole or not at all
            why = self.held[held.name]
            self.skip(group, [plan], why if held is plan else f"its sub-plan {held.name}: {why}")
            self.skip(group, group.subplans, f"its plan {plan.name} was skipped")
            return
        reason = changed_reason(self.plans_dir / plan.name, plan)
        if reason is not None:
            self.skip(group, [plan], reason)
            self.skip(group, group.subplans, f"its plan {plan.name} was skipped")
            return
        planned = self._plan_destinations(group)
        if planned is None:
            return
        self.journal.write(
            "group",
            sync=False,  # on disk with the first intent's fsync, before anything moves
            group=plan.name,
            action=group.action.value,
            planned=[{**proposed.to_json(), "dst": dst} for proposed, dst in planned],
        )
        self.finish(group, planned, done={})

    def _plan_destinations(
        self, group: ProposedGroup
    ) -> list[tuple[ProposedFile, Path | None]] | None:
        if group.action is not Action.ARCHIVE:
            return [(proposed, None) for proposed in group.files]
        folder = self.archive_dir / quarter(group.plan.stamp.mtime_ns)
        try:
            if folder not in self._folders:  # one mkdir per quarter, not one per group
                folder.mkdir(parents=True, exist_ok=True)
                self._folders.add(folder)
        except OSError as error:
            self._fail(group.plan, group.action, error_text(error))
            self._plan_stayed(group, group.subplans)
            return None
        planned: list[tuple[ProposedFile, Path | None]] = []
        taken: set[Path] = set()
        for proposed in group.files:
            dst = free_name(folder, proposed.name, taken)
            taken.add(dst)
            planned.append((proposed, dst))
        return planned

    def finish(
        self,
        group: ProposedGroup,
        planned: list[tuple[ProposedFile, Path | None]],
        done: dict[str, Path | None],
    ) -> None:
        """Move every planned file not yet settled; `done` holds those already moved."""
        moved: list[tuple[ProposedFile, Path | None]] = [
            (proposed, done[proposed.name]) for proposed, _ in planned if proposed.name in done
        ]
        for proposed, dst in planned:
            if proposed.name in done:
                continue
            is_plan = proposed is group.plan
            if not is_plan:
                reason = changed_reason(self.plans_dir / proposed.name, proposed)
                if reason is not None:
                    self.skip(group, [proposed], reason)
                    continue
            moved_ok, where = self._move(group, proposed, dst)
            if not moved_ok:
                if is_plan:
                    rest = [p for p, _ in planned if p is not group.plan and p.name not in done]
                    self._plan_stayed(group, rest)
                    return
                continue
            moved.append((proposed, where))
        if group.action is Action.ARCHIVE and moved and moved[0][0] is group.plan:
            self.records.append(self._record(group, moved))

    def _plan_stayed(self, group: ProposedGroup, followers: Iterable[ProposedFile]) -> None:
        """A plan that could not move keeps its sub-plans with it."""
        verb = "archived" if group.action is Action.ARCHIVE else "trashed"
        self.skip(group, followers, f"its plan {group.plan.name} could not be {verb}")

    def _move(
        self, group: ProposedGroup, proposed: ProposedFile, dst: Path | None
    ) -> tuple[bool, Path | None]:
        """Move one file: whether it moved, and its new path (None: in a trash clarity
        cannot see into)."""
        src = self.plans_dir / proposed.name
        seq = self.journal.next_seq()
        self.journal.intent(
            Intent(
                seq,
                group.action.value,
                proposed.name,
                src,
                dst,
                proposed.sha256,
                proposed.stamp.size,
                group.plan.name,
            )
        )
        try:
            if dst is not None:
                move_file(src, dst, proposed.sha256)
                outcome = Outcome("done", dst)
            else:
                entry = send_to_trash(src, proposed.sha256, proposed.stamp.size)
                outcome = Outcome(
                    "done",
                    entry.file if entry else None,
                    entry.info if entry else None,
                )
        except OSError as error:
            text = error_text(error)
            self.journal.outcome(seq, Outcome("failed", error=text))
            self._fail(proposed, group.action, text)
            return False, None
        self.journal.outcome(seq, outcome)
        self.results.append(
            ActionResult(proposed.name, group.action.value, Status.DONE, outcome.dst)
        )
        self._tick()
        return True, outcome.dst

    def _fail(self, proposed: ProposedFile, action: Action, error: str) -> None:
        self.results.append(ActionResult(proposed.name, action.value, Status.FAILED, error=error))
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
        )

    def write_index(self) -> None:
        """Append the records so far to index.jsonl.

        INDEX.md is rendered from the whole index, so it is written once, at
        the end of a run (and by recovery after a kill), not every 200 records.
        """
        if self.records:
            append_index(self.archive_dir, self.records)
            self.records.clear()
            self.indexed = True


def apply_groups(
    state: DirState,
    proposal: Proposal,
    groups: Iterable[ProposedGroup],
    progress: Tick | None = None,
    summarize: Summarizer = extractive_summary,
    kind: str = "apply",
    held: Mapping[str, str] | None = None,
) -> RunReport:
    """Archive and trash the given groups of a proposal. Call with the lock held.

    kind names the run in the journal: "apply", or "archive" for plans a
    person chose by hand; recovery and undo treat both alike. held names
    files that must stay (in use by a live session since the scan), and why.
    """
    journal = Journal.start(
        state,
        kind,
        plans_dir=proposal.plans_dir,
        archive_dir=proposal.archive_dir,
        proposal=proposal.id,
    )
    mover = GroupMover(
        journal,
        proposal.plans_dir,
        proposal.archive_dir,
        progress=progress,
        summarize=summarize,
        held=held or {},
    )
    for group in groups:
        mover.run(group)
        if len(mover.records) >= 200:
            mover.write_index()  # a long run keeps the index close behind
    mover.write_index()
    if mover.indexed:
        write_index_md(proposal.archive_dir)
    journal.close(state)
    return RunReport(
        kind, proposal.plans_dir, proposal.archive_dir, journal.path.name, tuple(mover.results)
    )


def group_from_record(
    record: dict[str, Any],
) -> tuple[ProposedGroup, list[tuple[ProposedFile, Path | None]]]:
    """The group, and where each file was to go, from a journal `group` record."""
    planned = [
        (ProposedFile.from_json(item), Path(item["dst"]) if item.get("dst") else None)
        for item in record["planned"]
    ]
    files = [proposed for proposed, _ in planned]
    return ProposedGroup(Action(record["action"]), files[0], tuple(files[1:])), planned


def settled_names(log: RunLog) -> dict[str, Path | None]:
    """Files of a run that were moved, by name, with where they went."""
    return {intent.name: outcome.dst for intent, outcome in log.done()}
