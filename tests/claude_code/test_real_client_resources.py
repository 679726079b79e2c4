"""What the real Claude Code 2.1.328 did with clarity's plans as MCP resources and its
structured answers (fixtures/claude_code/mcp_resources.py, run where the binary is
installed): in the terminal UI `@clarity:plan://cache-layer` attached the plan's text to
the model's request; list_plans' structuredContent, nextCursor included, reached the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCHANGE = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "claude_code"
    / "2.1.328"
    / "mcp-resources"
    / "exchange.json"
)


def _exchange() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXCHANGE.read_text(encoding="utf-8"))
    assert document["client"] == "2.1.328"
    return document


def test_an_at_mention_of_a_plan_attached_its_text_in_the_terminal_ui() -> None:
    tui = _exchange()["tui"]
    assert tui["suggested"] == [
        {"mention": "clarity:plan://cache-layer", "label": "cache-layer.md"}
    ]
    assert tui["plan_text"]["present"] and tui["plan_text"]["whole"]
    [attached] = tui["attachments"]
    assert (attached["type"], attached["server"], attached["uri"]) == (
        "mcp_resource",
        "clarity",
        "plan://cache-layer",
    )
    assert attached["contents"][0]["text_is_plan"]


def test_headless_mode_sends_a_resource_mention_as_plain_text() -> None:
    # what a person should know: `claude -p` expands files, not MCP resources (2.1.328)
    headless = _exchange()["headless"]
    assert headless["file_mention_control"]["file_text_present"]
    assert not headless["plan_text"]["present"]


def test_list_plans_structured_answer_and_its_cursor_reached_the_model() -> None:
    exchange = _exchange()
    [call], [result] = exchange["calls"], exchange["results"]
    assert (call["name"], call["input"]) == ("mcp__clarity__list_plans", {"limit": 1})
    assert result["tool_use_id"] == call["id"]
    page = json.loads(result["content"])
    assert page["total"] == 2 and len(page["plans"]) == 1
    assert page["nextCursor"] == exchange["passed_on"]["clarity_nextCursor"]
    assert exchange["passed_on"]["parses_to_clarity_structuredContent"]
