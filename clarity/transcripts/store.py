"""What was learned from each transcript that said something, kept in the state folder
(sessions.json).

One record per transcript that named a plan of this plans directory: where
reading stopped (so the next scan reads only appended bytes) and what the file
said about its plans. Records of transcripts Claude Code has since deleted are
kept, since they are the only evidence left of what those sessions did. The
many transcripts that said nothing are kept apart, in a line each
(`quiet.py`).

The file is plain JSON a person can read. Every record is checked as it is
loaded: a damaged one is dropped and named in one note, and its transcript,
if it still exists, is simply read again from the start.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from clarity.fsio import read_regular, write_atomic
from clarity.printable import counted

STORE_VERSION = 1


class Cursor(NamedTuple):
    """How far a transcript was read, and how to tell it is still the same file."""

    size: int
    mtime_ns: int
    inode: int
    offset: int  # every complete line before this byte has been read
    check: str  # sha1 of the bytes just before offset: a file rewritten in place differs


class Event(NamedTuple):
    """Something a session did with a plan, at a moment (ISO time, as transcripts write it)."""

    time: str
    kind: str  # one of EVENT_KINDS
    plan: str  # the plan's name in the plans directory
    tool_id: str = ""  # the ExitPlanMode call it belongs to, if any
    text: str = ""  # text_digest of the plan's text it approved or wrote, where known


PLAN_MODE, PRESENTED, APPROVED, REJECTED = "plan_mode", "presented", "approved", "rejected"
# The first message of a chain that implements an approved plan ("clear context"), and a
# session's own write of its plan (the file's text after it).
IMPLEMENTING, WROTE = "implementing", "wrote"
EVENT_KINDS = frozenset({PLAN_MODE, PRESENTED, APPROVED, REJECTED, IMPLEMENTING, WROTE})


def text_digest(text: str) -> str:
    """What a plan's text is known by: the sha256 of its UTF-8 bytes, as the plan file's."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# A time as Claude Code writes it in a record, before it is made the form above.
_RECORD_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")


def normal_time(value: object) -> str | None:
    """A record's time as Claude Code writes it (2026-11-02T09:15:00.000Z): comparable as text.

    Anything that is not a real moment gives None, and the record is passed over.
    """
    if not isinstance(value, str) or _RECORD_TIME.fullmatch(value) is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class PendingCall(NamedTuple):
    """An ExitPlanMode call whose answer was not in the transcript yet."""

    tool_id: str
    plan: str
    time: str
    text: str = ""  # text_digest of the plan it presented, where its input carries it


class TranscriptFacts:
    """What one transcript file said, as far as it has been read.

    A plain class, not a dataclass: this module is on every scan's path, and
    dataclasses would bring `inspect` into every start.
    """

    __slots__ = (
        "changes",
        "cursor",
        "cwd",
        "edits",
        "events",
        "mtime",
        "pending",
        "plan",
        "refs",
        "session",
        "sidechain",
        "tasks",
        "todos",
    )

    def __init__(
        self,
        session: str,
        sidechain: bool,
        cursor: Cursor,
        mtime: float,
        cwd: str | None = None,
        plan: str | None = None,
        refs: dict[str, str] | None = None,
        events: list[Event] | None = None,
        edits: dict[str, str] | None = None,
        todos: tuple[str, int, int] | None = None,
        tasks: dict[str, str] | None = None,
        pending: list[PendingCall] | None = None,
        changes: dict[str, str] | None = None,
    ) -> None:
        self.session = session
        self.sidechain = sidechain  # a sub-agent's transcript: counts for its session
        self.cursor = cursor
        self.mtime = mtime  # the transcript's last change: the session's last activity
        self.cwd = cwd  # the session's working directory: the plan's project
        self.plan = plan  # the plan this transcript's plan mode writes to, lately
        self.refs = refs or {}  # plan -> last time it was named
        self.events = events or []
        self.edits = edits or {}  # file outside the plans dir -> last time it was edited
        self.todos = todos  # (time, done, total) of the last todo list
        self.tasks = tasks or {}  # task id -> its status
        self.pending = pending or []  # ExitPlanMode calls not answered yet
        # changes made through git: "commit <sha>" or "apply <call id>" -> when
        self.changes = changes or {}

    @property
    def says_anything(self) -> bool:
        return bool(self.refs or self.events or self.edits or self.pending or self.changes)

    def copy(self) -> TranscriptFacts:
        """A copy to read more into, so that a read cut short leaves this one as it was."""
        return TranscriptFacts(
            self.session,
            self.sidechain,
            self.cursor,
            self.mtime,
            self.cwd,
            self.plan,
            dict(self.refs),
            list(self.events),
            dict(self.edits),
            self.todos,
            dict(self.tasks),
            list(self.pending),
            dict(self.changes),
        )

    def to_json(self) -> list[Any]:
        return [
            self.session,
            self.sidechain,
            list(self.cursor),
            self.mtime,
            self.cwd,
            self.plan,
            self.refs,
            [list(event) for event in self.events],
            self.edits,
            None if self.todos is None else list(self.todos),
            self.tasks,
            [list(call) for call in self.pending],
            self.changes,
        ]

    @classmethod
    def from_json(cls, data: Any) -> TranscriptFacts:
        """The record as stored; ValueError if it is not what this version writes."""
        # 12 items before changes through git were read: those records stand as they are
        if not isinstance(data, list) or len(data) not in (12, 13):
            raise ValueError("not a transcript record")
        session, sidechain, cursor, mtime, cwd, plan, refs, events, edits, todos, tasks, pending = (
            data[:12]
        )
        facts = cls(
            _text(session),
            _flag(sidechain),
            _cursor(cursor),
            _number(mtime),
            _optional_text(cwd),
            _optional_text(plan),
            _text_map(refs),
            [_event(event) for event in _list(events)],
            _text_map(edits),
            None if todos is None else _todos(todos),
            _text_map(tasks),
            [PendingCall(*_texts(call, 3, 4)) for call in _list(pending)],
            _text_map(data[12]) if len(data) == 13 else {},
        )
        return facts


