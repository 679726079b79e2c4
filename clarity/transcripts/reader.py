"""Read what one transcript appended since the last scan: the only code that reads transcripts.

Two byte searches decide which lines are parsed at all:

1. In every transcript, lines that name the plans directory (as it appears
   inside a JSON string): plan-mode attachments (`planFilePath`), the plan
   written or edited, ExitPlanMode calls and the answer that echoes where the
   plan was saved. They say which plans a session used, and when.
2. Only in the transcripts of sessions that used a plan here, the tool calls
   (`"tool_use"`): ExitPlanMode and its answer (approved or rejected), the
   files edited (Write, Edit, MultiEdit, NotebookEdit) and the todo list.
   A Write can carry a whole file, so its path and time are taken from the
   line by pattern, never by parsing it.

A line that is not JSON (a torn write, a foreign tool) is passed over. Only
complete lines are read: a line still being written is read next time.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from clarity.transcripts.store import (
    APPROVED,
    PLAN_MODE,
    PRESENTED,
    REJECTED,
    Cursor,
    Event,
    PendingCall,
    TranscriptFacts,
)

PLAN_PATH_KEY = "planFilePath"
EXIT_PLAN_MODE = "ExitPlanMode"
EDITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
_TOOLS_READ = EDITING_TOOLS | {EXIT_PLAN_MODE, "TodoWrite", "TaskCreate", "TaskUpdate"}
# How a person's answer to ExitPlanMode begins when they approved (a sub-agent's last).
APPROVALS = (
    "User has approved your plan",
    "User has approved exiting plan mode",
    "User has approved the plan",
)
_PLAN_MODE_ATTACHMENTS = frozenset({"plan_mode", "plan_mode_reentry"})

_TOOL_USE = b'"tool_use"'
_NAME = re.compile(rb'"name"\s*:\s*"([A-Za-z]+)"')
_ID = re.compile(rb'"id"\s*:\s*"([^"\\]+)"')
_EDITED_PATH = re.compile(rb'"(?:file_path|notebook_path)"\s*:\s*("(?:[^"\\]|\\.)*")')
_TIMESTAMP = re.compile(rb'"timestamp"\s*:\s*"([^"\\]+)"')
_IS_ERROR = re.compile(rb'"is_error"\s*:\s*true')
_TASK_CREATED = re.compile(r"Task #(\w+) created")
_SAVED_TO = re.compile(r"Your plan has been saved to:\s*(\S+\.md)")
_CHECK_BYTES = 64
_RESULT_WINDOW = 4 * 1024 * 1024  # how far after a call its result is looked for
_NAME_WINDOW = 256  # a tool_use block names its tool this close to its type


class PlanPaths:
    """Tells whether a path a transcript names is a plan in the plans directory."""

    def __init__(self, plans_dir: Path) -> None:
        self.real_dir = os.path.realpath(plans_dir)
        spellings = {os.path.abspath(plans_dir), self.real_dir}  # noqa: PTH100 (no resolve)
        # As the directory appears inside a JSON string, with a separator after it.
        self.needles = tuple(
            json.dumps(spelling + os.sep, ensure_ascii=False)[1:-1].encode(
                "utf-8", "surrogateescape"
            )
            for spelling in sorted(spellings)
        )
        self._inside: dict[str, bool] = {}

    def plan_name(self, value: object) -> str | None:
        """The plan's name if value is the path of a plan in the plans directory."""
        if not isinstance(value, str) or not value.endswith(".md"):
            return None
        path = Path(value).expanduser()
        if not path.is_absolute():
            return None
        parent = str(path.parent)
        inside = self._inside.get(parent)
        if inside is None:
            inside = self._inside[parent] = os.path.realpath(parent) == self.real_dir
        return path.name if inside else None

    def outside(self, value: str) -> bool:
        """Whether an edited file lies outside the plans directory (the work, not the plan)."""
        parent = str(Path(value).parent)
        inside = self._inside.get(parent)
        if inside is None:
            inside = self._inside[parent] = os.path.realpath(parent) == self.real_dir
        return not inside


