"""Issue 43, part 2: the page's `.json` twins. The list, a plan and the search answer as
JSON too, each row worded as `scan --json` words a plan (one PlanRow, one to_json), the
search as `clarity search --json` answers; asked over a real socket of a real server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.browse.page import EDITED
from tests.browse.server import Served
from tests.browse.test_pages import cli_json

# What a row's time-bound figures say depends on the moment each was made.
MOMENT_BOUND = {"age_days", "cleanup_in_days", "mtime"}


def _json(served: Served, path: str, status: int = 200) -> dict[str, Any]:
    answer = served.ask(path)
    assert answer.status == status, (path, answer.status, answer.body[:300])
    assert answer.headers["content-type"] == "application/json"
    # Plan text inside is hostile: never sniffed as a page, and no script runs from it.
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    document: dict[str, Any] = json.loads(answer.body)
    assert document["schema_version"] == 1
    return document


def _settled(plan: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in plan.items() if key not in MOMENT_BOUND}


def test_the_list_twin_words_each_live_plan_as_scan_json_does(
    home: tuple[Path, dict[str, str]], served: Served
) -> None:
    listed = _json(served, "/plans.json")
    scanned = {plan["name"]: plan for plan in cli_json(home[1], "scan", "--no-record")["plans"]}
    live = {plan["name"]: plan for plan in listed["plans"] if plan["where"] == "live"}
    assert live.keys() == scanned.keys()
    for name, plan in live.items():
        extra = {"where": "live", "root": listed["roots"][0]["id"], "value": name}
        assert _settled(plan) == _settled(scanned[name]) | extra
    shelf = cli_json(home[1], "archived")
    archived = {plan["name"] for plan in listed["plans"] if plan["where"] == "archive"}
    kept = {plan["name"] for plan in listed["plans"] if plan["where"] == "kept"}
    assert archived == {plan["name"] for plan in shelf["plans"]}
    assert kept == {plan["name"] for plan in shelf["kept"]}
    assert listed["total"] == len(listed["plans"]) and listed["pages"] == 1
    # an archived plan's Reason is why it was archived (issue 46), not its summary
    why = {plan["name"]: plan["reason"] for plan in listed["plans"] if plan["where"] == "archive"}
    records = {plan["name"]: plan for plan in shelf["plans"]}
    for name, reason in why.items():
        assert reason != records[name].get("summary"), name
        assert reason.startswith(("H1 marker", "last-line marker", "frontmatter", "status")), reason


def test_the_list_twin_takes_the_pages_filters(served: Served) -> None:
    for plan_class in ("active", "archived"):
        listed = _json(served, f"/plans.json?class={plan_class}")
        assert listed["plans"] and {plan["class"] for plan in listed["plans"]} == {plan_class}
    oldest_first = _json(served, "/plans.json?sort=old")["plans"]
    assert oldest_first == list(reversed(_json(served, "/plans.json")["plans"]))
    every = _json(served, "/plans.json")["plans"]
    assert _json(served, "/plans.json?agent=claude-code")["plans"] == every  # all Claude Code's
    assert _json(served, "/plans.json?agent=cursor")["plans"] == []


def test_a_plan_twin_gives_its_row_and_its_text(
    home: tuple[Path, dict[str, str]], served: Served
) -> None:
    row = next(plan for plan in _json(served, "/plans.json")["plans"] if plan["name"] == EDITED)
    plan = _json(served, f"/plan.json?r={row['root']}&v={row['value']}")
    assert plan["plan"] == row
    assert plan["text"] == Path(row["path"]).read_text()
    assert (plan["name"], plan["where"], plan["truncated"]) == (EDITED, "live", False)
    gone = _json(served, f"/plan.json?r={row['root']}&v=no-such-plan.md", status=404)
    assert "no-such-plan.md" in gone["error"]


def test_the_search_twin_answers_as_clarity_search_json(
    home: tuple[Path, dict[str, str]], served: Served
) -> None:
    found = _json(served, "/search.json?q=cache")
    expected = cli_json(home[1], "search", "cache")
    assert [(hit["name"], hit["where"]) for hit in found["hits"]] == [
        (hit["name"], hit["where"]) for hit in expected["hits"]
    ]
    assert found["hits"] and found["query"] == "cache"
    refused = _json(served, "/search.json?q=%22", status=400)
    assert refused["hits"] == [] and refused["error"]


def test_a_twin_asked_without_the_pages_secret_is_refused(served: Served) -> None:
    for path in ("/plans.json", "/search.json?q=cache"):
        assert served.ask(path, cookie=None).status in (403, 404)
        assert served.ask(path, raw=True).status in (403, 404)
