"""What the real Claude Code 2.1.328 did with the clarity plugin (fixtures/claude_code/
plugin_walk.py, run where the binary and tmux are installed): validated, installed from this
repository as a marketplace, and used in a session with clarity on PATH and in one with
neither clarity nor uvx. Each fact is checked against the code as it is now, so a change to
the manifests, the skill, the hook's line, the MCP tools or the launcher fails here until
the walk is run again."""

from __future__ import annotations

import ast
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from clarity.claude_code.hook import line

ROOT = Path(__file__).resolve().parents[2]
WALK = ROOT / "fixtures" / "claude_code" / "2.1.328" / "plugin" / "walk.json"
MARKET = ROOT / ".claude-plugin" / "marketplace.json"
DAY = 86400.0
CLEANUP_DAYS = 30  # Claude Code's default cleanupPeriodDays


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


@pytest.fixture(scope="module")
def walk() -> dict[str, Any]:
    return load(WALK)


def manifests() -> tuple[dict[str, Any], dict[str, Any], Path]:
    """The marketplace, its one plugin's manifest, and the plugin's folder."""
    market = load(MARKET)
    [entry] = market["plugins"]
    folder = ROOT / entry["source"]
    return market, load(folder / ".claude-plugin" / "plugin.json"), folder


def skills() -> list[str]:
    _, plugin, folder = manifests()
    names = sorted(p.parent.name for p in (folder / "skills").glob("*/SKILL.md"))
    return [f"{plugin['name']}:{name}" for name in names]


def skill_intro(folder: Path) -> list[str]:
    """SKILL.md's body (after the front matter) up to the `!` line that runs the scan."""
    text = (folder / "skills" / "clarity" / "SKILL.md").read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1].lstrip("\n")
    before, bang, _ = body.partition("\n!`")
    assert bang, "SKILL.md has no `!` line"
    return (before + "\n").splitlines()


def mcp_tools() -> set[str]:
    """The tools clarity's MCP server defines: the functions under `@server.tool(...)` in
    mcp_server.py (read from the source: the SDK is an optional extra)."""
    source = (ROOT / "clarity" / "claude_code" / "mcp_server.py").read_text(encoding="utf-8")
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(call, ast.Attribute) and call.attr == "tool":
                    names.add(node.name)
    return names


def not_installed_line(folder: Path) -> str:
    """The one line the plugin's launcher prints when it finds neither clarity nor uvx."""
    launcher = (folder / "bin" / "clarity").read_text(encoding="utf-8")
    said = re.search(r'^echo "(clarity: [^"]*)" >&2$', launcher, re.M)
    assert said, "the launcher no longer says what to install"
    return said.group(1)


def test_the_walk_was_recorded_with_the_version_it_is_filed_under(walk) -> None:
    assert walk["version"] == WALK.parents[1].name


def test_both_manifests_validated_and_the_plugin_installed_under_their_names(walk) -> None:
    market, plugin, _ = manifests()
    key = f"{plugin['name']}@{market['name']}"

    assert walk["validate"] == {"marketplace": True, "plugin": True}
    assert walk["install"]["marketplace_add"] and walk["install"]["plugin_install"]
    assert walk["install"]["installed_as"] == key
    assert walk["install"]["enabled_plugins"] == {key: True}
    assert walk["install"]["known_marketplaces"] == [market["name"]]
    for skill in skills():
        assert f"skills: {skill}" in walk["plugin_provides"]


def test_the_session_start_line_is_the_hooks_and_reached_the_model(walk) -> None:
    said = walk["installed"]["hook_line"]
    assert said.startswith("clarity: ") and said.endswith(": /clarity to review them")
    # The walk's HOME: one completed plan, and one dormant plan Claude Code deletes within
    # the hook's horizon (half-day ages, so the whole days cannot move during the walk).
    now = time.time()
    left = CLEANUP_DAYS - walk["plans"]["cache-layer.md"]
    assert said == line(1, [now + left * DAY], now, kept=1)  # and its text kept (issue 32)
    assert walk["installed"]["hook_context"] == said


def test_the_skill_is_in_the_menu_and_its_report_reached_the_model(walk) -> None:
    _, _, folder = manifests()
    seen = walk["installed"]
    [skill] = skills()
    intro = skill_intro(folder)
    report = seen["skill_request_report"]

    assert skill in seen["skill_names_in_menu"]
    assert seen["skill_reached_model"] and seen["skill_command"] == f"/{skill}"
    assert seen["skill_base_dir"] == f"<repo>/{folder.relative_to(ROOT)}/skills/clarity"
    assert not seen["permission_prompt"]  # the skill's allowed-tools cover its `!` line
    assert report[: len(intro)] == intro
    [heading] = [x for x in report if x.startswith("## clarity: Plans in ")]
    assert heading.startswith("## clarity: Plans in <home>/.claude/plans, as of ")
    assert not any("!`" in x for x in report)  # the command ran; its output is in its place


def test_the_mcp_server_connected_with_exactly_clarity_s_tools(walk) -> None:
    _, plugin, folder = manifests()
    [server] = load(folder / ".mcp.json")["mcpServers"]
    seen = walk["installed"]

    assert seen["mcp_server"] == f"plugin:{plugin['name']}:{server}"
    assert seen["mcp_connected"] and seen["mcp_status"] == "connected"
    assert len(seen["mcp_tools"]) == len(set(seen["mcp_tools"]))
    assert set(seen["mcp_tools"]) == mcp_tools() and "search_plans" in mcp_tools()


def test_without_clarity_or_uvx_the_plugin_says_one_line_and_nothing_else(walk) -> None:
    _, _, folder = manifests()
    bare = walk["bare"]

    assert bare["hook_said"] is None  # the hook never fails a session, nor speaks
    assert bare["skill_failed"] and not bare["skill_reached_model"]
    assert bare["skill_error_line"] == not_installed_line(folder)
    assert bare["mcp_server"] == walk["installed"]["mcp_server"]
    assert not bare["mcp_connected"] and bare["mcp_status"] == "failed"
