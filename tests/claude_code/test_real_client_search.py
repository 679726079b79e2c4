"""What the real Claude Code 2.1.328 did with `clarity mcp` (fixtures/claude_code/mcp_search.py,
run where the binary is installed): registered with `claude mcp add`, the scripted model
called `mcp__clarity__search_plans`, the client ran clarity's server, and the result
reached the model's next request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXCHANGE = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "claude_code"
    / "2.1.328"
    / "mcp-search"
    / "exchange.json"
)


def test_the_search_result_reached_the_models_next_request() -> None:
    exchange: dict[str, Any] = json.loads(EXCHANGE.read_text(encoding="utf-8"))

    [call] = exchange["calls"]
    [result] = exchange["results"]
    assert exchange["client"] == "2.1.328" and exchange["requests"] == 2
    assert (call["name"], call["input"]) == ("mcp__clarity__search_plans", {"query": "cache"})
    assert result["tool_use_id"] == call["id"]  # the answer to that very call
    found = json.loads(result["content"])  # clarity's JSON, as the client passed it on
    assert [hit["name"] for hit in found["hits"]] == ["cache-layer.md"]
    assert found["hits"][0]["where"] == "live" and found["indexed"] == {"live": 2, "archived": 0}
