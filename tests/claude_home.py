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
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.conftest import NOW

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
