"""The rules of SPEC 4: plan facts in, verdicts out. No I/O, no clock.

Each verdict names its evidence in `reason` and the kind of evidence in
`basis`. The plan's own words (markers, frontmatter, status fields) are read
by the reader; what sessions did with a plan and what the agent thinks of it
are handed in as `Evidence`; this module only weighs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, time, timedelta, tzinfo
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from clarity.model import Basis, PlanClass, PlanFacts, SessionEvidence, Thresholds, Verdict
from clarity.plans.markers import COMPLETED_STATUSES, Marker, first_marker
from clarity.plans.subplans import root_parents
from clarity.printable import printable

if TYPE_CHECKING:
    from clarity.model import Advice

SECONDS_PER_DAY = 86400.0
AGENT_MIN_CONFIDENCE = 0.8
# A plan written within this long after its session's last transcript line was
# still written by that session (a plan file and its transcript are not flushed
# together); later than that, a person edited it after the session.
SESSION_WRITE_SLACK = 120.0


class Rules(NamedTuple):
    markers: tuple[Marker, ...]
    thresholds: Thresholds
    agent_min_confidence: float = AGENT_MIN_CONFIDENCE  # a `finished` verdict decides from here
    # Which plans are sub-plans of which root parent: the plan source's naming (sources/)
    sub_plans: Callable[[set[str]], Mapping[str, str]] = root_parents


_NO_SESSIONS: Mapping[str, SessionEvidence] = MappingProxyType({})
_NO_ADVICE: Mapping[str, Advice] = MappingProxyType({})
_NO_RESTORES: Mapping[str, float] = MappingProxyType({})


class Evidence(NamedTuple):
    """What other sources than the plan file say, by plan name."""

    sessions: Mapping[str, SessionEvidence] = _NO_SESSIONS  # each plan's latest approval
    agent: Mapping[str, Advice] = _NO_ADVICE  # verdicts the person lets decide (agent_archives)
    restored: Mapping[str, float] = _NO_RESTORES  # when `clarity restore` put a plan back
    presented: frozenset[str] = frozenset()  # plans a session presented or approved


def follows_parent_reason(parent: str) -> str:
    return f"follows parent {parent}"


def _days(value: float) -> str:
    return f"{value:g}"


CURRENT_REASON = "current session's plan"
RULE_ONE = frozenset({Basis.NOW, Basis.IN_USE})  # kept active by what is happening now


def in_use_reason(session: str) -> str:
    """Sessions are named by their first 8 characters in every reason (as Claude Code's
    own /resume list does): the same session reads the same everywhere."""
    return f"in use by session {session[:8]}"


class _Scan(NamedTuple):
    """What every plan of one scan is classified against, worked out once."""

    rules: Rules
    now: float
    zone: tzinfo | None  # now's offset: the zone dates in reasons are given in
    today: tuple[float, float]  # [start, end) of now's calendar day, as timestamps
    current: frozenset[str]
    in_use: Mapping[str, str]
    evidence: Evidence

    @classmethod
    def of(
        cls,
        rules: Rules,
        now: datetime,
        current: frozenset[str],
        in_use: Mapping[str, str] | None,
        evidence: Evidence | None,
    ) -> _Scan:
        midnight = datetime.combine(now.date(), time(), tzinfo=now.tzinfo)
        next_midnight = datetime.combine(now.date() + timedelta(days=1), time(), now.tzinfo)
        today = (midnight.timestamp(), next_midnight.timestamp())
        return cls(
            rules,
            now.timestamp(),
            now.tzinfo,
            today,
            current,
            in_use or {},
            evidence or Evidence(),
        )


class _Found(NamedTuple):
    reason: str
    basis: Basis


def restored_lately(restored_at: float, now: float, thresholds: Thresholds) -> bool:
    """Whether a plan `clarity restore` put back is still kept active: for dormant_days,
    edits since or not (a plan is usually put back to be worked on)."""
    return now - restored_at < thresholds.dormant_days * SECONDS_PER_DAY


def restored_reason(restored_at: float, zone: tzinfo | None) -> str:
    return f"restored by you on {datetime.fromtimestamp(restored_at, zone).date().isoformat()}"


def _active_now(facts: PlanFacts, scan: _Scan) -> _Found | None:
    """Rule 1's evidence, or None: modified today, the current plan, a live session's,
    restored from the archive lately, pinned."""
    if scan.today[0] <= facts.mtime < scan.today[1]:
        return _Found("modified today", Basis.NOW)
    held = _held(facts.name, scan)
    if held is not None:
        return held
    if facts.frontmatter.pinned:
        return _Found("pinned: true in frontmatter", Basis.NOW)
    return None


def _held(name: str, scan: _Scan) -> _Found | None:
    """Rule 1 as far as a plan's name tells it: the current session's plan, a live
    session's, or one a person put back from the archive lately."""
    if name in scan.current:
        return _Found(CURRENT_REASON, Basis.IN_USE)
    session = scan.in_use.get(name)
    if session is not None:
        return _Found(in_use_reason(session), Basis.IN_USE)
    restored_at = scan.evidence.restored.get(name)
    if restored_at is not None and restored_lately(restored_at, scan.now, scan.rules.thresholds):
        return _Found(restored_reason(restored_at, scan.zone), Basis.RESTORED)
    return None


