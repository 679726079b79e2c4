"""Claude Code transcripts like a heavy user's, at any size, the same every time.

Sessions of 100 KB to 6 MB, written record by record as Claude Code 2.1
writes them (compact JSON lines, one content block per assistant record,
tool results carrying the files they read or edited). One session in six
works in plan mode on a plan of the plans directory given: plan-mode
attachments, the plan written, ExitPlanMode and its answer (mostly
approved, some rejected), then a todo list and the edits that implement it;
a third of those have a sub-agent's transcript beside them. The rest read,
grep, run and edit code and never name a plan.
"""

from __future__ import annotations

import json
import math
import os
import random
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.corpus import NOW

_WORDS = [
    "the",
    "cache",
    "layer",
    "reads",
    "through",
    "to",
    "the",
    "store",
    "and",
    "keeps",
    "hot",
    "keys",
    "warm",
    "while",
    "the",
    "worker",
    "drains",
    "the",
    "queue",
    "in",
    "batches",
    "so",
    "that",
    "retries",
    "never",
    "block",
    "a",
    "request",
    "path",
    "we",
    "measure",
    "latency",
    "at",
    "the",
    "edge",
    "and",
    "compare",
    "the",
    "old",
    "index",
    "with",
    "the",
    "new",
    "one",
]
_CODE = "\n".join(
    f"    def handler_{n}(self, request):\n        return self.store.get(request.key, {n})"
    for n in range(400)
)


@dataclass(frozen=True, slots=True)
class TranscriptStats:
    files: int
    bytes: int
    plan_sessions: int


