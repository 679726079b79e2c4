"""Issue 44, part 1: plan sources. Each coding agent is one module behind one Protocol,
listed in one registry; the roots name each folder's agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clarity.sources import source_named
from clarity.sources.registry import SOURCES
from tests.builders.files import Plan, make_files


def test_each_source_has_its_own_name_and_is_found_by_it() -> None:
    names = [source.name for source in SOURCES]
    assert len(set(names)) == len(names) and "claude-code" in names
    for source in SOURCES:
        assert source_named(source.name) is source
        assert source.label and isinstance(source.may_move, bool)
    with pytest.raises(KeyError):
        source_named("no-such-agent")


def test_roots_names_the_agent_of_each_folder(isolated_home: Path, cli) -> None:
    make_files(isolated_home / ".claude" / "plans", {"misty-sleeping-cherny.md": Plan()})
    roots = json.loads(cli("roots", "--json").stdout)["roots"]
    found = {root["plans_dir"]: root["agent"] for root in roots}
    assert found == {str(isolated_home / ".claude" / "plans"): "claude-code"}


def test_claude_codes_sub_plans_are_its_agent_named_ones() -> None:
    claude = source_named("claude-code")
    names = {"calm.md", "calm-agent-a1.md", "calm-agent-a1-agent-b2.md", "other-agent-x.md"}
    assert claude.sub_plans(names) == {
        "calm-agent-a1.md": "calm.md",
        "calm-agent-a1-agent-b2.md": "calm.md",
    }
    assert claude.is_plan("calm.md") and not claude.is_plan(".calm.md")
