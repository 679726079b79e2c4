"""A plan and the Claude Code session that planned or implemented it, on a realistic fake
~/.claude (claude_home.py), and the scan that reads them."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from tests.builders.claude_home import Session
from tests.builders.files import NOW, NOW_ISO

SESSION = "31da521d-7c4e-4b8a-9f2e-0d1c2b3a4f5e"
OTHER = "8e2f1a3b-5c6d-4e7f-8a9b-0c1d2e3f4a5b"
PLAN = "# Plan: cache the catalogue\n\n## Steps\n\n1. Add a read-through cache.\n" + "more\n" * 500
STARTED = NOW - timedelta(days=20)


def scan(cli, plans_dir: Path, *args: str) -> dict[str, dict[str, Any]]:
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json", *args)
    assert result.exit_code == 0, result.stderr
    return {plan["name"]: plan for plan in result.json()["plans"]}


def planned(plans_dir: Path, session: Session, name: str = "misty-sleeping-cherny.md") -> Path:
    """A session that enters plan mode and writes its plan, as the file Claude Code leaves."""
    plan = plans_dir / name
    session.user("Plan a cache for the catalogue").plan_mode(plan).write_plan(plan, PLAN)
    plan.write_text(PLAN, encoding="utf-8")
    os.utime(plan, (session.time, session.time))
    return plan


def implemented(plans_dir: Path, session: Session, edits: int = 3) -> Path:
    plan = planned(plans_dir, session)
    session.approve(session.present(plan, PLAN), plan, PLAN)
    session.todos("in_progress", "pending")
    for number in range(edits):
        session.edit(f"/home/dev/project/src/cache_{number}.py")
    session.todos("completed", "completed")
    session.user("thanks")
    return plan
