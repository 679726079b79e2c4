"""A home laid out with what the real Qwen Code 0.24.4 left after a recorded scenario
(fixtures/qwen_code): its plans, chats and todos under `~/.qwen`, every absolute path of the
run rewritten to the test's home and project (the chat's folder named after the new
project, as Qwen Code names it), and the plan file's mtime the moment it was approved."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

FIXTURES = Path(__file__).parents[2] / "fixtures" / "qwen_code" / "0.24.4"
KEPT = ("plans", "projects", "todos")


class Laid(NamedTuple):
    plans_dir: Path
    session: str
    last_activity: float  # the chat's latest timestamp, seconds since the epoch


def lay_out(name: str, home: Path, project: Path) -> Laid:
    recorded = json.loads((FIXTURES / name / "scenario.json").read_text())
    old_home, old_project = str(recorded["home"]), str(recorded["project"])
    qwen = home / ".qwen"
    project.mkdir(parents=True, exist_ok=True)
    old_folder = re.sub(r"[^A-Za-z0-9]", "-", old_project)
    new_folder = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    last, approved, session = 0.0, 0.0, ""
    for place in KEPT:
        source = FIXTURES / name / place
        for path in sorted(source.rglob("*")) if source.is_dir() else ():
            if not path.is_file():
                continue
            relative = str(path.relative_to(source)).replace(old_folder, new_folder)
            copy = qwen / place / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            copy.write_text(
                text.replace(old_home, str(home)).replace(old_project, str(project)),
                encoding="utf-8",
            )
            if copy.suffix == ".jsonl":
                session = copy.stem
                for line in text.splitlines():
                    record = json.loads(line)
                    when = _epoch(record["timestamp"])
                    last = max(last, when)
                    if "User approved." in line and record.get("type") == "tool_result":
                        approved = when
    plan = qwen / "plans" / f"{session}.md"
    if plan.exists():
        os.utime(plan, (approved, approved))
    return Laid(qwen / "plans", session, last)


def _epoch(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