def session_of(path: Path, first_line: bytes) -> tuple[str, bool]:
    """The session a transcript belongs to, and whether it is a sub-agent's."""
    if path.parent.name == "subagents":
        return path.parent.parent.name, True  # <session>/subagents/agent-<id>.jsonl
    if path.name.startswith("agent-"):  # beside the session, in older versions: ask it
        try:
            record = json.loads(first_line)
        except ValueError:
            record = None
        session = record.get("sessionId") if isinstance(record, dict) else None
        return (session if isinstance(session, str) and session else path.stem), True
    return path.stem, False


def normal_time(value: object) -> str | None:
    """A record's time as Claude Code writes it (2026-11-02T09:15:00.000Z): comparable as text."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) == 24 and value.endswith("Z") and value[10] == "T":
        return value
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (
        moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    )


class Read(NamedTuple):
    facts: TranscriptFacts
    bytes_read: int


def read_transcript(
    path: Path,
    known: TranscriptFacts | None,
    plans: PlanPaths,
    plan_sessions: set[str],
) -> Read | None:
    """The transcript's facts with what it appended since `known` was read.

    plan_sessions holds the sessions known to have used a plan here: only
    their tool calls are read. A session found using one is added to it.
    None: the transcript cannot be read now (gone, a special file); what was
    known of it stays as it was.
    """
    try:
        with path.open("rb") as stream:
            info = os.fstat(stream.fileno())
            if info.st_size == 0:
                return None
            with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _read(path, data, info, known, plans, plan_sessions)
    except (OSError, ValueError):
        return None


def _check(data: mmap.mmap, offset: int) -> str:
    # sha1: a check that the bytes read are still there, not a defence against anyone
    return hashlib.sha1(data[max(0, offset - _CHECK_BYTES) : offset]).hexdigest()


def _read(
    path: Path,
    data: mmap.mmap,
    info: os.stat_result,
    known: TranscriptFacts | None,
    plans: PlanPaths,
    plan_sessions: set[str],
) -> Read:
    if known is not None:
        cursor = known.cursor
        same_file = (
            cursor.inode == info.st_ino
            and cursor.offset <= len(data)
            and _check(data, cursor.offset) == cursor.check
        )
        if not same_file:
            known = None  # replaced or rewritten in place: read it all again
    start = 0 if known is None else known.cursor.offset
    end = data.rfind(b"\n", start) + 1  # complete lines only
    if known is None:
        first_end = data.find(b"\n")
        session, sidechain = session_of(path, data[: first_end if first_end >= 0 else 0])
        facts = TranscriptFacts(session, sidechain, Cursor(0, 0, 0, 0, ""), info.st_mtime)
    else:
        facts = known
    if end > start:
        transcript = _Transcript(data, start, end, facts, plans)
        transcript.read_plan_lines()
        if facts.refs or facts.events:
            plan_sessions.add(facts.session)
        if facts.session in plan_sessions:
            transcript.read_tool_calls()
        offset = end
    else:
        offset = start
    facts.cursor = Cursor(info.st_size, info.st_mtime_ns, info.st_ino, offset, _check(data, offset))
    facts.mtime = info.st_mtime
    return Read(facts, max(0, end - start))


def _lines_holding(data: mmap.mmap, needles: Iterable[bytes], start: int, end: int) -> list[int]:
    """Start of each line in [start, end) that holds any needle, once, in file order."""
    starts: set[int] = set()
    for needle in needles:
        position = data.find(needle, start, end)
        while position != -1:
            line_start = data.rfind(b"\n", start, position) + 1 or start
            starts.add(max(line_start, start))
            line_end = data.find(b"\n", position, end)
            if line_end == -1:
                break
            position = data.find(needle, line_end, end)
    return sorted(starts)


class _Transcript:
    """The new part of one transcript, [start, end), and the facts it adds to."""

    def __init__(
        self, data: mmap.mmap, start: int, end: int, facts: TranscriptFacts, plans: PlanPaths
    ) -> None:
        self.data, self.start, self.end = data, start, end
        self.facts = facts
        self.plans = plans

    def line(self, start: int) -> bytes:
        end = self.data.find(b"\n", start, self.end)
        return self.data[start : self.end if end == -1 else end]

    def line_around(self, position: int) -> tuple[int, int]:
        start = self.data.rfind(b"\n", self.start, position) + 1 or self.start
        end = self.data.find(b"\n", position, self.end)
        return max(start, self.start), self.end if end == -1 else end

    def record(self, start: int) -> dict[str, Any] | None:
        try:
            record = json.loads(self.line(start))
        except ValueError:
            return None  # a torn or foreign line
        return record if isinstance(record, dict) else None

    # -- 1. lines that name the plans directory --------------------------------

    def read_plan_lines(self) -> None:
        for start in _lines_holding(self.data, self.plans.needles, self.start, self.end):
            record = self.record(start)
            if record is not None:
                self._plan_record(record)

    def _plan_record(self, record: dict[str, Any]) -> None:
        time = normal_time(record.get("timestamp"))
        if time is None:
            return
        facts = self.facts
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd and not facts.sidechain:
            facts.cwd = cwd
        attachment = record.get("attachment")
        if isinstance(attachment, dict):
            name = self.plans.plan_name(attachment.get(PLAN_PATH_KEY))
            if name is not None:
                self._named(name, time)
                if attachment.get("type") in _PLAN_MODE_ATTACHMENTS:
                    facts.plan = name
                    self._plan_mode(name, time)
        for block in _content_blocks(record):
            kind = block.get("type")
            if kind == "tool_use":
                tool_input = block.get("input")
                if not isinstance(tool_input, dict):
                    continue
                tool = block.get("name")
                if tool in EDITING_TOOLS:
                    name = self.plans.plan_name(
                        tool_input.get("file_path") or tool_input.get("notebook_path")
                    )
                    if name is not None:
                        self._named(name, time)
                        facts.plan = name  # the plan this session writes
                elif tool == EXIT_PLAN_MODE:
                    name = self.plans.plan_name(tool_input.get(PLAN_PATH_KEY))
                    if name is not None:
                        self._named(name, time)
            elif kind == "tool_result":
                name = self._saved_plan(record, block)
                if name is not None:
                    self._named(name, time)

    def _saved_plan(self, record: dict[str, Any], block: dict[str, Any]) -> str | None:
        """The plan an ExitPlanMode answer says it saved, if this block is one."""
        text = _result_text(block)
        if not text.startswith(APPROVALS):
            return None
        sidecar = record.get("toolUseResult")
        name = self.plans.plan_name(sidecar.get("filePath")) if isinstance(sidecar, dict) else None
        if name is None and (saved := _SAVED_TO.search(text)) is not None:
            name = self.plans.plan_name(saved.group(1))
        return name

    def _plan_mode(self, name: str, time: str) -> None:
        """Plan mode on this plan: each turn in it says so; keep the last of a run of turns."""
        events = self.facts.events
        if events and events[-1].kind == PLAN_MODE and events[-1].plan == name:
            events[-1] = Event(max(events[-1].time, time), PLAN_MODE, name)
        else:
            events.append(Event(time, PLAN_MODE, name))

    def _named(self, name: str, time: str) -> None:
        if self.facts.refs.get(name, "") < time:
            self.facts.refs[name] = time

    # -- 2. the tool calls of a session that used a plan here --------------------

    def read_tool_calls(self) -> None:
        self._answer_pending()
        data, end = self.data, self.end
        position = data.find(_TOOL_USE, self.start, end)
        while position != -1:
            name = _NAME.search(data, position, min(end, position + _NAME_WINDOW))
            line_start, line_end = self.line_around(position)
            tool = name.group(1).decode() if name is not None else ""
            if tool in _TOOLS_READ and name is not None and name.end() <= line_end:
                self._tool_call(tool, position, line_start, line_end)
            position = data.find(_TOOL_USE, position + len(_TOOL_USE), end)

    def _tool_call(self, tool: str, position: int, line_start: int, line_end: int) -> None:
        data = self.data
        time_match = _TIMESTAMP.search(data, line_start, line_end)
        time = normal_time(time_match.group(1).decode()) if time_match else None
        call_id = _ID.search(data, position, line_end)
        if time is None or call_id is None:
            return
        tool_id = call_id.group(1).decode()
        if tool in EDITING_TOOLS:
            self._edit(tool_id, position, line_end, time)
            return
        if tool == "TaskCreate":
            result = self._result(tool_id, line_end)
            created = _TASK_CREATED.search(_result_text(result.block)) if result else None
            if created is not None:
                self.facts.tasks[created.group(1)] = "pending"
            return
        block = self._block(line_start, tool_id)
        tool_input = block.get("input") if block else None
        if not isinstance(tool_input, dict):
            return
        if tool == EXIT_PLAN_MODE:
            plan = self.plans.plan_name(tool_input.get(PLAN_PATH_KEY)) or self.facts.plan
            if plan is not None:
                self.facts.events.append(Event(time, PRESENTED, plan, tool_id))
                self._answer(PendingCall(tool_id, plan, time), line_end)
        elif tool == "TodoWrite":
            todos = tool_input.get("todos")
            if isinstance(todos, list) and (self.facts.todos or ("",))[0] <= time:
                done = sum(isinstance(t, dict) and t.get("status") == "completed" for t in todos)
                self.facts.todos = (time, done, len(todos))
        elif tool == "TaskUpdate":
            task, status = tool_input.get("taskId"), tool_input.get("status")
            if isinstance(task, str | int) and isinstance(status, str):
                if status == "deleted":
                    self.facts.tasks.pop(str(task), None)
                else:
                    self.facts.tasks[str(task)] = status

    def _edit(self, tool_id: str, position: int, line_end: int, time: str) -> None:
        found = _EDITED_PATH.search(self.data, position, line_end)
        if found is None:
            return
        try:
            path = json.loads(found.group(1))
        except ValueError:
            return
        if not isinstance(path, str) or not path or not self.plans.outside(path):
            return
        answer = self._result_line(tool_id, line_end)  # by bytes: it can hold the whole file
        if answer is not None and _IS_ERROR.search(self.data, *answer):
            return  # refused or failed: nothing was written
        if self.facts.edits.get(path, "") < time:
            self.facts.edits[path] = time

    def _block(self, line_start: int, tool_id: str) -> dict[str, Any] | None:
        record = self.record(line_start)
        if record is None:
            return None
        return next((b for b in _content_blocks(record) if b.get("id") == tool_id), None)

    def _result_line(self, tool_id: str, after: int) -> tuple[int, int] | None:
        """The line after `after` that answers the call tool_id (ids are unique), by bytes."""
        needle = json.dumps(tool_id).encode()
        position = self.data.find(needle, after, min(self.end, after + _RESULT_WINDOW))
        return None if position == -1 else self.line_around(position)

    def _result(self, tool_id: str, after: int) -> _Result | None:
        """The record that answers the call tool_id, and its tool_result block."""
        line = self._result_line(tool_id, after)
        record = None if line is None else self.record(line[0])
        if record is None:
            return None
        for block in _content_blocks(record):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                return _Result(record, block)
        return None

    def _answer(self, call: PendingCall, after: int) -> None:
        """Record how the person answered an ExitPlanMode call, or that they have not yet."""
        result = self._result(call.tool_id, after)
        if result is None:
            self.facts.pending.append(call)
            return
        time = normal_time(result.record.get("timestamp")) or call.time
        if result.block.get("is_error") is True:
            self.facts.events.append(Event(time, REJECTED, call.plan, call.tool_id))
        elif _result_text(result.block).startswith(APPROVALS):
            self.facts.events.append(Event(time, APPROVED, call.plan, call.tool_id))
        # anything else (sent to a team lead, pushed elsewhere) is no answer from the person

    def _answer_pending(self) -> None:
        pending, self.facts.pending = self.facts.pending, []
        for call in pending:
            self._answer(call, self.start)


class _Result(NamedTuple):
    record: dict[str, Any]
    block: dict[str, Any]


def _content_blocks(record: dict[str, Any]) -> Iterator[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        yield from (block for block in content if isinstance(block, dict))


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (part.get("text") for part in content if isinstance(part, dict))
        return "".join(text for text in texts if isinstance(text, str)).lstrip()
    return ""