def must_stay(
    name: str,
    now: datetime,
    *,
    current: frozenset[str],
    in_use: Mapping[str, str],
    restored: Mapping[str, float],
    thresholds: Thresholds,
) -> str | None:
    """Why a plan must stay where it is at this moment (rule 1 by its name), or None:
    what a move asks just before it moves a plan a scan proposed, maybe hours ago."""
    rules = Rules(markers=(), thresholds=thresholds)
    scan = _Scan.of(rules, now, current, in_use, Evidence(restored=restored))
    held = _held(name, scan)
    return None if held is None else held.reason


def _completed(facts: PlanFacts, scan: _Scan) -> _Found | None:
    """Rule 2's evidence, or None: the plan's own words, or what its session did."""
    said = facts.status
    if said is None or not said.binding or said.done:  # an open todo list: its own words wait
        found = _says_done(facts, scan.rules.markers)
        if found is not None:
            return found
    session = scan.evidence.sessions.get(facts.name)
    if session is not None and _unfinished(facts, session) is None:
        return _Found(f"implemented in {_session_text(session, scan)}", Basis.SESSION)
    return None


def _says_done(facts: PlanFacts, markers: tuple[Marker, ...]) -> _Found | None:
    """What in the plan's own words says it is done: a marker, its frontmatter status, a
    status field or table, or its todo list."""
    marker = first_marker(markers, facts.title)
    if marker is not None:
        return _Found(f'H1 marker "{marker.text}"', Basis.MARKER)
    marker = first_marker(markers, facts.last_line)
    if marker is not None:
        return _Found(f'last-line marker "{marker.text}"', Basis.MARKER)
    status = facts.frontmatter.status
    if status is not None and status.strip().lower() in COMPLETED_STATUSES:
        return _Found(f'frontmatter status "{status.strip()}"', Basis.FRONTMATTER)
    if facts.status is not None and facts.status.done:
        return _Found(facts.status.evidence, Basis.STATUS)
    return None


def _unfinished(facts: PlanFacts, session: SessionEvidence) -> str | None:
    """Why an approval does not show the plan implemented, or None when it does."""
    if session.withdrawn is not None:
        return session.withdrawn
    if session.files_edited == 0 and session.commits == 0 and session.patches == 0:
        return "no files edited after"
    if session.texts and facts.sha256 is not None:
        # The text approved is known: the file holds it, or it as that session wrote
        # it since, whatever its mtime says (a copy or a sync moves mtime alone).
        if facts.sha256 not in session.texts:
            return "the plan was edited after the session"
    elif facts.mtime > session.last_activity + SESSION_WRITE_SLACK:
        return "the plan was edited after the session"
    # An unfinished todo list is named in the reason (`3/4 todos done`) but never holds a
    # plan back on its own: on real sessions 9 of the 10 plans it held back were done
    # (the last todo "run the tests" or "commit", or the work done by sub-agents).
    return None


