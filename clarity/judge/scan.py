"""`clarity scan`: read every plan, classify it, return the report (no output)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType

from clarity.archive.layout import check_layout
from clarity.errors import ClarityError, NoPlansYet
from clarity.hints import clarity_command
from clarity.judge.classifier import Evidence, Rules, classify
from clarity.model import (
    MOVING_ACTIONS,
    NO_SESSIONS,
    PlanFacts,
    PlanSessions,
    ScanReport,
    ScanRequest,
    Verdict,
)
from clarity.plans.facts_cache import FactsCache
from clarity.plans.folder_signs import project_signs as project_signs
from clarity.plans.markers import compile_markers
from clarity.plans.reader import NotARegularFile, fingerprint, read_plans_dir
from clarity.plans.tracked import NOT_IN_GIT, Tracked, tracked_plans
from clarity.printable import counted
from clarity.progress import Progress
from clarity.settings.config import Settings
from clarity.settings.locations import Origin, expand_home
from clarity.sources import source_of


def check_plans_dir(settings: Settings) -> None:
    plans_dir = settings.plans_dir
    if settings.plans_gone and not os.path.lexists(plans_dir):
        return  # the agent deleted it; what clarity kept of it is in the archive
    source = settings.sources["plans_dir"]
    if not plans_dir.exists():
        first_run = source.origin in (Origin.DEFAULT, Origin.CLAUDE_CONFIG_DIR)
        if first_run and not plans_dir.is_symlink():
            raise NoPlansYet(str(plans_dir), clarity_command("demo"))  # a first run
        raise ClarityError(
            f"plans directory {plans_dir} does not exist (from {source}); "
            "point --plans-dir or CLARITY_PLANS_DIR at your plans"
        )
    if not plans_dir.is_dir():
        raise ClarityError(
            f"plans directory {plans_dir} is not a directory (from {source}); "
            "point --plans-dir at the folder that holds your plans"
        )
    check_layout(plans_dir, settings.archive_dir)


def check_not_a_project(plans_dir: Path, source: str) -> None:
    """Refuse to move plans out of a folder that is plainly a project's (an empty or
    mistaken --plans-dir, `.`): its README, CHANGELOG and design notes are no plans."""
    found = project_signs(plans_dir)
    if found:
        raise ClarityError(
            f"{plans_dir} (from {source}) holds {' and '.join(found[:3])}: it looks like a "
            "project, not a plans directory, so apply moves nothing there; check --plans-dir, "
            "or add --trust-plans-dir if it is your plans directory"
        )


def current_plan_names(values: Iterable[str], plans_dir: Path) -> frozenset[str]:
    """Names in plans_dir of the plans given as current: a path there, or a bare name as the
    report shows it (`fix-auth`, `fix-auth.md`). Values naming no plan there are left out
    (unknown_current says so)."""
    names: set[str] = set()
    real_plans_dir = os.path.realpath(plans_dir)
    for value in values:
        if not value.strip():
            continue
        path = expand_home(value.strip())
        if path.parent == Path() or os.path.realpath(path.parent) == real_plans_dir:
            name = path.name if path.name.endswith(".md") else f"{path.name}.md"
            names.add(path.name if os.path.lexists(plans_dir / path.name) else name)
    return frozenset(names)


def unknown_current(values: Iterable[str], plans_dir: Path, known: Iterable[str]) -> list[str]:
    """A note for each --current value that names no plan of this scan."""
    found = set(known)
    notes = []
    for value in values:
        if value.strip() and not current_plan_names([value], plans_dir) & found:
            notes.append(f"--current {value}: no such plan in {plans_dir}; nothing kept for it")
    return notes


def live_sessions(
    settings: Settings, now: datetime, session: str | None, *, go_on: bool = False
) -> PlanSessions:
    """What the sessions of the folder's agent say about its plans as of now (its plan
    source's, sources/). go_on: start where a scan cut short stopped."""
    return source_of(settings).sessions(settings, now, session, go_on=go_on)


