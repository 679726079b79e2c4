"""A home laid out with what the real Codex CLI 0.171.0 left after a recorded scenario
(fixtures/codex): its rollouts and attachments under `~/.codex`, every absolute path of
the run rewritten to the test's home and project."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

FIXTURES = Path(__file__).parents[2] / "fixtures" / "codex" / "0.171.0"
KEPT = ("sessions", "archived_sessions", "attachments")


class Laid(NamedTuple):
    rollouts: tuple[Path, ...]
    last_activity: float  # the latest timestamp in the scenario's rollouts


def lay_out(name: str, home: Path, project: Path) -> Laid:
    recorded = json.loads((FIXTURES / name / "scenario.json").read_text())
    old_home, old_project = str(recorded["home"]), str(recorded["project"])
    codex = home / ".codex"
    project.mkdir(parents=True, exist_ok=True)
    rollouts = []
    last = 0.0
    for place in KEPT:
        source = FIXTURES / name / place
        for path in sorted(source.rglob("*")) if source.is_dir() else ():
            if not path.is_file():
                continue
            copy = codex / place / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            copy.write_text(
                text.replace(old_home, str(home)).replace(old_project, str(project)),
                encoding="utf-8",
            )
            if copy.name.startswith("rollout-"):
                rollouts.append(copy)
                for line in text.splitlines():
                    stamp = json.loads(line).get("timestamp")
                    if isinstance(stamp, str):
                        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
                        last = max(last, when.timestamp())
    return Laid(tuple(rollouts), last)
