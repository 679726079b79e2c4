"""`clarity apply` and `clarity undo` as the CLI calls them: lock, recovery, the
recorded proposal, the question; the executor does the moving.

Each returns a RunReport for a renderer to print; asking the user is a
callback, so the core never touches a terminal.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from clarity.archive.layout import check_archive_dir
from clarity.errors import ClarityError
from clarity.executor.apply import apply_groups, settled_names
from clarity.executor.indexing import flush_pending
from clarity.executor.journal import RunLog, Runs, load_runs
from clarity.executor.mover import extractive_summary
from clarity.executor.records import RunKind
from clarity.executor.recovery import recover
from clarity.executor.results import RunReport as RunReport  # the report every run gives
from clarity.executor.undo import UndoPlan, plan_undo, undo
from clarity.hints import Again
from clarity.judge.handpick import archive_proposal
from clarity.judge.proposal import Proposal, ProposedGroup, load_proposal, save_proposal
from clarity.judge.scan import (
    check_not_a_project,
    check_plans_dir,
    project_signs,
)
from clarity.model import Action, ScanReport, ScanRequest, Summarizer
from clarity.printable import counted
from clarity.progress import Progress
from clarity.settings.config import Settings
from clarity.state import DirState
from clarity.workflows.pipeline import PlanFolder, Review

if TYPE_CHECKING:
    from clarity.agent.advisor import Advisor
    from clarity.model import AgentUsage


@dataclass(frozen=True, slots=True)
class ApplyPreview:
    proposal: Proposal
    groups: tuple[ProposedGroup, ...]  # what is left to do
    resumed: bool  # an interrupted apply of this proposal already did part of it
    handpicked: bool = False  # the plans a person named (clarity archive), not a scan's

    @property
    def file_count(self) -> int:
        return sum(len(group.files) for group in self.groups)


ConfirmApply = Callable[[ApplyPreview], bool]
ConfirmUndo = Callable[[UndoPlan], bool]


def settle_interrupted(state: DirState) -> list[str]:
    """Finish or roll back a killed run, if there is one and no live run holds the lock."""
    if state.running_run() is None:
        return []
    with state.try_lock() as locked:
        return recover(state) if locked else []


def settle_before_run(state: DirState) -> tuple[list[str], Runs]:
    """Under the lock, before a run: a killed run settled, the journals read (damage set
    aside), index changes an earlier run left made; what the person should know."""
    notes = recover(state)
    runs = load_runs(state)
    notes += runs.notes
    index = flush_pending(state)
    return [*notes, *index.failed, *index.notes], runs


def nothing_done(kind: RunKind, settings: Settings, notes: Iterable[str], note: str) -> RunReport:
    return RunReport(
        kind,
        settings.plans_dir,
        settings.archive_dir,
        None,
        notes=(*notes, note),
    )


def _hint(settings: Settings, verb: str, *args: str) -> str:
    return Again.of(settings).command(verb, *args)


def _proposal(settings: Settings, state: DirState, wanted: str | None) -> Proposal:
    proposal = load_proposal(state)
    if proposal is None:
        named = (
            f"no scan {wanted} is recorded for {settings.plans_dir}"
            if wanted
            else f"no scan of {settings.plans_dir} is recorded"
        )
        raise ClarityError(
            f"{named}; run {_hint(settings, 'scan')}, "
            f"review it, then apply it (or {_hint(settings, 'apply', '--rescan')} to do both)"
        )
    if wanted is not None and wanted != proposal.id:
        raise ClarityError(
            f"no scan {wanted} is recorded for {settings.plans_dir} (the latest is "
            f"{proposal.label}; a scan since the one you reviewed replaces it): review the "
            f"latest with {_hint(settings, 'scan')}, then apply it"
        )
    explicit = settings.sources["archive_dir"].given
    if explicit and proposal.archive_dir != settings.archive_dir:
        raise ClarityError(
            f"the reviewed scan archives into {proposal.archive_dir}, not "
            f"{settings.archive_dir}; scan again with that archive dir, or use --rescan"
        )
    return proposal


def run_apply(
    settings: Settings,
    request: ScanRequest,
    *,
    rescan: bool,
    confirm: ConfirmApply,
    progress: Progress | None = None,
    proposal_id: str | None = None,
    trust_plans_dir: bool = False,
) -> RunReport:
    """Carry out the recorded proposal (the one named by proposal_id, if given), or a
    fresh scan's with rescan; never in a folder that looks like a project, unless trusted."""
    if rescan:  # an agent whose plans clarity extracts has them in its folder first
        from clarity.sources import source_of

        source_of(settings).prepare(settings)
    check_plans_dir(settings)
    if not trust_plans_dir:
        check_not_a_project(settings.plans_dir, settings.sources["plans_dir"])
    state = DirState.for_plans_dir(settings.plans_dir)
    declined: list[bool] = []

    def asked(preview: ApplyPreview) -> bool:
        declined.append(not confirm(preview))
        return not declined[-1]

    with state.lock():
        report = _apply_locked(settings, state, request, rescan, asked, progress, proposal_id)
        if any(declined):  # the person said no: clarity writes nothing at all
            return report
        return _with_texts_kept(report, settings, state, request.now, trusted=True)


