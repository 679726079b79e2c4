"""A home laid out with what the real OpenCode 1.18.33 left after a recorded scenario
(fixtures/opencode): its SQLite store rebuilt from the recorded rows (regenerate.py's
build_db) and the project's `.opencode/plans/`, every absolute path of the run rewritten to
the test's home and project, the plan file's mtime the moment the session wrote it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

FIXTURES = Path(__file__).parents[2] / "fixtures" / "opencode"
VERSION = FIXTURES / "1.18.33"


class Laid(NamedTuple):
    plans_dir: Path
    session: str
    last_activity: float  # the session's time_updated, seconds since the epoch


def _build_db() -> Any:
    spec = importlib.util.spec_from_file_location("opencode_regenerate", FIXTURES / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_db


def lay_out(name: str, home: Path, project: Path) -> Laid:
    recorded = json.loads((VERSION / name / "scenario.json").read_text())
    old_home, old_project = str(recorded["home"]), str(recorded["project"])

    def moved(text: str) -> str:
        return text.replace(old_home, str(home)).replace(old_project, str(project))

    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as staged:
        for dumped in (VERSION / name / "db").iterdir():
            (Path(staged) / dumped.name).write_text(moved(dumped.read_text()))
        _build_db()(Path(staged), data / "opencode.db")
    session = json.loads((VERSION / name / "db" / "session.json").read_text())[0]
    plans = project / ".opencode" / "plans"
    recorded_plans = VERSION / name / "greeter" / ".opencode" / "plans"
    project.mkdir(parents=True, exist_ok=True)
    if recorded_plans.is_dir():
        plans.mkdir(parents=True, exist_ok=True)
        for plan in recorded_plans.iterdir():
            shutil.copyfile(plan, plans / plan.name)
            written = session["time_created"] / 1000 + 3  # the plan agent wrote it then
            os.utime(plans / plan.name, (written, written))
    return Laid(plans, session["id"], session["time_updated"] / 1000)
