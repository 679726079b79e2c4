"""A realistic fake Claude Code config dir: settings.json and session transcripts.

Records are shaped like Claude Code's own JSON lines (type, sessionId, uuid,
message with content blocks, attachments), so the reader is tested against
what it will meet, noise included.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.builders.files import NOW

HOUR = 3600.0


def _base(session: str, kind: str) -> dict[str, Any]:
    return {
        "parentUuid": str(uuid.uuid4()),
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/project",
        "sessionId": session,
        "version": "2.0.76",
        "gitBranch": "main",
        "type": kind,
        "uuid": str(uuid.uuid4()),
        "timestamp": "2026-11-21T08:00:00.000Z",
    }


def user_text(session: str, text: str) -> dict[str, Any]:
    return {**_base(session, "user"), "message": {"role": "user", "content": text}}


def plan_mode(session: str, plan_file: Path | str) -> dict[str, Any]:
    """The attachment Claude Code adds when a session enters plan mode."""
    attachment = {
        "type": "plan_mode",
        "reminderType": "full",
        "isSubAgent": False,
        "planFilePath": str(plan_file),
        "planExists": False,
    }
    return {**_base(session, "attachment"), "attachment": attachment}


def tool_use(session: str, tool: str, file_path: Path | str, **tool_input: Any) -> dict[str, Any]:
    """An assistant turn that calls one tool (Write, Edit, Read...) on a file."""
    block = {
        "type": "tool_use",
        "id": f"toolu_{uuid.uuid4().hex[:24]}",
        "name": tool,
        "input": {"file_path": str(file_path), **tool_input},
    }
    message = {
        "model": "claude-opus-4-5",
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": "Writing the plan."}, block],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1200, "output_tokens": 300},
    }
    return {**_base(session, "assistant"), "message": message}


def tool_result(session: str, text: str) -> dict[str, Any]:
    content = [{"type": "tool_result", "tool_use_id": "toolu_x", "content": text}]
    return {**_base(session, "user"), "message": {"role": "user", "content": content}}


def write_transcript(
    claude_dir: Path,
    session: str,
    records: Iterable[dict[str, Any] | str | bytes],
    *,
    age_hours: float = 1.0,
    project: str = "-home-dev-project",
    subagent: str | None = None,
    now: datetime = NOW,
) -> Path:
    """A session's transcript (or a sub-agent's, under the session's folder).

    A str or bytes record is written as it is: a malformed or torn line.
    """
    folder = claude_dir / "projects" / project
    if subagent is not None:
        folder = folder / session / "subagents"
        path = folder / f"agent-{subagent}.jsonl"
    else:
        path = folder / f"{session}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for record in records:
        if isinstance(record, bytes):
            lines.append(record)
        elif isinstance(record, str):
            lines.append(record.encode())
        else:
            lines.append(json.dumps(record, ensure_ascii=False).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")
    mtime = now.timestamp() - age_hours * HOUR
    os.utime(path, (mtime, mtime))
    return path


def write_settings(claude_dir: Path, settings: dict[str, Any] | str) -> Path:
    claude_dir.mkdir(parents=True, exist_ok=True)
    path = claude_dir / "settings.json"
    text = settings if isinstance(settings, str) else json.dumps(settings, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


APPROVED_TEXT = (
    "User has approved your plan. You can now start coding. Start with updating your todo "
    "list if applicable"
)
REJECTED_TEXT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


class Session:
    """A Claude Code session's transcript, written record by record as Claude Code 2.1 does.

    Compact JSON lines; one content block per assistant record; a timestamp that
    moves a few seconds per record; tool results with their `toolUseResult`.
    `version` below 2.1.76 leaves `planFilePath` out of ExitPlanMode's input, and
    below 2.0.51 leaves the saved path out of the approval (as those versions did).
    """

    def __init__(
        self,
        session: str,
        *,
        start: datetime,
        cwd: str = "/home/dev/project",
        version: tuple[int, int, int] = (2, 1, 120),
        sidechain: str | None = None,
    ) -> None:
        self.session = session
        self.clock = start.timestamp()
        self.cwd = cwd
        self.version = version
        self.sidechain = sidechain  # the agent id, for a sub-agent's transcript
        self.records: list[dict[str, Any]] = []
        self._tool = 0
        self.slug: str | None = None  # every record carries it once set (2.1.x)

    def _base(self, kind: str) -> dict[str, Any]:
        self.clock += 7
        record: dict[str, Any] = {
            "parentUuid": self.records[-1]["uuid"] if self.records else None,
            "isSidechain": self.sidechain is not None,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": ".".join(map(str, self.version)),
            "gitBranch": "main",
            "type": kind,
            "uuid": str(uuid.uuid4()),
            "timestamp": datetime.fromtimestamp(self.clock, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
            + "123Z",
        }
        if self.sidechain is not None:
            record["agentId"] = self.sidechain
        if self.slug is not None:
            record["slug"] = self.slug
        return record

    @property
    def time(self) -> float:
        return self.clock

    def user(self, text: str) -> Session:
        self.records.append({**self._base("user"), "message": {"role": "user", "content": text}})
        return self

    def plan_mode(self, plan: Path, kind: str = "plan_mode") -> Session:
        attachment = {
            "type": kind,
            "reminderType": "full",
            "isSubAgent": self.sidechain is not None,
            "planFilePath": str(plan),
            "planExists": plan.exists(),
        }
        self.records.append({**self._base("attachment"), "attachment": attachment})
        return self

    def _call(self, tool: str, tool_input: dict[str, Any]) -> str:
        self._tool += 1
        tool_id = f"toolu_01{uuid.uuid4().hex[:22]}"
        block = {"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}
        message = {
            "model": "claude-opus-4-5",
            "id": f"msg_01{uuid.uuid4().hex[:22]}",
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1200, "output_tokens": 300},
        }
        self.records.append({**self._base("assistant"), "message": message})
        return tool_id

    def _result(
        self, tool_id: str, text: str, sidecar: Any, *, error: bool = False
    ) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "content": text, "tool_use_id": tool_id}
        if error:
            block = {
                "type": "tool_result",
                "content": text,
                "is_error": True,
                "tool_use_id": tool_id,
            }
        record = {**self._base("user"), "message": {"role": "user", "content": [block]}}
        if self.sidechain is None:  # sub-agents' results carry no sidecar
            record["toolUseResult"] = sidecar
        self.records.append(record)
        return record

    def hook_progress(self, tool_id: str, hook: str = "PostToolUse:ExitPlanMode") -> Session:
        """What a PostToolUse hook leaves before the call's answer: the call's id, no result."""
        data = {"type": "hook_progress", "hookEvent": hook.split(":")[0], "hookName": hook}
        data["command"] = "true"
        record = {**self._base("progress"), "data": data}
        record.update(toolUseID=tool_id, parentToolUseID=tool_id)
        self.records.append(record)
        return self

    def request_blob(self, tool_id: str, answer: str) -> Session:
        """An api-request-blob (2.1.3xx): no time, the wire messages repeated, the call's id
        and a tool_result among them; never the person's answer."""
        record = self._base("api-request-blob")
        del record["timestamp"]
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": answer}
        record["message"] = {"role": "user", "content": [result]}
        call = {"type": "tool_use", "id": tool_id}
        record["messages"] = [{"role": "assistant", "content": [call]}]
        self.records.append(record)
        return self

    def write_plan(self, plan: Path, text: str) -> Session:
        """The plan written into the plans directory, as plan mode asks."""
        tool_id = self._call("Write", {"file_path": str(plan), "content": text})
        sidecar = {"type": "create", "filePath": str(plan), "content": text, "structuredPatch": []}
        self._result(tool_id, f"File created successfully at: {plan}", sidecar)
        return self

    def present(self, plan: Path, text: str = "# Plan\n") -> str:
        """ExitPlanMode: the plan shown for approval. Returns the call's id."""
        tool_input: dict[str, Any] = {}
        if self.version >= (2, 0, 55):
            tool_input["plan"] = text
        if self.version >= (2, 1, 76):
            tool_input["planFilePath"] = str(plan)
        return self._call("ExitPlanMode", tool_input)

    def approve(self, call: str, plan: Path, text: str = "# Plan\n") -> Session:
        answer = APPROVED_TEXT
        if self.version >= (2, 0, 51):
            answer += (
                f"\n\nYour plan has been saved to: {plan}\nYou can refer back to it if needed "
                f"during implementation.\n\n## Approved Plan:\n{text}"
            )
        sidecar = {"plan": text, "isAgent": self.sidechain is not None, "filePath": str(plan)}
        self._result(call, answer, sidecar)
        return self

    def cleared(self, call: str) -> Session:
        """ "Clear context" as 2.1.12 to 2.1.119 write it in the planning session: the call
        answered exactly like a refusal, then the interruption."""
        self.reject(call)
        return self.user("[Request interrupted by user for tool use]")

    def implement(self, plan: Path, text: str, *, old_transcript: Path | None = None) -> Session:
        """The first message of the chain that implements a plan approved with "clear
        context": `Implement the following plan:`, `planContent` from 2.1.29, an origin and
        a note naming the old transcript from 2.1.300; `slug` on every record."""
        self.slug = plan.stem
        content = f"Implement the following plan:\n\n{text}"
        if self.version >= (2, 1, 300) and old_transcript is not None:
            content += (
                "\n\nIf you need specific details from before exiting plan mode (like exact "
                "code snippets, error messages, or content you generated), read the full "
                f"transcript at: {old_transcript}"
            )
        record = {**self._base("user"), "message": {"role": "user", "content": content}}
        record["parentUuid"] = None
        if self.version >= (2, 1, 29):
            record["planContent"] = text
        if self.version >= (2, 1, 300):
            record["origin"] = {"kind": "auto-continuation"}
        self.records.append(record)
        return self

    def edit_plan(self, plan: Path, old: str, new: str) -> Session:
        """The session ticks its own plan: an Edit whose result carries the file before it."""
        before = plan.read_text()
        tool_id = self._call("Edit", {"file_path": str(plan), "old_string": old, "new_string": new})
        sidecar = {"filePath": str(plan), "oldString": old, "newString": new}
        self._result(
            tool_id, f"The file {plan} has been updated.", {**sidecar, "originalFile": before}
        )
        plan.write_text(before.replace(old, new, 1))
        os.utime(plan, (self.clock, self.clock))
        return self

    def reject(self, call: str, feedback: str | None = None) -> Session:
        text = REJECTED_TEXT
        if feedback is not None:
            text = (
                text.split(" STOP")[0] + " To tell you how to proceed, the user said:\n" + feedback
            )
        self._result(call, text, f"Error: {text}", error=True)
        return self

    def edit(self, path: Path | str, *, tool: str = "Edit", refused: bool = False) -> Session:
        key = "notebook_path" if tool == "NotebookEdit" else "file_path"
        original = "def handler(request):\n    return None\n" * 200  # results carry the file
        tool_input = {key: str(path), "old_string": "return None", "new_string": "return 1"}
        if tool == "Write":
            tool_input = {key: str(path), "content": original}
        tool_id = self._call(tool, tool_input)
        if refused:
            self._result(tool_id, REJECTED_TEXT, f"Error: {REJECTED_TEXT}", error=True)
        else:
            sidecar = {"filePath": str(path), "originalFile": original, "structuredPatch": []}
            self._result(tool_id, f"The file {path} has been updated.", sidecar)
        return self

    def bash(self, command: str, output: str = "", *, failed: bool = False) -> Session:
        """A Bash call and its answer (`is_error` when the command failed)."""
        tool_id = self._call("Bash", {"command": command, "description": "Run it"})
        sidecar = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
        self._result(tool_id, output or "(no output)", sidecar, error=failed)
        return self

    def todos(self, *statuses: str) -> Session:
        todos = [
            {"content": f"Step {n}", "status": status, "activeForm": f"Doing step {n}"}
            for n, status in enumerate(statuses, 1)
        ]
        tool_id = self._call("TodoWrite", {"todos": todos})
        self._result(tool_id, "Todos have been modified successfully.", {"newTodos": todos})
        return self

    def task(self, subject: str) -> str:
        """TaskCreate, as interactive sessions since 2.1.16 keep their list. Returns its id."""
        tool_id = self._call("TaskCreate", {"subject": subject, "description": subject})
        number = str(sum(1 for r in self.records if "TaskCreate" in json.dumps(r)))
        self._result(tool_id, f"Task #{number} created successfully: {subject}", {})
        return number

    def task_status(self, task: str, status: str) -> Session:
        tool_id = self._call("TaskUpdate", {"taskId": task, "status": status})
        self._result(tool_id, f"Updated task #{task} status", {"success": True})
        return self

    def lines(self) -> list[bytes]:
        return [
            json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() for r in self.records
        ]

    def save(
        self, claude_dir: Path, *, project: str = "-home-dev-project", mtime: float | None = None
    ) -> Path:
        """The transcript where Claude Code keeps it; its mtime the last record's time."""
        folder = claude_dir / "projects" / project
        if self.sidechain is not None:
            folder = folder / self.session / "subagents"
            path = folder / f"agent-{self.sidechain}.jsonl"
        else:
            path = folder / f"{self.session}.jsonl"
        folder.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\n".join(self.lines()) + b"\n")
        when = self.clock if mtime is None else mtime
        os.utime(path, (when, when))
        return path
