"""Qwen Code's plans: the fifth plan source.

What Qwen Code writes (read in its bundle, `@qwen-code/qwen-code` 0.24.4, and seen in
fixtures/qwen_code, recorded from the real client offline):
- Home: `$QWEN_HOME`, else `~/.qwen`. The plan is `plans/<session uuid>.md`, written only
  when the person approves it, byte-equal to the text the model presented; one per
  session (a later approval overwrites it).
- The session's chat: `projects/<the cwd, each character not a letter or digit as
  "-">/chats/<session uuid>.jsonl`, JSON lines, each record with `sessionId`,
  `timestamp`, `type` (`user`, `assistant`, `tool_result`, `system`) and `cwd`, and a
  Gemini-style `message.parts` of `functionCall {id, name, args}` or
  `functionResponse {id, name, response}`.
- Approval: `exit_plan_mode` (`args.plan`: the text) answered "User approved. ...". A
  refusal is answered `[Operation Cancelled] ...` and writes no file.
- The work: `edit` and `write_file` calls answered with success after the approval;
  `todo_write` lists (`todos[{status}]`), the last of which is named.
- No cleanup of plans by age. Its plans folder is a person's: clarity may move plans
  out of it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.dates import stamp_seconds
from clarity.model import NO_SESSIONS, PlanSessions, SessionEvidence
from clarity.plans.reader import is_plan_name
from clarity.sources import Found
from clarity.sources.defaults import PlainSource, users_folder
from clarity.transcripts.store import text_digest

if TYPE_CHECKING:
    from clarity.settings.config import Settings

NAME = "qwen-code"
LABEL = "Qwen Code"
APPROVED = "User approved."
EDITS = ("edit", "write_file")
SESSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CHAT_MOST = 256 * 1024 * 1024


class QwenCode(PlainSource):
    """Qwen Code's plans, as the module says."""

    name = NAME
    label = LABEL

    def folders(self, settings: Settings, home: Path) -> Found:
        qwen = qwen_home(home)
        return users_folder(qwen / "plans", "Qwen Code's plans folder", NAME, qwen)

    def claims(self, plans_dir: Path) -> bool:
        return plans_dir.name == "plans" and plans_dir.parent.name == ".qwen"

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        """Each plan's session is in its name: that session's chat says what was approved
        and what was done after."""
        chats = _chats(settings.plans_dir.parent / "projects")
        if not chats:
            return NO_SESSIONS
        evidence: dict[str, SessionEvidence] = {}
        projects: dict[str, str] = {}
        in_use: dict[str, str] = {}
        presented: set[str] = set()
        real = os.path.realpath(settings.plans_dir)
        for entry in _plan_names(settings.plans_dir):
            chat = chats.get(entry.removesuffix(".md"))
            if chat is None:
                continue
            facts = read_chat(chat, real)
            if facts.cwd:
                projects[entry] = facts.cwd
            if now.timestamp() - facts.last < settings.protect_hours * 3600:
                in_use[entry] = facts.session
            if facts.presented:
                presented.add(entry)
            if facts.evidence is not None:
                evidence[entry] = facts.evidence
        return PlanSessions(
            in_use,
            frozenset(),
            evidence=evidence,
            projects=projects,
            presented=frozenset(presented),
        )


def qwen_home(home: Path) -> Path:
    return Path(os.environ.get("QWEN_HOME") or home / ".qwen")


def _plan_names(plans_dir: Path) -> list[str]:
    try:
        return [e.name for e in os.scandir(plans_dir) if is_plan_name(e.name)]
    except OSError:
        return []


def _chats(projects: Path) -> dict[str, Path]:
    """session uuid -> its chat file, over every project."""
    found: dict[str, Path] = {}
    try:
        folders = [e.path for e in os.scandir(projects) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return found
    for folder in folders:
        try:
            entries = list(os.scandir(Path(folder) / "chats"))
        except OSError:
            continue
        for entry in entries:
            stem = entry.name.removesuffix(".jsonl")
            if entry.name.endswith(".jsonl") and SESSION.fullmatch(stem):
                found[stem] = Path(entry.path)
    return found


class ChatFacts:
    """What one session's chat says about its plan."""

    def __init__(self) -> None:
        self.session = ""
        self.cwd: str | None = None
        self.last = 0.0
        self.presented = False
        self.evidence: SessionEvidence | None = None


def read_chat(path: Path, real_plans_dir: str) -> ChatFacts:
    from clarity.fsio import read_regular

    facts = ChatFacts()
    try:
        data = read_regular(path, CHAT_MOST)
    except (OSError, ValueError):
        return facts
    calls: dict[str, tuple[str, Mapping[str, Any]]] = {}  # call id -> (tool, args)
    approved_at: float | None = None
    text_sha: str | None = None
    edited: set[str] = set()
    todos: tuple[int, int] | None = None
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        at = stamp_seconds(record.get("timestamp"))
        if at is not None:
            facts.last = max(facts.last, at)
        facts.session = facts.session or str(record.get("sessionId") or "")
        if facts.cwd is None and isinstance(record.get("cwd"), str):
            facts.cwd = record["cwd"]
        message = record.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, dict):
                continue
            call = part.get("functionCall")
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                args = call.get("args")
                calls[call["id"]] = (str(call.get("name")), args if isinstance(args, dict) else {})
                continue
            answer = part.get("functionResponse")
            if not isinstance(answer, dict) or answer.get("id") not in calls:
                continue
            tool, args = calls[answer["id"]]
            response = answer.get("response")
            output = response.get("output") if isinstance(response, dict) else None
            if not isinstance(output, str):
                continue  # an error, a cancelled call: nothing happened
            if tool == "exit_plan_mode":
                facts.presented = True
                plan = args.get("plan")
                if output.startswith(APPROVED) and isinstance(plan, str):
                    approved_at, text_sha = at, text_digest(plan)
                    edited, todos = set(), None
            elif approved_at is not None and tool in EDITS:
                target = args.get("file_path")
                inside = isinstance(target, str) and (
                    os.path.realpath(Path(target).parent) == real_plans_dir
                )
                if isinstance(target, str) and not inside:
                    edited.add(os.path.realpath(target))
            elif approved_at is not None and tool == "todo_write":
                todos = _todos(args.get("todos"))
    if approved_at is not None and text_sha is not None:
        facts.evidence = SessionEvidence(
            session=facts.session,
            approved_at=approved_at,
            files_edited=len(edited),
            todos=todos,
            last_activity=facts.last,
            texts=frozenset({text_sha}),
        )
    return facts


def _todos(value: object) -> tuple[int, int] | None:
    if not isinstance(value, list) or not value:
        return None
    done = sum(1 for t in value if isinstance(t, dict) and t.get("status") == "completed")
    return done, len(value)
