"""What the sessions did with each plan, weighed from transcript facts: no I/O, no clock.

A session's facts are spread over its transcripts (its own and its
sub-agents'); here they are put together, and for each plan come out:
which live session uses it, the project it belongs to, and the latest
approval of it with what followed (SPEC 4.3). Whether that approval
decides the plan's class is the classifier's call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import NamedTuple

from clarity.model import SessionEvidence
from clarity.transcripts.store import (
    APPROVED,
    IMPLEMENTING,
    PLAN_MODE,
    PRESENTED,
    REJECTED,
    WROTE,
    Event,
    TranscriptFacts,
)

_APPROVALS = frozenset({APPROVED, IMPLEMENTING})  # "clear context" approves in a new chain
_PRESENTED = frozenset({PRESENTED, APPROVED, REJECTED, IMPLEMENTING})


class _Session:
    """One session, its transcripts' facts put together."""

    def __init__(self, session: str) -> None:
        self.id = session
        self.last_activity = 0.0
        self.cwd: str | None = None
        self.refs: dict[str, str] = {}
        self.events: list[Event] = []
        self.edits: dict[str, str] = {}
        self.changes: dict[str, str] = {}  # through git: "commit <sha>", "apply <id>" -> when
        self.todos: tuple[str, int, int] | None = None
        self.tasks: dict[str, str] = {}

    def add(self, facts: TranscriptFacts) -> None:
        self.last_activity = max(self.last_activity, facts.mtime)
        for name, time in facts.refs.items():
            self.refs[name] = max(self.refs.get(name, ""), time)
        for path, time in facts.edits.items():
            self.edits[path] = max(self.edits.get(path, ""), time)
        for change, time in facts.changes.items():
            self.changes[change] = min(self.changes.get(change, time), time)
        self.events += facts.events
        if facts.sidechain:
            return  # a sub-agent's edits count for the session; its todo list is its own
        self.cwd = facts.cwd or self.cwd
        if facts.todos is not None and (self.todos is None or self.todos[0] <= facts.todos[0]):
            self.todos = facts.todos
        self.tasks.update(facts.tasks)


class SessionFacts(NamedTuple):
    """What the transcripts say about the plans of one plans directory."""

    in_use: Mapping[str, str]  # plan -> the live session that used it most recently
    current: frozenset[str]  # plans the --session session used
    evidence: Mapping[str, SessionEvidence]  # plan -> its latest approval and what followed
    projects: Mapping[str, str]  # plan -> the working directory of the session that used it last
    known_sessions: frozenset[str]
    presented: frozenset[str]  # plans a session presented with ExitPlanMode, or approved


def _seconds(time: str) -> float:
    return datetime.fromisoformat(time).timestamp()