def _with_texts_kept(
    report: RunReport, settings: Settings, state: DirState, now: datetime, *, trusted: bool
) -> RunReport:
    """The run's report, and what the keeping pass that follows every writing run did:
    each live plan's text, if it changed since, kept as a version (SPEC 6.1)."""
    from clarity.sources import source_of
    from clarity.workflows.keeping import keep_live_plans, keep_session_texts

    if not trusted and project_signs(settings.plans_dir):  # a hand archive in a project:
        return report  # its README and notes are no plans to keep
    # First the texts sessions carried: a text kept from there says which session it was.
    carried = keep_session_texts(state, settings.archive_dir, now)
    kept = keep_live_plans(
        state,
        settings.plans_dir,
        settings.archive_dir,
        now,
        retention=settings.retention,
        keep_days=settings.keep_days,
        is_plan=source_of(settings).is_plan,
    )
    kept.problems.extend(carried.problems)
    kept.kept.extend(carried.kept)
    lines = kept.problems[:3]
    lines.extend(_ledger_compacted(state, settings, now))
    if len(kept.problems) > 3:  # one cause (a read-only archive) says the same for each plan
        lines.append(f"... and {len(kept.problems) - 3} more texts not kept, for now")
    if kept.kept:
        where = settings.archive_dir / "versions"
        lines.append(f"kept {counted(len(kept.kept), 'new plan text')} in {where}")
    if kept.near_cleanup:
        names = ", ".join(kept.near_cleanup[:5]) + (", ..." if len(kept.near_cleanup) > 5 else "")
        listing = Again.of(settings).command("archived")
        plans = counted(len(kept.near_cleanup), "plan")
        them = "them" if len(kept.near_cleanup) > 1 else "it"
        lines.append(
            f"kept the text of {plans} before {_cleaner(settings)}'s cleanup "
            f"deletes {them} ({names}): once it has, {listing} lists {them} and restore puts "
            f"{'one' if them == 'them' else 'it'} back"
        )
    return dataclasses.replace(report, notes=(*report.notes, *lines)) if lines else report


def _cleaner(settings: Settings) -> str:
    return "Claude Code" if settings.retention is None else settings.retention.who


def _ledger_compacted(state: DirState, settings: Settings, now: datetime) -> list[str]:
    """The approval ledger compacted, once it has grown enough (ledger_compact.py): what
    that did, as the run's note."""
    from clarity.transcripts.ledger_compact import compact

    try:
        done = compact(os.fspath(state.shared), now.timestamp(), settings.protect_hours)
    except OSError as error:
        return [f"the approval ledger was not compacted ({error.strerror or error}): next run"]
    if done is None or done.after >= done.before:
        return []
    return [f"compacted the approval ledger: {_size(done.before)} -> {_size(done.after)}"]


def _size(count: int) -> str:
    return f"{count / 1024 / 1024:.1f} MiB" if count >= 1024 * 1024 else f"{count:,} bytes"


def _apply_locked(
    settings: Settings,
    state: DirState,
    request: ScanRequest,
    rescan: bool,
    confirm: ConfirmApply,
    progress: Progress | None,
    proposal_id: str | None,
) -> RunReport:
    """run_apply's work, with the plans dir's lock held."""
    notes, journals = settle_before_run(state)
    folder = PlanFolder(settings, state)
    if rescan:
        _, proposal = folder.scan_and_propose(request, review=Review.TO_DECIDE, progress=progress)
        save_proposal(state, proposal)
    else:
        proposal = _proposal(settings, state, proposal_id)
    runs = [
        log for log in journals.logs if log.kind is RunKind.APPLY and log.proposal == proposal.id
    ]
    # A scan is applied once per move that succeeded: what failed or was skipped
    # stays to do, and the next apply (or the weekly rescan) does it.
    done: set[str] = set()
    for log in runs:
        done.update(settled_names(log))
    groups = tuple(group for group in proposal.groups if group.plan.name not in done)
    finished = [log for log in runs if not log.interrupted]
    if finished and not groups:
        return nothing_done(
            RunKind.APPLY,
            settings,
            notes,
            f"the scan {proposal.label} was already applied "
            f"({run_label(finished[-1])}); nothing to do until you scan again",
        )
    if not groups:
        what = "all of it was done by an interrupted run" if runs else "it moves nothing"
        return nothing_done(
            RunKind.APPLY,
            settings,
            notes,
            f"nothing to apply from the scan {proposal.label}: {what}",
        )
    if any(group.action is Action.ARCHIVE for group in groups):
        check_archive_dir(proposal.archive_dir)
    preview = ApplyPreview(proposal, groups, resumed=bool(runs))
    if not confirm(preview):
        return nothing_done(RunKind.APPLY, settings, notes, "nothing was moved")
    tick = progress("Moving plans", preview.file_count) if progress else None
    summarize, usage = _summarizer(settings, folder.advisor)
    held = {} if rescan else folder.must_stay(request)
    held = {**held, **_agents_own(settings, groups)}
    report = apply_groups(state, proposal, groups, tick, summarize, held=held)
    notes.append(f"carried out the scan {proposal.label}")
    return dataclasses.replace(
        report,
        notes=(*notes, *report.notes),
        agent=usage,
        proposal=proposal.id,
    )