def _hashed_where_compared(
    plans: tuple[PlanFacts, ...], sessions: PlanSessions
) -> tuple[PlanFacts, ...]:
    """The plans, each whose approved text is known hashed whole (the reader hashes only
    plans it reads whole): whether it still holds that text is evidence (SPEC 4.3)."""
    if not any(
        (found := sessions.evidence.get(facts.name)) is not None
        and found.texts
        and facts.sha256 is None
        for facts in plans
    ):
        return plans
    hashed = []
    for facts in plans:
        found = sessions.evidence.get(facts.name)
        if found is not None and found.texts and facts.sha256 is None:
            try:
                whole = fingerprint(facts.path)
                if whole.stamp == facts.stamp:  # the bytes the rest of the facts are of
                    facts = facts._replace(sha256=whole.sha256)
            except (OSError, NotARegularFile):
                pass  # unreadable now: its mtime decides, as where no text is known
        hashed.append(facts)
    return tuple(hashed)


Review = Callable[[ScanReport], ScanReport]  # the agent's advice on a report's dormant plans


def in_project(report: ScanReport, project: Path) -> ScanReport:
    """The report on one project's plans: those whose session worked in project (or below it)."""
    roots = {os.path.abspath(project), os.path.realpath(project)}  # noqa: PTH100 (as typed)

    def inside(folder: str | None) -> bool:
        return folder is not None and any(
            folder == root or folder.startswith(root.rstrip(os.sep) + os.sep) for root in roots
        )

    kept = tuple(v for v in report.verdicts if inside(report.project(v)))
    if not kept:  # a project no session worked in: said, not an empty report alone
        known = sorted({p for v in report.verdicts if (p := report.project(v)) is not None})
        note = f"--project {project}: no plan's session worked there" + (
            f" (sessions worked in {counted(len(known), 'project')}, e.g. {known[0]})"
            if known
            else ""
        )
        return report._replace(verdicts=kept, notes=(*report.notes, note))
    return report._replace(verdicts=kept)


NOTHING_RESTORED: Mapping[str, float] = MappingProxyType({})

HELD = "tracked by git, so left in place (apply --include-tracked moves it)"


def hold_tracked(verdicts: tuple[Verdict, ...], tracked: Tracked) -> tuple[Verdict, ...]:
    """Each group holding a plan git tracks is reported, never moved: its record is the
    team's, and git keeps its history (SPEC 2)."""
    held = {v.parent or v.name for v in verdicts if tracked.holds(v.name)}
    if not held:
        return verdicts
    return tuple(
        v._replace(
            held=True, reason=f"{v.reason}; {HELD}" if v.action in MOVING_ACTIONS else v.reason
        )
        if (v.parent or v.name) in held
        else v
        for v in verdicts
    )


KEPT_IN_PLACE = "clarity keeps its text at each apply and never moves it"


def hold_every(verdicts: tuple[Verdict, ...], why: str) -> tuple[Verdict, ...]:
    """Every plan of a folder clarity may not write in (an agent's session store) is
    reported, never moved: its text is kept as a version instead (sources/)."""
    return tuple(
        v._replace(
            held=True, reason=f"{v.reason}; {why}" if v.action in MOVING_ACTIONS else v.reason
        )
        for v in verdicts
    )


def _tracked_note(tracked: Tracked, settings: Settings) -> tuple[str, ...]:
    if tracked.unknown is None or settings.include_tracked:
        return ()
    return (
        f"{settings.plans_dir} is in a git work tree, but {tracked.unknown}: every plan "
        "there is left in place",
    )


