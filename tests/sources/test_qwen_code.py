"""Issue 44: Qwen Code's plans, from what the real Qwen Code 0.24.4 wrote (fixtures/qwen_code,
recorded offline against a scripted API). Its plans folder is found; a plan approved and
carried out is completed (its todo list named) and archived byte-exact; a plan changed
since its approval is not; a refusal leaves no plan at all."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.builders.processes import json_of
from tests.builders.qwen_home import Laid, lay_out


@pytest.fixture
def qwen(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Laid]:
    monkeypatch.delenv("QWEN_HOME", raising=False)
    project = isolated_home / "work" / "greeter"
    return {
        name: lay_out(name, isolated_home, project)
        for name in ("01-approved-implemented", "02-rejected", "03-approved-todos")
    }


def _now(qwen: dict[str, Laid]) -> str:
    last = max(laid.last_activity for laid in qwen.values())
    return datetime.fromtimestamp(last + 86400, UTC).isoformat()


def test_plans_approved_and_carried_out_are_completed_and_archived_byte_exact(
    cli: Any, qwen: dict[str, Laid], isolated_home: Path
) -> None:
    roots = [r for r in json_of(cli, "roots")["roots"] if r["agent"] == "qwen-code"]
    assert [r["plans_dir"] for r in roots] == [str(isolated_home / ".qwen" / "plans")]
    plans = {p["name"]: p for p in json_of(cli, "scan", "--all", "--now", _now(qwen))["plans"]}
    done, todos = qwen["01-approved-implemented"], qwen["03-approved-todos"]
    assert sorted(plans) == sorted([f"{done.session}.md", f"{todos.session}.md"])  # 02: no file
    first = plans[f"{done.session}.md"]
    assert first["class"] == "completed"
    assert first["agent"] == "qwen-code"
    assert first["reason"].endswith(": approved, 1 file edited")
    assert first["project"] == str(isolated_home / "work" / "greeter")
    assert plans[f"{todos.session}.md"]["reason"].endswith("1 file edited, 2/2 todos done")
    texts = {name: Path(p["path"]).read_bytes() for name, p in plans.items()}
    applied = json_of(cli, "apply", "--all", "--rescan", "--yes", "--now", _now(qwen))
    results = [r for root in applied["roots"] for r in root["results"]]
    assert sorted(r["status"] for r in results) == ["done", "done"]
    for result in results:
        assert Path(result["destination"]).read_bytes() == texts[result["name"]]


def test_a_plan_changed_since_its_approval_is_not_completed(
    cli: Any, qwen: dict[str, Laid]
) -> None:
    laid = qwen["01-approved-implemented"]
    plan = laid.plans_dir / f"{laid.session}.md"
    mtime = plan.stat().st_mtime_ns
    plan.write_text(plan.read_text() + "\n## And then\nSomething else.\n")
    os.utime(plan, ns=(mtime, mtime))  # its text decides, not its mtime
    plans = {p["name"]: p for p in json_of(cli, "scan", "--all", "--now", _now(qwen))["plans"]}
    assert plans[plan.name]["class"] == "active"
