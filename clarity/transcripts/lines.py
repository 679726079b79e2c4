"""What the lines of a transcript say about the plans of one plans directory.

Given complete lines already read (`reader.py` reads them), two byte searches
decide which lines are parsed at all:

1. In every transcript, lines that name the plans directory (as it appears
   inside a JSON string): plan-mode attachments (`planFilePath`), the plan
   written or edited, ExitPlanMode calls and the answer that echoes where the
   plan was saved. They say which plans a session used, and when.
2. Only in the transcripts of sessions that used a plan here, the lines with
   tool calls (`"tool_use"`): ExitPlanMode and its answer (approved or
   rejected), the files edited (Write, Edit, MultiEdit, NotebookEdit, and
   Bash's `sed -i`/`perl -i`) and the todo list. Each such line is parsed
   once, however many calls it holds.

A line that is not JSON, or holds values of the wrong kinds or times no clock
can show, is passed over.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from clarity.transcripts import texts_seen
from clarity.transcripts.plan_texts import IMPLEMENT_PREFIX, digest_of, implementing, text_after
from clarity.transcripts.shell_edits import COMMITTED, shell_work
from clarity.transcripts.store import (
    APPROVED,
    IMPLEMENTING,
    PLAN_MODE,
    PRESENTED,
    REJECTED,
    WROTE,
    Event,
    PendingCall,
    TranscriptFacts,
    normal_time,
    text_digest,
)

PLAN_PATH_KEY = "planFilePath"
EXIT_PLAN_MODE = "ExitPlanMode"
EDITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
SHELL = "Bash"  # what it writes, edits or commits counts too: shell_edits.py
_TOOLS_READ = EDITING_TOOLS | {EXIT_PLAN_MODE, SHELL, "TodoWrite", "TaskCreate", "TaskUpdate"}
# How a person's answer to ExitPlanMode begins when they approved (a sub-agent's last).
APPROVALS = (
    "User has approved your plan",
    "User has approved exiting plan mode",
    "User has approved the plan",
)
_PLAN_MODE_ATTACHMENTS = frozenset({"plan_mode", "plan_mode_reentry"})

_TOOL_USE = b'"tool_use"'
IMPLEMENT_NEEDLE = IMPLEMENT_PREFIX.encode()  # found by a byte search, as the plans dir
_TOOL_RESULT = b'"tool_result"'
_NAME = re.compile(rb'"name"\s*:\s*"([A-Za-z]+)"')
_TASK_CREATED = re.compile(r"Task #(\w+) created")
_SAVED_TO = re.compile(r"Your plan has been saved to:\s*(\S+\.md)")

_NAME_WINDOW = 256  # a tool_use block names its tool this close to its type
_EDIT_ANSWER_WINDOW = 1024 * 1024  # an edit's answer (did it fail?) is looked for this far
_CALLS_PER_LINE = 64  # Claude Code writes one block per line; more is not its transcript


_isabs = os.path.isabs  # strings in, strings out, for every path a transcript names


class PlanPaths:
    """Tells whether a path a transcript names is a plan in the plans directory."""

    def __init__(self, plans_dir: Path, claude_dir: Path | None = None) -> None:
        self.real_dir = os.path.realpath(plans_dir)
        self.claude_dir = claude_dir  # whose transcripts these are (None: by name alone)
        self._planned_here: dict[str, bool] = {}
        spellings = {os.path.abspath(plans_dir), self.real_dir}  # noqa: PTH100 (no resolve)
        # As the directory appears inside a JSON string, with a separator after it.
        self.needles = tuple(
            json.dumps(spelling + os.sep, ensure_ascii=False)[1:-1].encode(
                "utf-8", "surrogateescape"
            )
            for spelling in sorted(spellings)
        )
        self._inside: dict[str, bool] = {}
        self._held: dict[str, bool] = {}
        self.texts: texts_seen.TextsSeen | None = None  # where a scan sets aside the texts it reads

    def _in_plans_dir(self, path: str) -> bool | None:
        """Whether path's folder is the plans directory; None: not a path at all."""
        parent = os.path.dirname(path)  # noqa: PTH120 - strings in, strings out, many times
        inside = self._inside.get(parent)
        if inside is None:
            try:
                inside = os.path.realpath(parent) == self.real_dir
            except (ValueError, OSError):  # a NUL byte, a loop: no file can be there
                return None
            self._inside[parent] = inside
        return inside

    def plan_name(self, value: object) -> str | None:
        """The plan's name if value is the absolute path of a plan in the plans directory."""
        if not isinstance(value, str) or not value.endswith(".md") or not _isabs(value):
            return None
        return os.path.basename(value) if self._in_plans_dir(value) else None  # noqa: PTH119

    def holds(self, name: str) -> bool:
        """Whether a plan of that name is in the plans directory now: a session that names
        its plan by slug alone (a "clear context" one) names no folder, and its text
        belongs only to the plans folder whose plan it is."""
        held = self._held.get(name)
        if held is None:
            where = os.path.join(self.real_dir, name)  # noqa: PTH118 - strings, as above
            held = self._held[name] = os.path.lexists(where)
        return held

    def owns(self, name: str, cwd: object) -> bool:
        """Whether a plan a session names by its slug alone (a "clear context" one names
        no folder) is this folder's: the folder holds a plan of that name, or it is where
        Claude Code plans from the session's working directory (the project's
        plansDirectory, else the config dir's plans: SPEC 2). Never every folder's."""
        if self.holds(name):
            return True
        if self.claude_dir is None or not isinstance(cwd, str) or not _isabs(cwd):
            return False
        here = self._planned_here.get(cwd)
        if here is None:
            from clarity.settings.locations import ClaudeSettings, project_plans_dir

            where = Path(cwd)
            project = project_plans_dir(ClaudeSettings(where, self.claude_dir), where)
            folder = self.claude_dir / "plans" if project is None else project.path
            here = self._planned_here[cwd] = os.path.realpath(folder) == self.real_dir
        return here

    def outside(self, value: object) -> bool:
        """Whether value is a file outside the plans directory (the work, not the plan)."""
        if not isinstance(value, str) or not _isabs(value):
            return False
        return self._in_plans_dir(value) is False