def _cursor(value: Any) -> Cursor:
    size, mtime_ns, inode, offset = _ints(value, 4)
    return Cursor(size, mtime_ns, inode, offset, _text(_item(value, 4)))


def _item(values: Any, index: int) -> Any:
    if not isinstance(values, list) or len(values) <= index:
        raise ValueError("a list is too short")
    return values[index]


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError("not a list")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("not true or false")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("not a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError("not a number a clock can show") from None
    if not math.isfinite(number) or not 0 <= number < 2**40:
        raise ValueError("not a number a clock can show")
    return number


def _ints(values: Any, count: int) -> list[int]:
    items = [_item(values, index) for index in range(count)]
    if any(isinstance(item, bool) or not isinstance(item, int) for item in items):
        raise ValueError("not a whole number")
    return items


def _texts(values: Any, count: int, most: int | None = None) -> list[str]:
    if not isinstance(values, list) or not count <= len(values) <= (most or count):
        raise ValueError("wrong length")
    return [_text(item) for item in values]


def _text_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError("not a map of strings")
    return dict(value)


def _event(value: Any) -> Event:
    event = Event(*_texts(value, 4, 5))
    if event.kind not in EVENT_KINDS:
        raise ValueError(f"unknown event {event.kind!r}")
    if not _TIME.fullmatch(event.time):
        raise ValueError(f"not a time: {event.time!r}")
    datetime.fromisoformat(event.time)  # a real moment, or ValueError
    return event


# A time as the reader writes every time it keeps: 2026-11-02T09:15:00.000Z.
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def _todos(value: Any) -> tuple[str, int, int]:
    if not isinstance(value, list) or len(value) != 3:
        raise ValueError("not a todo count")
    time, done, total = _text(value[0]), *_ints(value[1:], 2)
    return time, done, total


class Store(NamedTuple):
    """Every transcript's record, by the transcript's path; and what was wrong loading it."""

    transcripts: dict[str, TranscriptFacts]
    notes: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[TranscriptFacts]:  # type: ignore[override]  # iterate records, not fields
        return iter(self.transcripts.values())


_MAX_STORE_BYTES = 1 << 30  # past this it is not a file clarity wrote


def load_store(path: Path, plans_dir: Path) -> Store:
    """The records at path; an empty store, with a note, if the file is damaged."""
    try:
        data = json.loads(read_regular(path, _MAX_STORE_BYTES))
    except FileNotFoundError:
        return Store({})
    except (OSError, ValueError, RecursionError) as error:
        return Store({}, (_reread_note(path, f"unreadable ({_why(error)})"),))
    if (
        not isinstance(data, dict)
        or data.get("version") != STORE_VERSION
        or not isinstance(data.get("transcripts"), dict)
    ):
        return Store({}, (_reread_note(path, "not this version's format"),))
    if data.get("plans_dir") != os.path.realpath(plans_dir):
        return Store({})  # another plans directory's (a moved state folder): start afresh
    transcripts: dict[str, TranscriptFacts] = {}
    damaged = 0
    for name, record in data["transcripts"].items():
        try:
            transcripts[name] = TranscriptFacts.from_json(record)
        except (ValueError, TypeError, OverflowError):
            damaged += 1
    notes = (
        (_reread_note(path, f"{counted(damaged, 'damaged record')} dropped"),) if damaged else ()
    )
    return Store(transcripts, notes)


def _why(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error).splitlines()[0]


def _reread_note(path: Path, what: str) -> str:
    return f"session records {path}: {what}; the transcripts still there are read again"


def save_store(path: Path, plans_dir: Path, transcripts: Mapping[str, TranscriptFacts]) -> None:
    """Write the records atomically and durably: they outlive the transcripts they tell of.

    ASCII JSON, so that a path that is not valid UTF-8 comes back exact.
    """
    document = {
        "version": STORE_VERSION,
        "plans_dir": os.path.realpath(plans_dir),  # as the state folder is keyed
        "transcripts": {name: facts.to_json() for name, facts in transcripts.items()},
    }
    data = json.dumps(document, ensure_ascii=True, separators=(",", ":"))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data.encode("ascii"))
