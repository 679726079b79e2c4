"""Issue 44: Codex CLI's plans, from what the real Codex CLI 0.171.0 wrote (fixtures/codex,
recorded offline against a scripted API). Codex writes no plan file: each plan item of
its rollouts is extracted once into a folder of clarity's own, judged by what the
session did after it (approved with "Implement the plan." or in a fresh thread, then
files changed), archived byte-exact, never extracted again, and nothing in `~/.codex`
is ever written."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.builders.codex_home import Laid, lay_out
from tests.builders.files import snapshot
from tests.builders.processes import json_of

SCENARIOS = {
    "01-approved-implemented": ("completed", ": approved, 1 file edited"),
    "02-not-approved": ("active", "in progress"),
    "03-update-plan": ("completed", ": approved, 1 file edited, 2/2 todos done"),
    "05-fresh-thread": ("completed", ' after "clear context": 1 file edited'),
}


def _plan_items(laid: Laid) -> list[dict[str, Any]]:
    """Every plan item the scenario's rollouts hold, in order."""
    found = []
    for rollout in laid.rollouts:
        for line in rollout.read_text().splitlines():
            payload = json.loads(line)["payload"]
            item = payload.get("item") if isinstance(payload, dict) else None
            if isinstance(item, dict) and item.get("type") == "Plan":
                found.append(item)
    return found


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return isolated_home


def _now(laid: Laid) -> str:
    return datetime.fromtimestamp(laid.last_activity + 86400, UTC).isoformat()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_plan_codex_showed_is_a_plan_judged_by_what_the_session_did(
    cli: Any, home: Path, scenario: str
) -> None:
    laid = lay_out(scenario, home, home / "work" / "greeter")
    roots = [r for r in json_of(cli, "roots")["roots"] if r["agent"] == "codex"]
    assert len(roots) == 1
    plans = json_of(cli, "scan", "--all", "--now", _now(laid))["plans"]
    items = _plan_items(laid)
    assert len(plans) == len(items) == 1
    plan, item = plans[0], items[0]
    assert plan["agent"] == "codex"
    assert plan["name"] == "2026-11-28-greeting-plan.md"  # its date and first heading
    assert Path(plan["path"]).read_text() == item["text"]
    expected_class, words = SCENARIOS[scenario]
    assert plan["class"] == expected_class
    assert words in plan["reason"]
    assert plan["project"] == os.fspath(home / "work" / "greeter")


def test_two_plans_of_one_session_are_two_plans(cli: Any, home: Path) -> None:
    laid = lay_out("04-second-plan", home, home / "work" / "greeter")
    plans = json_of(cli, "scan", "--all", "--now", _now(laid))["plans"]
    assert sorted(p["name"] for p in plans) == [
        "2026-11-28-greeting-plan-part-2.md",
        "2026-11-28-greeting-plan.md",
    ]
    assert {p["class"] for p in plans} == {"completed"}


def test_apply_archives_them_byte_exact_writes_nothing_in_codex_and_never_extracts_twice(
    cli: Any, home: Path
) -> None:
    laid = lay_out("01-approved-implemented", home, home / "work" / "greeter")
    codex = home / ".codex"
    before = snapshot(codex)
    now = _now(laid)
    text = _plan_items(laid)[0]["text"].encode()
    applied = json_of(cli, "apply", "--all", "--rescan", "--yes", "--now", now)
    results = [r for root in applied["roots"] for r in root["results"]]
    assert [(r["name"], r["action"], r["status"]) for r in results] == [
        ("2026-11-28-greeting-plan.md", "archive", "done")
    ]
    assert Path(results[0]["destination"]).read_bytes() == text
    assert snapshot(codex) == before
    with laid.rollouts[0].open("a") as rollout:  # the session goes on: its rollout grows
        rollout.write('{"timestamp":"2026-11-28T08:00:00.000Z","type":"event_msg","payload":{}}\n')
    assert json_of(cli, "scan", "--all", "--now", now)["plans"] == []


def test_no_codex_no_folder(cli: Any, home: Path) -> None:
    assert [r for r in json_of(cli, "roots")["roots"] if r["agent"] == "codex"] == []


def test_a_plan_whose_text_holds_a_lone_surrogate_is_extracted_whole(cli: Any, home: Path) -> None:
    """JSON may escape half a UTF-16 pair (\\ud800); the plan is still written, as
    text_digest reads it, under its own name and nowhere else (no temp left beside it)."""
    laid = lay_out("01-approved-implemented", home, home / "work" / "greeter")
    [rollout] = laid.rollouts
    lines = []
    for line in rollout.read_text().splitlines():
        record = json.loads(line)
        item = record["payload"].get("item") if isinstance(record["payload"], dict) else None
        if isinstance(item, dict) and item.get("type") == "Plan":
            item["text"] += "\nA half pair: \ud800\n"
        lines.append(json.dumps(record))  # ensure_ascii: written as the escape \ud800
    rollout.write_text("\n".join(lines) + "\n")

    scanned = cli("scan", "--all", "--json", "--now", _now(laid))

    assert scanned.exit_code == 0, scanned.stderr
    [plan] = json.loads(scanned.stdout)["plans"]
    path = Path(plan["path"])
    assert path.read_bytes().endswith(b"\nA half pair: \xed\xa0\x80\n")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
