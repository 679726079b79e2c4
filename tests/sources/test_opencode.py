"""Issue 44: OpenCode's plans, from what the real OpenCode 1.18.33 wrote (fixtures/opencode,
recorded offline against a scripted API, with OPENCODE_EXPERIMENTAL_PLAN_MODE=1). Its
projects' `.opencode/plans` folders are found; a plan approved ("The plan at … has been
approved") and carried out is completed and archived byte-exact into the user's archive,
never a new folder in the project; one refused or dismissed is not; OpenCode's store is
only read."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.builders.opencode_home import lay_out
from tests.builders.processes import json_of

SCENARIOS = {
    "01-approved-implemented": "completed",
    "02-rejected": "active",
    "04-dismissed": "active",
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_plan_is_completed_only_when_approved_and_carried_out(
    cli: Any, isolated_home: Path, scenario: str
) -> None:
    project = isolated_home / "work" / "greeter"
    laid = lay_out(scenario, isolated_home, project)
    roots = [r for r in json_of(cli, "roots")["roots"] if r["agent"] == "opencode"]
    assert [r["plans_dir"] for r in roots] == [str(laid.plans_dir)]
    assert roots[0]["archive_dir"].startswith(
        str(isolated_home / ".claude" / "plans-archive" / "projects" / "greeter-")
    )
    now = datetime.fromtimestamp(laid.last_activity + 86400, UTC).isoformat()
    [plan] = json_of(cli, "scan", "--all", "--now", now)["plans"]
    assert plan["agent"] == "opencode"
    assert plan["class"] == SCENARIOS[scenario]
    if plan["class"] == "completed":
        assert plan["reason"].endswith(": approved, 1 file edited")
        assert plan["reason"].startswith(f"implemented in session {laid.session[4:12]} (")
        assert plan["project"] == str(project)


def test_apply_archives_it_byte_exact_and_only_reads_opencodes_store(
    cli: Any, isolated_home: Path
) -> None:
    project = isolated_home / "work" / "greeter"
    laid = lay_out("01-approved-implemented", isolated_home, project)
    store = isolated_home / ".local" / "share" / "opencode" / "opencode.db"
    before = store.read_bytes()
    [plan] = list(laid.plans_dir.iterdir())
    text = plan.read_bytes()
    now = datetime.fromtimestamp(laid.last_activity + 86400, UTC).isoformat()
    applied = json_of(cli, "apply", "--all", "--rescan", "--yes", "--now", now)
    [result] = [r for root in applied["roots"] for r in root["results"]]
    assert (result["name"], result["status"]) == (plan.name, "done")
    assert Path(result["destination"]).read_bytes() == text
    assert not plan.exists()
    assert sorted(p.name for p in (project / ".opencode").iterdir()) == ["plans"]  # nothing new
    assert store.read_bytes() == before