@dataclass(frozen=True)
class Gathering:
    """How a scan gathers its facts, beyond the plans and transcripts themselves (the
    pipeline, workflows/pipeline.py, fills it from the folder's state).

    progress: told of each plan read. cache: facts of plans unchanged since they were
    last read. review: the agent, asked about the dormant plans; its `finished`
    verdicts decide where the person let them (agent_archives). go_on: the
    transcripts are read from where a scan cut short stopped, those before it taken
    as they were (the SessionStart hook's way, to get further each time). restored:
    plans a person put back from the archive lately, and when (read from past runs'
    journals by the workflow: the judge reads no journal).
    """

    progress: Progress | None = None
    cache: FactsCache | None = None
    review: Review | None = None
    go_on: bool = False
    restored: Mapping[str, float] = field(default_factory=lambda: NOTHING_RESTORED)


NO_GATHERING = Gathering()  # plans and transcripts alone: read whole, no agent, no journal


def scan(
    settings: Settings, request: ScanRequest, gathering: Gathering = NO_GATHERING
) -> ScanReport:
    """Classify every plan; plans of Claude Code sessions active lately stay active.

    request: the moment, the plans named current, the Claude Code session clarity runs
    for (its plans are current, however long ago it last wrote), and the project whose
    plans alone are reported.
    """
    now, current, session, project = request.now, request.current, request.session, request.project
    progress, cache, review = gathering.progress, gathering.cache, gathering.review
    go_on, restored = gathering.go_on, gathering.restored
    source = source_of(settings)
    prepared = source.prepare(settings)
    check_plans_dir(settings)
    if settings.plans_gone and not os.path.lexists(settings.plans_dir):
        archived = clarity_command("archived", "--plans-dir", os.fspath(settings.plans_dir))
        raise ClarityError(
            f"{source.label} deleted {settings.plans_dir} with its session; clarity kept the "
            f"texts of its plans: {archived} lists them"
        )
    try:
        listing = read_plans_dir(settings.plans_dir, progress, cache, source.is_plan)
    except OSError as error:
        raise ClarityError(
            f"cannot read plans directory {settings.plans_dir}: {error.strerror or error}; "
            "check its permissions"
        ) from None
    # With no plans there is nothing for the transcripts to tell about.
    sessions = (
        source.sessions(settings, now, session, go_on=go_on) if listing.plans else NO_SESSIONS
    )
    rules = Rules(
        markers=compile_markers(settings.markers),
        thresholds=settings.thresholds,
        agent_min_confidence=settings.agent.min_confidence,
        sub_plans=source.sub_plans,
    )
    current_names = current_plan_names(current, settings.plans_dir) | sessions.current
    evidence = Evidence(sessions=sessions.evidence, restored=restored, presented=sessions.presented)

    plans = _hashed_where_compared(listing.plans, sessions)

    def verdicts() -> tuple[Verdict, ...]:
        found = classify(plans, rules, now, current_names, sessions.in_use, evidence)
        if not source.may_move:
            return hold_every(found, f"{source.label}'s own folder: {KEPT_IN_PLACE}")
        return found if settings.include_tracked else hold_tracked(found, tracked)

    tracked = tracked_plans(settings.plans_dir) if listing.plans and source.may_move else NOT_IN_GIT
    report = ScanReport(
        plans_dir=settings.plans_dir,
        archive_dir=settings.archive_dir,
        now=now,
        verdicts=verdicts(),
        skipped=listing.skipped,
        retention=settings.retention,
        notes=(
            *prepared,
            *sessions.notes,
            *_tracked_note(tracked, settings),
            *unknown_current(current, settings.plans_dir, (p.name for p in listing.plans)),
        ),
        projects=sessions.projects,
        sessions=sessions.evidence,
        plan_source=source.name,
        kept_in_place=not source.may_move,
        agent_label=source.label,
    )
    if project is not None:
        report = in_project(report, project)
    if review is not None:
        report = review(report)
        if settings.agent.archives and report.advice:
            evidence = evidence._replace(agent=report.advice)
            report = report._replace(verdicts=verdicts())
            if project is not None:
                report = in_project(report, project)
    return report