def parse(line: bytes | bytearray) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None  # torn, foreign, or nested past any record Claude Code writes
    return record if isinstance(record, dict) else None


class _Answer(NamedTuple):
    record: dict[str, Any]
    block: dict[str, Any]


class Lines:
    """Complete lines of one transcript, read at `base`, and the facts they add to."""

    def __init__(self, data: bytes, base: int, facts: TranscriptFacts, plans: PlanPaths) -> None:
        self.data, self.base, self.facts, self.plans = data, base, facts, plans

    def line(self, position: int) -> tuple[int, int]:
        """The bounds of the line holding position."""
        start = self.data.rfind(b"\n", 0, position) + 1
        end = self.data.find(b"\n", position)
        return start, len(self.data) if end == -1 else end

    def record(self, start: int, end: int) -> dict[str, Any] | None:
        return parse(self.data[start:end])

    # -- 1. lines that name the plans directory --------------------------------

    def read_plan_lines(self) -> None:
        starts: set[int] = set()
        for needle in self.plans.needles:
            position = self.data.find(needle)
            while position != -1:
                start, end = self.line(position)
                starts.add(start)
                position = self.data.find(needle, end)
        implementing = set()
        position = self.data.find(IMPLEMENT_NEEDLE)
        while position != -1:
            start, end = self.line(position)
            implementing.add(start)
            position = self.data.find(IMPLEMENT_NEEDLE, end)
        for start in sorted(starts | implementing):
            bounds = self.line(start)
            record = self.record(*bounds)
            if record is None:
                continue
            if start in implementing:
                self._implementing(record)
            if start in starts:
                self._plan_record(record, bounds[1])

    def _implementing(self, record: dict[str, Any]) -> None:
        """The first message of a chain that implements a plan approved with "clear
        context": an approval in this session, whose edits count."""
        found = implementing(record)
        if found is None:
            return  # a request blob (no time), a prompt that quotes the words, ...
        plan, time, text = found
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd and not self.facts.sidechain:
            self.facts.cwd = cwd
        self._named(plan, time)
        owned = self.plans.owns(plan, cwd)
        if owned:  # else its later ExitPlanMode (no planFilePath) is no plan of this folder
            self.facts.plan = plan
        digest = digest_of(text)
        self.facts.events.append(Event(time, IMPLEMENTING, plan, "", digest))
        if owned:
            self._seen(plan, digest, text, time, texts_seen.IMPLEMENTED)

    def _plan_record(self, record: dict[str, Any], end: int) -> None:
        time = normal_time(record.get("timestamp"))
        if time is None:
            return
        facts = self.facts
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd and not facts.sidechain:
            facts.cwd = cwd
        if record.get("type") == "system" and record.get("subtype") == "file_snapshot":
            self._snapshot(record.get("snapshotFiles"), time)
            return
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
                    name = self.plans.plan_name(_edited_path(tool_input))
                    if name is not None:
                        self._named(name, time)
                        facts.plan = name  # the plan this session writes
                        self._wrote(name, str(tool), block.get("id"), tool_input, time, end)
                elif tool == EXIT_PLAN_MODE:
                    name = self.plans.plan_name(tool_input.get(PLAN_PATH_KEY))
                    if name is not None:
                        self._named(name, time)
            elif kind == "tool_result":
                name = self._saved_plan(record, block)
                if name is not None:
                    self._named(name, time)

    def _wrote(
        self, plan: str, tool: str, tool_id: Any, tool_input: dict[str, Any], time: str, end: int
    ) -> None:
        """The session's own write of its plan, known by the text the file then holds:
        a session may tick its plan while it works, and that is no change by anyone else."""
        if not isinstance(tool_id, str):
            return
        answer = self._answer_to(tool_id, end, _EDIT_ANSWER_WINDOW)
        if answer is None or answer.block.get("is_error") is True:
            return  # not written (yet): nothing the file can hold
        text = text_after(tool, tool_input, answer.record.get("toolUseResult"))
        if text is not None:
            digest = text_digest(text)
            self.facts.events.append(Event(time, WROTE, plan, tool_id, digest))
            self._seen(plan, digest, text, time, texts_seen.WRITTEN)

    def _snapshot(self, files: object, time: str) -> None:
        """A snapshot of the session's files, which Claude Code (2.1.332) writes at every
        ExitPlanMode and every saved edit of the plan, for rewind: the plan's text then,
        set aside as a version (a plan written over in a chain gets its earlier texts
        back). Evidence of nothing else: the session's own records say what it did."""
        for snapshot in files if isinstance(files, list) else ():
            if not isinstance(snapshot, dict) or snapshot.get("key") != "plan":
                continue
            name = self.plans.plan_name(snapshot.get("path"))
            content = snapshot.get("content")
            if name is not None and isinstance(content, str):
                self._seen(name, digest_of(content), content, time, texts_seen.WRITTEN)

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
        data = self.data
        position = data.find(_TOOL_USE)
        while position != -1:
            start, end = self.line(position)
            if self._reads(position, end):
                record = self.record(start, end)
                if record is not None:
                    self._tool_calls(record, end)
            position = data.find(_TOOL_USE, end)  # each line once, however many calls

    def _reads(self, position: int, end: int) -> bool:
        """Whether a line holds a call of a tool that is read (by its first few names)."""
        for _ in range(_CALLS_PER_LINE):
            name = _NAME.search(self.data, position, min(end, position + _NAME_WINDOW))
            if name is not None and name.group(1).decode() in _TOOLS_READ:
                return True
            position = self.data.find(_TOOL_USE, position + len(_TOOL_USE), end)
            if position == -1:
                return False
        return False

    def _tool_calls(self, record: dict[str, Any], end: int) -> None:
        time = normal_time(record.get("timestamp"))
        if time is None:
            return
        calls = (b for b in _content_blocks(record) if b.get("type") == "tool_use")
        for _, block in zip(range(_CALLS_PER_LINE), calls, strict=False):
            tool, tool_id, tool_input = block.get("name"), block.get("id"), block.get("input")
            if isinstance(tool_id, str) and isinstance(tool_input, dict):
                if tool == SHELL:
                    work = shell_work(tool_input.get("command"), record.get("cwd"))
                    tool_input = {"paths": work.paths, "git": work.git}
                self._tool_call(str(tool), tool_id, tool_input, time, end)

    def _tool_call(
        self, tool: str, tool_id: str, tool_input: dict[str, Any], time: str, end: int
    ) -> None:
        facts = self.facts
        if tool in EDITING_TOOLS or tool == SHELL:
            paths = tool_input["paths"] if tool == SHELL else [_edited_path(tool_input)]
            work = [path for path in paths if isinstance(path, str) and self.plans.outside(path)]
            git = tool_input.get("git", []) if tool == SHELL else []
            if not work and not git:
                return  # the plan itself (or no path, or a command that edits nothing)
            answer = self._answer_to(tool_id, end, _EDIT_ANSWER_WINDOW)
            if answer is not None and answer.block.get("is_error") is True:
                return  # refused or failed: nothing was written
            for path in work:
                if facts.edits.get(path, "") < time:
                    facts.edits[path] = time
            if git and answer is not None:
                self._git_changes(git, tool_id, _result_text(answer.block), time)
        elif tool == EXIT_PLAN_MODE:
            plan = self.plans.plan_name(tool_input.get(PLAN_PATH_KEY)) or facts.plan
            if plan is not None:
                text = digest_of(tool_input.get("plan"))
                facts.events.append(Event(time, PRESENTED, plan, tool_id, text))
                self._seen(plan, text, tool_input.get("plan"), time, texts_seen.PRESENTED)
                self._answer(PendingCall(tool_id, plan, time, text), end)
        elif tool == "TodoWrite":
            todos = tool_input.get("todos")
            if isinstance(todos, list) and (facts.todos is None or facts.todos[0] <= time):
                done = sum(isinstance(t, dict) and t.get("status") == "completed" for t in todos)
                facts.todos = (time, done, len(todos))
        elif tool == "TaskCreate":
            reply = self._answer_to(tool_id, end, _EDIT_ANSWER_WINDOW)
            created = _TASK_CREATED.search(_result_text(reply.block)) if reply else None
            if created is not None:
                facts.tasks[created.group(1)] = "pending"
        elif tool == "TaskUpdate":
            task, status = tool_input.get("taskId"), tool_input.get("status")
            if isinstance(task, str | int) and isinstance(status, str):
                if status == "deleted":
                    facts.tasks.pop(str(task), None)
                else:
                    facts.tasks[str(task)] = status

    def _git_changes(self, git: list[str], tool_id: str, answer: str, time: str) -> None:
        """A commit its answer shows made (`[main 1a2b3c4] ...`), a patch applied."""
        for made in COMMITTED.findall(answer) if "commit" in git else []:
            self.facts.changes.setdefault(f"commit {made}", time)
        if "apply" in git or "am" in git:
            self.facts.changes.setdefault(f"apply {tool_id}", time)

    def _answer_to(self, tool_id: str, after: int, window: int | None) -> _Answer | None:
        """The answer to the call tool_id after `after`: the record of the person's side
        (a `user` record, with a time) whose content holds a tool_result for it. Other
        lines that carry the id come first at times and are passed over: a PostToolUse
        hook's `progress` record, an `api-request-blob` (no time; it repeats the wire
        messages, the result among them)."""
        needle = json.dumps(tool_id).encode()
        stop = len(self.data) if window is None else min(len(self.data), after + window)
        position = self.data.find(needle, after, stop)
        while position != -1:
            start, end = self.line(position)
            if self.data.find(_TOOL_RESULT, start, end) != -1:
                answer = self._answer_in(self.record(start, end), tool_id)
                if answer is not None:
                    return answer
            position = self.data.find(needle, end, stop)
        return None

    @staticmethod
    def _answer_in(record: dict[str, Any] | None, tool_id: str) -> _Answer | None:
        if record is None or record.get("type") != "user" or not record.get("timestamp"):
            return None
        for block in _content_blocks(record):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_id:
                return _Answer(record, block)
        return None

    def _answer(self, call: PendingCall, after: int) -> None:
        """Record how the person answered an ExitPlanMode call, or that they have not yet."""
        answer = self._answer_to(call.tool_id, after, None)
        if answer is None:
            self.facts.pending.append(call)
            return
        time = normal_time(answer.record.get("timestamp")) or call.time
        if answer.block.get("is_error") is True:
            # The text it refused, where known: a "clear context" approval is written as a
            # refusal, and its continuation carries the same text (evidence.py pairs them).
            self.facts.events.append(Event(time, REJECTED, call.plan, call.tool_id, call.text))
        elif _result_text(answer.block).startswith(APPROVALS):
            sidecar = answer.record.get("toolUseResult")
            approved = sidecar.get("plan") if isinstance(sidecar, dict) else None
            text = digest_of(approved) or call.text  # the text as approved, maybe edited
            self.facts.events.append(Event(time, APPROVED, call.plan, call.tool_id, text))
            self._seen(call.plan, text, approved, time, texts_seen.APPROVED)
        # anything else (sent to a team lead, pushed elsewhere) is no answer from the person

    def _seen(self, plan: str, digest: str, text: object, time: str, how: str) -> None:
        """A text of the plan this session carried, set aside for keeping (SPEC 6.1)."""
        texts = self.plans.texts
        if texts is not None and digest:
            texts.add(plan, digest, text, time, how, self.facts.session)

    def _answer_pending(self) -> None:
        pending, self.facts.pending = self.facts.pending, []
        for call in pending[-_CALLS_PER_LINE:]:  # a session asks a few times, not thousands
            self._answer(call, 0)


def _edited_path(tool_input: dict[str, Any]) -> Any:
    return tool_input.get("file_path") or tool_input.get("notebook_path")  # NotebookEdit's


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