class _Writer:
    """One session's records, as Claude Code writes them."""

    def __init__(self, rng: random.Random, session: str, cwd: str, start: float) -> None:
        self.rng = rng
        self.session = session
        self.cwd = cwd
        self.clock = start
        self.lines: list[bytes] = []
        self.size = 0
        self.parent: str | None = None

    def _record(self, kind: str, **fields: Any) -> None:
        self.clock += self.rng.uniform(1, 30)
        stamp = NOW.fromtimestamp(self.clock, NOW.tzinfo)
        me = str(uuid.UUID(int=self.rng.getrandbits(128)))
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.120",
            "gitBranch": "main",
            "type": kind,
            **fields,
            "uuid": me,
            "timestamp": stamp.strftime("%Y-%m-%dT%H:%M:%S.") + "000Z",
        }
        self.parent = me
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
        self.lines.append(line)
        self.size += len(line) + 1

    def text(self, words: int) -> str:
        return " ".join(self.rng.choices(_WORDS, k=words))

    def code(self) -> str:
        start = self.rng.randrange(0, len(_CODE) - 200)
        return _CODE[start : start + self.rng.randint(200, 30_000)]

    def user(self) -> None:
        self._record("user", message={"role": "user", "content": self.text(40)})

    def assistant_text(self) -> None:
        content = [{"type": "text", "text": self.text(self.rng.randint(30, 400))}]
        self._assistant(content)

    def _assistant(self, content: list[dict[str, Any]]) -> None:
        message = {
            "model": "claude-opus-4-5",
            "id": f"msg_01{self.rng.getrandbits(88):022x}",
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 4000, "output_tokens": 300},
        }
        self._record("assistant", message=message, requestId=f"req_{self.rng.getrandbits(64):x}")

    def call(self, tool: str, tool_input: dict[str, Any]) -> str:
        tool_id = f"toolu_01{self.rng.getrandbits(88):022x}"
        self._assistant([{"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}])
        return tool_id

    def result(self, tool_id: str, text: str, sidecar: Any = None, error: bool = False) -> None:
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": text}
        if error:
            block["is_error"] = True
        fields: dict[str, Any] = {"message": {"role": "user", "content": [block]}}
        if sidecar is not None:
            fields["toolUseResult"] = sidecar
        self._record("user", **fields)

    def read(self) -> None:
        path = f"{self.cwd}/src/module_{self.rng.randrange(200)}.py"
        self.result(self.call("Read", {"file_path": path}), self.code())

    def bash(self) -> None:
        tool_id = self.call("Bash", {"command": "pytest -q tests", "description": "Run tests"})
        self.result(tool_id, self.text(self.rng.randint(20, 600)))

    def edit(self) -> None:
        path = f"{self.cwd}/src/module_{self.rng.randrange(200)}.py"
        old = self.code()[:400]
        tool_id = self.call("Edit", {"file_path": path, "old_string": old, "new_string": old + "#"})
        sidecar = {"filePath": path, "oldString": old, "originalFile": self.code()}
        self.result(tool_id, f"The file {path} has been updated.", sidecar)

    def ordinary_turn(self) -> None:
        self.user()
        for _ in range(self.rng.randint(1, 6)):
            self.rng.choice((self.read, self.read, self.bash, self.edit, self.assistant_text))()

    def plan_mode_turns(self, plan: Path, approve: bool) -> str:
        """The turns of plan mode on plan; the plan's text, which its file then holds."""
        self.user()
        attachment = {
            "type": "plan_mode",
            "reminderType": "full",
            "isSubAgent": False,
            "planFilePath": str(plan),
            "planExists": False,
        }
        self._record("attachment", attachment=attachment)
        for _ in range(3):
            self.read()
        body = f"# Plan: {self.text(6)}\n\n## Context\n\n{self.text(200)}\n"
        self.result(
            self.call("Write", {"file_path": str(plan), "content": body}),
            f"File created successfully at: {plan}",
            {"type": "create", "filePath": str(plan), "content": body, "structuredPatch": []},
        )
        call = self.call("ExitPlanMode", {"plan": body, "planFilePath": str(plan)})
        if approve:
            answer = (
                "User has approved your plan. You can now start coding. Start with updating "
                f"your todo list if applicable\n\nYour plan has been saved to: {plan}\nYou can "
                f"refer back to it if needed during implementation.\n\n## Approved Plan:\n{body}"
            )
            self.result(call, answer, {"plan": body, "isAgent": False, "filePath": str(plan)})
            todos = [{"content": self.text(5), "status": "completed", "activeForm": "Doing"}] * 4
            self.result(self.call("TodoWrite", {"todos": todos}), "Todos have been modified")
            self.edit()  # the implementation starts
        else:
            self.result(call, "The user doesn't want to proceed with this tool use.", None, True)
        return body


def make_transcripts(
    projects_dir: Path, plans_dir: Path, total_bytes: int, seed: int = 11
) -> TranscriptStats:
    """Transcripts under projects_dir adding up to about total_bytes; plans in plans_dir."""
    rng = random.Random(seed)
    plans_dir.mkdir(parents=True, exist_ok=True)
    written = files = plan_sessions = 0
    while written < total_bytes:
        number = files
        project = f"proj{number % 12}"
        folder = projects_dir / f"-home-dev-{project}"
        folder.mkdir(parents=True, exist_ok=True)
        session = str(uuid.UUID(int=rng.getrandbits(128)))
        start = (NOW - timedelta(days=rng.uniform(1, 90))).timestamp()
        writer = _Writer(rng, session, f"/home/dev/{project}", start)
        target = int(math.exp(rng.uniform(math.log(100_000), math.log(6_000_000))))
        plan, body = None, ""
        if files == 0 or rng.random() < 1 / 6:  # the first always: any corpus has one
            plan_sessions += 1
            plan = plans_dir / f"plan-{plan_sessions:04d}.md"
            body = writer.plan_mode_turns(plan, approve=files == 0 or rng.random() < 0.8)
        while writer.size < target:
            writer.ordinary_turn()
        path = folder / f"{session}.jsonl"
        path.write_bytes(b"\n".join(writer.lines) + b"\n")
        os.utime(path, (writer.clock, writer.clock))
        if plan is not None:
            plan.write_text(body, encoding="utf-8")  # as the session wrote and approved it
            os.utime(plan, (writer.clock - 600, writer.clock - 600))
        written += writer.size
        files += 1
    return TranscriptStats(files, written, plan_sessions)


def append_lines(path: Path, size: int, seed: int) -> int:
    """About size bytes of ordinary records appended to a transcript: a session going on."""
    rng = random.Random(seed)
    writer = _Writer(rng, path.stem, "/home/dev/proj0", NOW.timestamp() - 86_400 * 3)
    while writer.size < size:
        writer.ordinary_turn()
    data = b"\n".join(writer.lines) + b"\n"
    with path.open("ab") as stream:
        stream.write(data)
    return len(data)