def run_label(log: RunLog) -> str:
    """A run as people name it: `the apply of 2026-11-23 10:04`."""
    return log.label


def _refuse_archived_already(settings: Settings, scanned: ScanReport, names: list[str]) -> None:
    """A plan named that is not live but in the archive: said so, with the command that
    puts it back (not "no plan named", as if it were nowhere)."""
    from clarity.archive.shelf import find_archived

    live = {verdict.name for verdict in scanned.verdicts} | {s.path.name for s in scanned.skipped}
    for value in names:
        stem = os.path.basename(value.strip()).removesuffix(".md")  # noqa: PTH119
        if not stem or f"{stem}.md" in live:
            continue
        try:
            found = find_archived(settings.archive_dir, stem)
        except ClarityError:
            continue  # not archived either: archive_proposal says so
        restore = Again.of(settings).command("restore", stem)
        raise ClarityError(
            f"{stem}.md is archived already ({found.relative} in {settings.archive_dir}); "
            f"{restore} puts it back"
        )


def run_archive(
    settings: Settings,
    request: ScanRequest,
    names: Iterable[str],
    *,
    confirm: ConfirmApply,
) -> RunReport:
    """Archive the plans a person named, now, with the journal and undo of an apply.

    The named plans are classified afresh under the lock: a plan a live
    session uses is refused, whatever the latest scan said.
    """
    check_plans_dir(settings)
    state = DirState.for_plans_dir(settings.plans_dir)
    with state.lock():
        notes, _ = settle_before_run(state)
        folder = PlanFolder(settings, state)
        scanned = folder.scan(request)  # afresh, under the lock: in use now is refused
        names = list(names)
        _refuse_archived_already(settings, scanned, names)
        proposal = archive_proposal(scanned, names, Again.of(settings))
        check_archive_dir(proposal.archive_dir)
        if not confirm(ApplyPreview(proposal, proposal.groups, resumed=False, handpicked=True)):
            return nothing_done(RunKind.ARCHIVE, settings, notes, "nothing was moved")
        summarize, usage = _summarizer(settings, folder.advisor)
        report = apply_groups(
            state, proposal, proposal.groups, None, summarize, kind=RunKind.ARCHIVE
        )
        report = dataclasses.replace(report, notes=(*notes, *report.notes), agent=usage)
        return _with_texts_kept(report, settings, state, request.now, trusted=False)


def _agents_own(settings: Settings, groups: Iterable[ProposedGroup]) -> dict[str, str]:
    """Every file of the groups, when the folder is an agent's own store (sources/): the
    judge proposes no move there, and a proposal made by other means moves nothing
    either (the executor leaves a held file where it is, and says why)."""
    from clarity.sources import source_of

    source = source_of(settings)
    if source.may_move:
        return {}
    why = f"{source.label}'s own folder: clarity never moves a file out of it"
    return {file.name: why for group in groups for file in group.files}


def _summarizer(
    settings: Settings, advisor: Advisor | None
) -> tuple[Summarizer, AgentUsage | None]:
    """Archive summaries from the agent when it is on, else extractive."""
    if advisor is None:
        return extractive_summary, None
    from clarity.agent.review import archive_summarizer

    return archive_summarizer(advisor, settings.agent.plan_bytes), advisor.usage


def run_undo(settings: Settings, *, confirm: ConfirmUndo) -> RunReport:
    check_plans_dir(settings)
    state = DirState.for_plans_dir(settings.plans_dir)
    with state.lock():
        notes, journals = settle_before_run(state)
        plan = plan_undo(journals.logs, settings.plans_dir, settings.archive_dir)
        if plan is None or not plan.items:
            notes += plan.notes if plan is not None else ()
            return nothing_done(
                RunKind.UNDO, settings, notes, "nothing to undo: no apply here is left to undo"
            )
        if not confirm(plan):
            return nothing_done(RunKind.UNDO, settings, notes, "nothing was restored")
        report = undo(state, plan)
    return dataclasses.replace(report, notes=(*notes, *report.notes))
