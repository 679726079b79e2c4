"""The rules of SPEC 4: plan facts in, verdicts out. No I/O, no clock."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, time, timedelta
from typing import NamedTuple

from clarity.markers import COMPLETED_STATUSES, Marker, first_marker
from clarity.model import PlanClass, PlanFacts, Thresholds, Verdict
from clarity.subplans import root_parents

SECONDS_PER_DAY = 86400.0


class Rules(NamedTuple):
    markers: tuple[Marker, ...]
    thresholds: Thresholds


def follows_parent_reason(parent: str) -> str:
    return f"follows parent {parent}"


def _days(value: float) -> str:
    return f"{value:g}"


CURRENT_REASON = "current session's plan"


def in_use_reason(session: str) -> str:
    return f"in use by session {session}"


class _Scan(NamedTuple):
    """What every plan of one scan is classified against, worked out once."""

    rules: Rules
    now: float
    today: tuple[float, float]  # [start, end) of now's calendar day, as timestamps
    current: frozenset[str]
    in_use: Mapping[str, str]

    @classmethod
    def of(
        cls, rules: Rules, now: datetime, current: frozenset[str], in_use: Mapping[str, str]
    ) -> _Scan:
        midnight = datetime.combine(now.date(), time(), tzinfo=now.tzinfo)
        next_midnight = datetime.combine(now.date() + timedelta(days=1), time(), now.tzinfo)
        today = (midnight.timestamp(), next_midnight.timestamp())
        return cls(rules, now.timestamp(), today, current, in_use)


def _active_now(facts: PlanFacts, scan: _Scan) -> str | None:
    """Rule 1's evidence, or None: modified today, the current plan, a live session's, pinned."""
    if scan.today[0] <= facts.mtime < scan.today[1]:
        return "modified today"
    if facts.name in scan.current:
        return CURRENT_REASON
    session = scan.in_use.get(facts.name)
    if session is not None:
        return in_use_reason(session)
    if facts.frontmatter.pinned:
        return "pinned: true in frontmatter"
    return None


def _completed(facts: PlanFacts, scan: _Scan) -> str | None:
    """Rule 2's evidence, or None: a marker on the H1 or last line, a done status (frontmatter,
    status field or status table)."""
    markers = scan.rules.markers
    marker = first_marker(markers, facts.title)
    if marker is not None:
        return f'H1 marker "{marker.text}"'
    marker = first_marker(markers, facts.last_line)
    if marker is not None:
        return f'last-line marker "{marker.text}"'
    status = facts.frontmatter.status
    if status is not None and status.strip().lower() in COMPLETED_STATUSES:
        return f'frontmatter status "{status.strip()}"'
    if facts.status is not None and facts.status.done:
        return facts.status.evidence
    return None


def classify_one(
    facts: PlanFacts,
    rules: Rules,
    now: datetime,
    current: frozenset[str] = frozenset(),
    in_use: Mapping[str, str] | None = None,
) -> Verdict:
    """Classify one plan on its own rules, first match wins.

    in_use maps the plans of Claude Code sessions active lately to the session.
    """
    return _classify_one(facts, _Scan.of(rules, now, current, in_use or {}))


def _age(facts: PlanFacts, scan: _Scan) -> float:
    return (scan.now - facts.mtime) / SECONDS_PER_DAY


def _small_and_old(facts: PlanFacts, scan: _Scan) -> bool:
    """Rule 3's test: what a file must be for the trash, on its own."""
    limits = scan.rules.thresholds
    return _age(facts, scan) > limits.stale_days and facts.size < limits.stale_bytes


def _held_back_note(sub: PlanFacts, scan: _Scan) -> str:
    age = _age(sub, scan)
    return f"not trashed: sub-plan {sub.name} is {_size(sub.size)}, {age:.1f} days old"


def _size(size: int) -> str:
    return f"{size:,} B" if size < 1024 else f"{size / 1024:.1f} KB"


def _classify_one(facts: PlanFacts, scan: _Scan, held_back_by: PlanFacts | None = None) -> Verdict:
    """First match wins; held_back_by: a sub-plan that keeps this plan's group from the trash."""
    evidence = _active_now(facts, scan)
    if evidence is not None:
        return Verdict(facts, PlanClass.ACTIVE, evidence)
    evidence = _completed(facts, scan)
    if evidence is not None:
        return Verdict(facts, PlanClass.COMPLETED, evidence)
    limits = scan.rules.thresholds
    age = _age(facts, scan)
    if held_back_by is None and _small_and_old(facts, scan):
        reason = (
            f"small and old: {facts.size:,} B < {limits.stale_bytes:,} B, "
            f"{age:.1f} days > {_days(limits.stale_days)}"
        )
        return Verdict(facts, PlanClass.STALE, reason)
    held = "" if held_back_by is None else "; " + _held_back_note(held_back_by, scan)
    if age > limits.dormant_days:
        # For the person who decides: what the plan says of itself, short of done.
        said = "" if facts.status is None else f"; {facts.status.evidence}"
        reason = f"untouched for {age:.1f} days > {_days(limits.dormant_days)}{said}{held}"
        return Verdict(facts, PlanClass.DORMANT, reason)
    if age < 0:
        return Verdict(facts, PlanClass.ACTIVE, "modified in the future (clock skew?)")
    reason = f"in progress: {age:.1f} days old, dormant after {_days(limits.dormant_days)}{held}"
    return Verdict(facts, PlanClass.ACTIVE, reason)


def classify(
    plans: Iterable[PlanFacts],
    rules: Rules,
    now: datetime,
    current: frozenset[str] = frozenset(),
    in_use: Mapping[str, str] | None = None,
) -> tuple[Verdict, ...]:
    """Classify every plan, then fold each sub-plan under its root parent.

    A sub-plan that rule 1 keeps active (modified today, current, in use by a
    session, pinned) stands on its own; every other sub-plan takes its root
    parent's class. A stale parent with a sub-plan that is not small and old
    on its own skips rule 3: the group is dormant or active, never trashed.
    """
    scan = _Scan.of(rules, now, current, in_use or {})
    own = {facts.name: _classify_one(facts, scan) for facts in plans}
    roots = root_parents(own)
    children: dict[str, list[str]] = {}
    for child, root_name in roots.items():
        children.setdefault(root_name, []).append(child)
    for root_name, names in children.items():
        parent = own[root_name]
        if parent.plan_class is not PlanClass.STALE:
            continue
        # A group goes to the trash whole or not at all: only if every file in it
        # is small and old on its own. A stub parent must not drag real work along.
        holder = next(
            (own[n].facts for n in sorted(names) if not _small_and_old(own[n].facts, scan)), None
        )
        if holder is not None:
            own[root_name] = _classify_one(parent.facts, scan, held_back_by=holder)

    verdicts: list[Verdict] = []
    for name in sorted(own):
        verdict = own[name]
        root = roots.get(name)
        if root is None:
            subplans = children.get(name)
            verdicts.append(
                verdict._replace(subplans=tuple(sorted(subplans))) if subplans else verdict
            )
        elif _active_now(verdict.facts, scan) is not None:
            verdicts.append(verdict._replace(parent=root))  # stands on its own
        else:
            parent_class = own[root].plan_class
            verdicts.append(
                verdict._replace(
                    plan_class=parent_class, reason=follows_parent_reason(root), parent=root
                )
            )
    return tuple(verdicts)
