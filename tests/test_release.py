"""Issue 46, item 2: one version, said alike everywhere a release names it; the MCP
registry's server.json as the registry reads it; a changelog in Keep a Changelog's form;
and the README's `mcp-name:` line that proves the PyPI package is the server's."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from clarity import __version__

ROOT = Path(__file__).parents[1]


def test_one_version_everywhere() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" in project["dynamic"] and "version" not in project
    plugin = json.loads(
        (ROOT / "clarity/claude_code/plugin/.claude-plugin/plugin.json").read_text()
    )
    server = json.loads((ROOT / "server.json").read_text())
    launcher = (ROOT / "clarity/claude_code/plugin/bin/clarity").read_text()
    assert plugin["version"] == server["version"] == __version__
    assert [package["version"] for package in server["packages"]] == [__version__]
    assert f"version={__version__}\n" in launcher


def test_server_json_is_what_the_registry_takes() -> None:
    server = json.loads((ROOT / "server.json").read_text())
    assert server["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/clarity", server["name"])
    assert len(server["description"]) <= 100
    [package] = server["packages"]
    assert package["registryType"] == "pypi" and package["identifier"] == "clarity-plans"
    assert package["transport"] == {"type": "stdio"}
    assert [a["value"] for a in package["packageArguments"]] == ["mcp"]  # uvx clarity-plans mcp
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["clarity-plans"] == project["scripts"]["clarity"]
    readme = (ROOT / "README.md").read_text()
    assert f"mcp-name: {server['name']}" in readme


def test_the_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "[Keep a Changelog]" in text
    assert "## [Unreleased]" in text
    assert f"## [{__version__}] - " in text
    assert "### Added" in text
