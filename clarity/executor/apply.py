"""Carry out a proposal: archive and trash, group by group, journaling every move.

The `GroupMover` (executor/mover.py) does the moving; this module starts and
closes the run's journal around it, and reads back from a journal what a run
planned and did, for recovery and for the next apply of the same proposal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from clarity.executor.journal import Journal, RunLog
from clarity.executor.mover import GroupMover, extractive_summary
from clarity.executor.records import GroupRecord, RunKind
from clarity.executor.results import RunReport
from clarity.judge.proposal import Proposal, ProposedFile, ProposedGroup
from clarity.model import Summarizer
from clarity.progress import Tick
from clarity.state import DirState


def apply_groups(
    state: DirState,
    proposal: Proposal,
    groups: Iterable[ProposedGroup],
    progress: Tick | None = None,
    summarize: Summarizer = extractive_summary,
    kind: RunKind = RunKind.APPLY,
    held: Mapping[str, str] | None = None,
) -> RunReport:
    """Archive and trash the given groups of a proposal. Call with the lock held.

    kind names the run in the journal: an apply, or an archive of plans a
    person chose by hand; recovery and undo treat both alike. held names
    files that must stay (in use by a live session since the scan), and why.
    """
    journal = Journal.start(
        state, kind, proposal.plans_dir, proposal.archive_dir, proposal=proposal.id
    )
    mover = GroupMover(
        state,
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
    mover.flush()
    mover.write_index(render=mover.indexed or bool(mover.records))
    journal.close(state)
    return RunReport(
        kind,
        proposal.plans_dir,
        proposal.archive_dir,
        journal.path.name,
        tuple(mover.results),
        notes=tuple(mover.notes),
        problems=tuple(mover.problems),
    )


def group_from_record(
    record: GroupRecord,
) -> tuple[ProposedGroup, list[tuple[ProposedFile, Path | None]]]:
    """The group, and where each file was to go, from a journal `group` record."""
    files = [proposed for proposed, _ in record.planned]
    return ProposedGroup(record.action, files[0], tuple(files[1:])), list(record.planned)


def settled_names(log: RunLog) -> dict[str, Path | None]:
    """Files of a run that were moved, by name, with where they went."""
    return {intent.name: outcome.dst for intent, outcome in log.done()}