def _as_written(moment: float) -> str:
    """A moment as transcripts write times (2026-11-02T09:15:00.000Z), so they compare."""
    when = datetime.fromtimestamp(moment, UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def weigh(
    transcripts: Iterable[TranscriptFacts],
    now: float,
    protect_hours: float,
    current_session: str | None = None,
) -> SessionFacts:
    sessions: dict[str, _Session] = {}
    for facts in transcripts:
        sessions.setdefault(facts.session, _Session(facts.session)).add(facts)
    since = now - protect_hours * 3600
    in_use: dict[str, tuple[float, str]] = {}
    current: set[str] = set()
    named_last: dict[str, tuple[str, str]] = {}  # plan -> (time, session) of its last mention
    for session in sessions.values():
        live = protect_hours > 0 and session.last_activity >= since
        for name, time in session.refs.items():
            if live and in_use.get(name, (-1.0, ""))[0] < session.last_activity:
                in_use[name] = (session.last_activity, session.id)
            if named_last.get(name, ("", ""))[0] < time:
                named_last[name] = (time, session.id)
        if session.id == current_session:
            current.update(session.refs)
    # What a transcript dates after now has not happened yet (a clock set wrong, a
    # forged record, or a --now in the past): it is evidence of nothing.
    cutoff = _as_written(now)
    projects = {
        name: cwd
        for name, (_, session) in named_last.items()
        if (cwd := sessions[session].cwd) is not None
    }
    return SessionFacts(
        {name: session for name, (_, session) in in_use.items()},
        frozenset(current),
        _approvals(sessions, cutoff),
        projects,
        frozenset(sessions),
        frozenset(
            event.plan
            for session in sessions.values()
            for event in session.events
            if event.kind in _PRESENTED and event.time <= cutoff
        ),
    )


def _approvals(sessions: Mapping[str, _Session], cutoff: str) -> dict[str, SessionEvidence]:
    """For each plan ever approved: its latest approval, and whether anything undid it;
    only what happened by the cutoff counts."""
    by_plan: dict[str, list[tuple[Event, str]]] = {}
    for session in sessions.values():
        for event in session.events:
            if event.time <= cutoff:
                by_plan.setdefault(event.plan, []).append((event, session.id))
    found: dict[str, SessionEvidence] = {}
    for plan, events in by_plan.items():
        events.sort(key=lambda item: item[0].time)
        approvals = [i for i, (event, _) in enumerate(events) if event.kind in _APPROVALS]
        if not approvals:
            continue  # presented and rejected, or never answered: no evidence
        approval, session_id = events[approvals[-1]]
        continued = _cleared([event for event, _ in events])
        later = [
            event
            for event, _ in events[approvals[-1] + 1 :]
            if event.time > approval.time and event not in continued
        ]
        session = sessions[session_id]
        texts = {approval.text} | {  # and the session's own writes of it since
            event.text
            for event, by in events
            if event.kind == WROTE and by == session_id and event.time >= approval.time
        }
        known = bool(approval.text)  # else only the file's mtime can tell a later change
        found[plan] = SessionEvidence(
            session=session_id,
            approved_at=_seconds(approval.time),
            files_edited=sum(approval.time < time <= cutoff for time in session.edits.values()),
            commits=_changes(session, "commit ", approval.time, cutoff),
            patches=_changes(session, "apply ", approval.time, cutoff),
            todos=_todos(session, approval.time, cutoff),
            last_activity=session.last_activity,
            withdrawn=_withdrawn(later),
            after_clear=approval.kind == IMPLEMENTING,
            texts=frozenset(text for text in texts if text) if known else frozenset(),
        )
    return found


def _changes(session: _Session, kind: str, after: str, cutoff: str) -> int:
    return sum(
        after < time <= cutoff
        for change, time in session.changes.items()
        if change.startswith(kind)
    )


CLEAR_CONTEXT_WINDOW = 10.0  # seconds between a "clear context" refusal and its continuation


def _cleared(events: list[Event]) -> set[Event]:
    """The refusal-shaped answers that were "clear context" approvals: each one that a
    continuation of the same plan (and, where both carry it, the same text) follows or
    precedes within seconds. The new session's first record is stamped 1 to 15 ms before
    the old session's answer (every one of 21 real pairs); one chain may follow a few
    seconds later. A refusal with no continuation near it stays a refusal."""
    cleared: set[Event] = set()
    starts = [event for event in events if event.kind == IMPLEMENTING]
    for refusal in (event for event in events if event.kind == REJECTED):
        at = _seconds(refusal.time)
        for start in starts:
            same_text = not refusal.text or not start.text or refusal.text == start.text
            if same_text and abs(_seconds(start.time) - at) <= CLEAR_CONTEXT_WINDOW:
                cleared.add(refusal)
                break
    return cleared


def _withdrawn(later: list[Event]) -> str | None:
    """Why an approval no longer stands, from what happened to the plan after it."""
    if any(event.kind == REJECTED for event in later):
        return "presented again and rejected"
    if any(event.kind == PRESENTED for event in later):
        return "presented again, not approved"
    if any(event.kind == PLAN_MODE for event in later):
        return "back in plan mode since"
    return None


def _todos(session: _Session, after: str, cutoff: str) -> tuple[int, int] | None:
    """The session's todo list as it last stood after the approval: (done, total)."""
    todos = session.todos
    if todos is not None and after <= todos[0] <= cutoff and todos[2]:
        return todos[1], todos[2]
    if session.tasks:
        done = sum(status == "completed" for status in session.tasks.values())
        return done, len(session.tasks)
    return None
