"""What every human-readable report shows, in what order: shared by the renderers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from clarity.hints import Again
from clarity.model import ACTION_FOR, Basis, PlanClass, ScanReport, Verdict
from clarity.printable import display_name

if TYPE_CHECKING:
    from clarity.model import Advice, AgentUsage

# Sections in the order a reviewer reads them: what stays, what apply moves, and last, next
# to the commands that act on them, the plans that need the person's decision.
SECTION_ORDER = (PlanClass.ACTIVE, PlanClass.COMPLETED, PlanClass.STALE, PlanClass.DORMANT)
SECTION_TITLES = {
    PlanClass.COMPLETED: "Completed: archive",
    PlanClass.STALE: "Stale: send to trash",
    PlanClass.DORMANT: "Dormant: for you to review (left in place)",
    PlanClass.ACTIVE: "Active: keep",
}
# An agent's own store (sources/): nothing is moved, every text is kept where it is.
SECTION_TITLES_IN_PLACE = {
    PlanClass.COMPLETED: "Completed: text kept, left in place",
    PlanClass.STALE: "Stale: left in place",
    PlanClass.DORMANT: "Dormant: left in place",
    PlanClass.ACTIVE: "Active: keep",
}


@dataclass(frozen=True, slots=True)
class Row:
    verdict: Verdict
    age_days: float
    nested: bool  # a sub-plan shown under its parent


def format_age(days: float) -> str:
    if days < 0:
        return "future"
    if days < 1:
        return f"{days * 24:.0f}h"
    return f"{days:.1f}d"


def summary_line(report: ScanReport) -> str:
    counts = report.counts()
    total = sum(counts.values())
    parts = [
        f"{counts[plan_class.value]} {plan_class.value} ({ACTION_FOR[plan_class].value})"
        for plan_class in (
            PlanClass.ACTIVE,
            PlanClass.COMPLETED,
            PlanClass.STALE,
            PlanClass.DORMANT,
        )
    ]
    if report.kept_in_place:
        parts = [f"{counts[c.value]} {c.value}" for c in PlanClass]
        kept = f"; {report.agent_label}'s own folder: their texts are kept, nothing is moved"
        return f"{total} plan{'s' if total != 1 else ''}: " + ", ".join(parts) + kept
    held = sum(verdict.kept_by_git for verdict in report.verdicts)
    tracked = f"; {held} tracked by git, left in place" if held else ""
    return f"{total} plan{'s' if total != 1 else ''}: " + ", ".join(parts) + tracked


def decided_by(report: ScanReport) -> dict[str, int]:
    """How many plans each kind of evidence decided (sub-plans follow their parent's)."""
    counts: Counter[Basis] = Counter(
        v.basis for v in report.verdicts if v.basis is not Basis.PARENT
    )
    return {basis.value: counts[basis] for basis in Basis if counts[basis]}


def decided_by_line(report: ScanReport) -> str | None:
    """The line under the counts; it adds up to the same files the counts line does (a
    sub-plan that follows its parent is counted as such, issue 36, item 12)."""
    counts = decided_by(report)
    if not counts:
        return None
    said = ", ".join(
        f"{count} {_BASIS_WORDS.get(basis, basis).format(agent=report.agent_label)}"
        for basis, count in counts.items()
    )
    following = sum(1 for v in report.verdicts if v.basis is Basis.PARENT)
    if following == 1:
        said += ", 1 sub-plan following its parent"
    elif following:
        said += f", {following} sub-plans following their parent"
    return f"How each plan was decided: {said}"


# The footer's words for each kind of evidence (JSON keeps the Basis values as keys).
_BASIS_WORDS = {
    Basis.IN_USE.value: "in use by a {agent} session",
    Basis.RESTORED.value: "restored from the archive lately",
    Basis.MARKER.value: "marked done in the plan",
    Basis.FRONTMATTER.value: "by a frontmatter status",
    Basis.STATUS.value: "by a status field, table or todo list",
    Basis.SESSION.value: "by what their {agent} session did",
    Basis.AGENT.value: "by the agent",
    Basis.AGE.value: "by age and size alone",
}


def proposal_line(report: ScanReport, again: Again) -> str:
    """Which proposal this report is, so apply can be held to it."""
    if report.gone:
        return "A sample, laid out for this report and removed again: nothing here to apply."
    if report.proposal is None:
        return "This scan was not recorded: apply needs --rescan to act on it."
    if not report.moves():
        return "Nothing for apply to do: no plan here is to be archived or trashed."
    when = report.now.strftime("%Y-%m-%d %H:%M")
    return f"Proposal {report.proposal} ({when}): {apply_command(report, again)}"


def apply_command(report: ScanReport, again: Again) -> str:
    """The command that carries out exactly this scan, on the same directories."""
    assert report.proposal is not None
    return again.command("apply", "--proposal", report.proposal)


def header_line(report: ScanReport) -> str:
    return f"Plans in {report.plans_dir}, as of {report.now.strftime('%Y-%m-%d %H:%M %z')}"


def _section_rows(
    report: ScanReport, members: list[Verdict], by_name: dict[str, Verdict]
) -> list[Row]:
    """One class's plans, newest first, each followed by the sub-plans that follow it."""
    in_section = {v.name for v in members}
    rows: list[Row] = []
    for verdict in sorted(members, key=lambda v: (-v.facts.mtime, v.name)):
        if verdict.parent in in_section:
            continue  # shown under its parent
        rows.append(Row(verdict, report.age_days(verdict), nested=False))
        for child_name in verdict.subplans:
            child = by_name[child_name]
            if child.plan_class is verdict.plan_class:
                rows.append(Row(child, report.age_days(child), nested=True))
    return rows


def sections(report: ScanReport) -> Iterator[tuple[PlanClass, str, list[Row]]]:
    """The non-empty sections in SECTION_ORDER, with their rows."""
    by_class: dict[PlanClass, list[Verdict]] = {plan_class: [] for plan_class in SECTION_ORDER}
    for verdict in report.verdicts:
        by_class[verdict.plan_class].append(verdict)
    by_name = {v.name: v for v in report.verdicts}
    for plan_class in SECTION_ORDER:
        if by_class[plan_class]:
            rows = _section_rows(report, by_class[plan_class], by_name)
            titles = SECTION_TITLES_IN_PLACE if report.kept_in_place else SECTION_TITLES
            yield plan_class, titles[plan_class], rows


def reason_text(row: Row) -> str:
    verdict = row.verdict
    if row.nested and verdict.basis is Basis.PARENT and not verdict.kept_by_git:
        return "follows parent"  # shown right under it
    if verdict.parent is not None and not row.nested:
        return f"{verdict.reason} (sub-plan of {display_name(verdict.parent)})"
    return verdict.reason


URGENT_DAYS = 7  # an active plan this close to Claude Code's cleanup is flagged too


def days_at_risk(report: ScanReport, verdict: Verdict) -> int | None:
    """Days until Claude Code's own cleanup deletes a plan, when the report should say so.

    Always for a dormant plan; for an active one (a pinned plan, say) only
    when the day is near, since Claude Code deletes it just the same.
    """
    left = report.cleanup_in_days(verdict)
    if left is None or (verdict.plan_class is not PlanClass.DORMANT and left >= URGENT_DAYS):
        return None
    return left


def cleanup_text(left: int, report: ScanReport) -> str:
    """`cleanup_in_days` in words: the same figure as --json gives."""
    who = "Claude Code" if report.retention is None else report.retention.who
    if left < 0:
        return f"past {who}'s cleanup age: deleted at its next start"
    if left == 0:
        return f"{who} deletes it within a day"
    return f"{who} deletes it in {left} day{'s' if left != 1 else ''}"


def moves_plans(report: ScanReport) -> bool:
    """Whether clarity may move the report's plans out of their folder (an agent's own
    session store: never; sources/)."""
    return not report.kept_in_place


def cleanup_lines(report: ScanReport, again: Again) -> list[str]:
    """The retention rule, and the way out, when a plan in the report is at risk."""
    retention = report.retention
    if retention is None or all(days_at_risk(report, v) is None for v in report.verdicts):
        return []
    keep = again.command("archive", "NAME")
    if retention.since is not None:  # the whole session goes, by its last activity
        rule = (
            f"{retention.who} deletes this session's plans with it, {retention.days:g} days "
            f"after its last activity ({retention.source})"
        )
    else:
        rule = (
            f"{retention.who} deletes plans older than {retention.days:g} days ({retention.source})"
        )
    if not moves_plans(report):
        return [f"{rule}; clarity keeps each plan's text at every apply: {again.command('apply')}"]
    return [f"{rule}; keep a plan with: {keep}"]


def decision_lines(report: ScanReport, again: Again) -> list[str]:
    """What to do about the plans that need a decision: said last, beside their list."""
    lines = cleanup_lines(report, again)
    if report.gone:
        return []  # its folder is gone: a command naming it would act on nothing
    if lines or not any(v.plan_class is PlanClass.DORMANT for v in report.verdicts):
        return lines
    if not moves_plans(report):
        return []  # nothing to archive by hand: its text is kept where it is
    keep = again.command("archive", "NAME")
    return [f"Dormant plans stay where they are until you decide; archive one with: {keep}"]


def warning_lines(report: ScanReport) -> list[str]:
    return [
        f"{display_name(v.name)}: {warning}"
        for v in report.verdicts
        for warning in v.facts.warnings
    ]


def advice_text(advice: Advice) -> str:
    return f"agent: {advice.verdict} ({advice.confidence:.0%}): {advice.reason}"


def agent_lines(usage: AgentUsage | None) -> list[str]:
    """What the agent did and cost, then anything it has to say (no key, budget spent)."""
    if usage is None:
        return []
    cached = f", {usage.cached} answered from the cache" if usage.cached else ""
    lines = [
        f"Agent {usage.model}: {usage.requests} request{'s' if usage.requests != 1 else ''}"
        f"{cached}, {usage.tokens:,} tokens used of a {usage.budget:,} budget"
    ]
    return lines + [f"Agent: {note}" for note in usage.notes]