def _session_text(session: SessionEvidence, scan: _Scan) -> str:
    """`session 31da521d (2026-11-02): approved, 14 files edited, 6/6 todos done`, or
    `session 403a4c4c (2026-11-24) after "clear context": 3 files edited`"""
    day = datetime.fromtimestamp(session.approved_at, scan.zone).date().isoformat()
    edited = _counted(session.files_edited, "file", "edited")
    if session.commits:
        edited += f", {_counted(session.commits, 'commit')}"
    if session.patches:
        edited += f", {_counted(session.patches, 'patch', 'applied')}"
    todos = "" if session.todos is None else f", {session.todos[0]}/{session.todos[1]} todos done"
    how = ' after "clear context": ' if session.after_clear else ": approved, "
    return f"session {session.session[:8]} ({day}){how}{edited}{todos}"


def _counted(count: int, noun: str, verb: str = "") -> str:
    plural = "es" if noun.endswith("ch") else "s"
    return f"{count} {noun}{plural if count != 1 else ''}" + (f" {verb}" if verb else "")


def _short_of_deciding(facts: PlanFacts, scan: _Scan) -> list[str]:
    """What was found that did not decide, for the person who does (and for the agent)."""
    found = []
    if facts.status is not None:
        found.append(facts.status.evidence)
    session = scan.evidence.sessions.get(facts.name)
    if session is not None:  # (one that decided made the plan completed, not dormant)
        found.append(f"{_session_text(session, scan)}; {_unfinished(facts, session)}")
    return found


def _agent_finished(facts: PlanFacts, scan: _Scan) -> _Found | None:
    """SPEC 4.4: a dormant plan the agent judges finished, when the person let it decide."""
    advice = scan.evidence.agent.get(facts.name)
    if (
        advice is None
        or advice.verdict != "finished"
        or advice.confidence < scan.rules.agent_min_confidence
    ):
        return None
    reason = printable(advice.reason)  # the agent's words, shown in every report
    return _Found(f"agent: finished ({advice.confidence:.2f}): {reason}", Basis.AGENT)


def _age(facts: PlanFacts, scan: _Scan) -> float:
    return (scan.now - facts.mtime) / SECONDS_PER_DAY


def _small_and_old(facts: PlanFacts, scan: _Scan) -> bool:
    limits = scan.rules.thresholds
    return _age(facts, scan) > limits.stale_days and facts.size < limits.stale_bytes


def _real_plan(facts: PlanFacts, scan: _Scan) -> str | None:
    """What says a small plan was ever a real plan, not a stub (None: nothing does)."""
    if facts.name in scan.evidence.presented or facts.name in scan.evidence.sessions:
        return "a session presented it"
    if facts.status is not None:  # a todo list binds; a status field or table does not
        return "it has a todo list" if facts.status.binding else "it has a status field"
    if not facts.stub:
        return "it has the body of a plan"
    return None


def _stale_on_its_own(facts: PlanFacts, scan: _Scan) -> bool:
    """Rule 3's test, what a file must be for the trash: an abandoned stub, small and old,
    that nothing says was ever a real plan."""
    return _small_and_old(facts, scan) and _real_plan(facts, scan) is None


def _held_back_note(sub: PlanFacts, scan: _Scan) -> str:
    real = _real_plan(sub, scan) if _small_and_old(sub, scan) else None
    if real is not None:
        return f"not trashed: sub-plan {sub.name} is a real plan ({real})"
    age = _age(sub, scan)
    return f"not trashed: sub-plan {sub.name} is {_size(sub.size)}, {age:.1f} days old"


