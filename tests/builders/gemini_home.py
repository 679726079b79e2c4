"""A home laid out with what the real Gemini CLI 0.61.0 left after a recorded scenario
(fixtures/gemini_cli): its `~/.gemini/tmp/<project>/` and `projects.json`, every absolute
path of the run rewritten to the test's home and project, and each plan file's mtime set
to the moment the chat says the session last wrote it (tests own their clock)."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

FIXTURES = Path(__file__).parents[2] / "fixtures" / "gemini_cli" / "0.61.0"


class Laid(NamedTuple):
    """Where a scenario went, and its clock."""

    home: Path
    project: Path
    temp: Path  # ~/.gemini/tmp/<project>
    plans_dir: Path  # the session's plans folder (gone once Gemini CLI deleted it)
    session: str  # "" where Gemini CLI had deleted it
    last_activity: float  # the chat's latest timestamp, seconds since the epoch


def scenario(name: str) -> dict[str, object]:
    found: dict[str, object] = json.loads((FIXTURES / name / "scenario.json").read_text())
    return found


def lay_out(name: str, home: Path, project: Path, part: str = "tmp") -> Laid:
    """Copy scenario `name`'s recorded `part` (tmp, or before-aged-start/tmp) into home."""
    recorded = scenario(name)
    old_home, old_project = str(recorded["home"]), str(recorded["project"])
    source = FIXTURES / name / part
    target = home / ".gemini" / "tmp"
    target.mkdir(parents=True, exist_ok=True)
    project.mkdir(parents=True, exist_ok=True)
    projects = source.parent / "projects.json"
    copies = [(projects, home / ".gemini" / "projects.json")] if projects.exists() else []
    for path in sorted(source.rglob("*")):
        if path.is_file():
            copies.append((path, target / path.relative_to(source)))
    for origin, copy in copies:
        copy.parent.mkdir(parents=True, exist_ok=True)
        text = origin.read_text(encoding="utf-8")
        copy.write_text(
            text.replace(old_home, str(home)).replace(old_project, str(project)), encoding="utf-8"
        )
        shutil.copymode(origin, copy)
    temp = target / Path(str(recorded["project_temp_dir"])).name
    recorded_temp = source / temp.name
    sessions = [p.name for p in sorted(recorded_temp.iterdir()) if (p / "plans").is_dir()]
    session = sessions[0] if sessions else ""  # "": Gemini CLI had deleted it
    last, writes = _clock(temp / "chats", session)
    plans_dir = temp / session / "plans"
    for plan, at in writes.items():
        if (plans_dir / plan).exists():
            os.utime(plans_dir / plan, (at, at))
    return Laid(home, project, temp, plans_dir, session, last)


def _clock(chats: Path, session: str) -> tuple[float, dict[str, float]]:
    """The session's chat's latest timestamp, and when it last wrote each plan file."""
    last = 0.0
    writes: dict[str, float] = {}
    for chat in sorted(chats.glob(f"session-*-{session[:8]}.jsonl")):
        for line in chat.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for value in _stamps(record):
                last = max(last, value)
            for call in record.get("toolCalls") or ():
                path = call.get("args", {}).get("file_path", "")
                if call.get("name") == "write_file" and "/plans/" in path:
                    writes[Path(path).name] = _epoch(call["timestamp"])
    return last, writes


def _stamps(record: dict[str, object]) -> list[float]:
    found = []
    update = record.get("$set")
    values = [record.get("timestamp"), record.get("lastUpdated")]
    if isinstance(update, dict):
        values.append(update.get("lastUpdated"))
    for value in values:
        if isinstance(value, str):
            found.append(_epoch(value))
    return found


def _epoch(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