def _kept_from_trash(facts: PlanFacts, scan: _Scan) -> list[str]:
    """Why a small, old plan is reported instead of trashed (none: it is not small and old)."""
    real = _real_plan(facts, scan) if _small_and_old(facts, scan) else None
    return [] if real is None else [f"not trashed: {_size(facts.size)}, but {real}"]


def _size(size: int) -> str:
    return f"{size:,} B" if size < 1024 else f"{size / 1024:.1f} KB"


def _classify_one(facts: PlanFacts, scan: _Scan, held_back_by: PlanFacts | None = None) -> Verdict:
    """First match wins; held_back_by: a sub-plan that keeps this plan's group from the trash."""
    active = _active_now(facts, scan)
    if active is not None:
        return Verdict(facts, PlanClass.ACTIVE, active.reason, basis=active.basis)
    found = _completed(facts, scan)
    if found is not None:
        return Verdict(facts, PlanClass.COMPLETED, found.reason, basis=found.basis)
    limits = scan.rules.thresholds
    age = _age(facts, scan)
    if held_back_by is None and _stale_on_its_own(facts, scan):
        reason = (
            f"small and old: {facts.size:,} B < {limits.stale_bytes:,} B, "
            f"{age:.1f} days > {_days(limits.stale_days)}"
        )
        return Verdict(facts, PlanClass.STALE, reason)
    held = (
        _kept_from_trash(facts, scan)
        if held_back_by is None
        else [_held_back_note(held_back_by, scan)]
    )
    if age > limits.dormant_days:
        found = _agent_finished(facts, scan)
        if found is not None:
            return Verdict(facts, PlanClass.COMPLETED, found.reason, basis=found.basis)
        findings = (*_short_of_deciding(facts, scan), *held)
        rule = f"untouched for {age:.1f} days > {_days(limits.dormant_days)}"
        return Verdict(facts, PlanClass.DORMANT, _with(rule, findings), findings=findings)
    if age < 0:
        return Verdict(facts, PlanClass.ACTIVE, "modified in the future (clock skew?)")
    rule = f"in progress: {age:.1f} days old, dormant after {_days(limits.dormant_days)}"
    return Verdict(facts, PlanClass.ACTIVE, _with(rule, held), findings=tuple(held))


def _with(rule: str, findings: Iterable[str]) -> str:
    """A reason: the rule's own words, then each finding that did not decide."""
    return rule + "".join(f"; {finding}" for finding in findings)


def classify(
    plans: Iterable[PlanFacts],
    rules: Rules,
    now: datetime,
    current: frozenset[str] = frozenset(),
    in_use: Mapping[str, str] | None = None,
    evidence: Evidence | None = None,
) -> tuple[Verdict, ...]:
    """Classify every plan, then fold each sub-plan under its root parent.

    A sub-plan that rule 1 keeps active (modified today, current, in use by a
    session, pinned) stands on its own (one restored from the archive came back
    with its parent, and follows it); every other sub-plan takes its root
    parent's class. A stale parent with a sub-plan that is not small and old
    on its own skips rule 3: the group is dormant or active, never trashed.
    """
    scan = _Scan.of(rules, now, current, in_use, evidence)
    own = {facts.name: _classify_one(facts, scan) for facts in plans}
    roots = rules.sub_plans(set(own))
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
            (own[n].facts for n in sorted(names) if not _stale_on_its_own(own[n].facts, scan)),
            None,
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
        elif verdict.basis in RULE_ONE:
            verdicts.append(verdict._replace(parent=root))  # stands on its own
        else:
            verdicts.append(
                verdict._replace(
                    plan_class=own[root].plan_class,
                    reason=follows_parent_reason(root),
                    parent=root,
                    basis=Basis.PARENT,
                )
            )
    return tuple(verdicts)
