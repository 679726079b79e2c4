"""The Claude Code plugin (SPEC 9.2): this repository is a marketplace of one plugin that
gives the /clarity skill, the SessionStart line and the MCP server, running the clarity on
PATH, else the released one through uvx, else saying in one line what to install."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clarity import __version__
from clarity.claude_code.slash_command import skill_text
from tests.builders.files import Plan, make_files

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "clarity" / "claude_code" / "plugin"
VERSION = __version__  # the one version source (pyproject reads it: tests/test_release.py)
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
DONE = "# Shipped COMPLETED\n\n## Context\n\nIt shipped.\n"


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_the_repository_is_a_marketplace_of_the_clarity_plugin() -> None:
    market = load(ROOT / ".claude-plugin" / "marketplace.json")
    [entry] = market["plugins"]
    plugin = load(ROOT / entry["source"] / ".claude-plugin" / "plugin.json")

    assert KEBAB.fullmatch(market["name"]) and market["owner"]["name"]
    assert entry["name"] == plugin["name"] == "clarity"
    assert (ROOT / entry["source"]).resolve() == PLUGIN
    assert plugin["version"] == VERSION


def test_the_plugin_gives_the_skill_the_hook_and_the_mcp_server() -> None:
    assert (PLUGIN / "skills" / "clarity" / "SKILL.md").read_text() == skill_text("clarity")
    [entry] = load(PLUGIN / "hooks" / "hooks.json")["hooks"]["SessionStart"]
    [hook] = entry["hooks"]
    assert hook["type"] == "command"
    assert hook["command"] == '"${CLAUDE_PLUGIN_ROOT}/bin/clarity-session-start" --plugin'
    server = load(PLUGIN / ".mcp.json")["mcpServers"]["clarity"]
    assert server == {"command": "${CLAUDE_PLUGIN_ROOT}/bin/clarity", "args": ["mcp"]}
    for launcher in ("clarity", "clarity-session-start"):
        path = PLUGIN / "bin" / launcher
        assert path.stat().st_mode & stat.S_IXUSR
        assert f"version={VERSION}\n" in path.read_text()  # the release uvx fetches


def _tool(folder: Path, name: str, says: str) -> None:
    """A stand-in program that prints its name and arguments."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f'#!/bin/sh\necho "{says} $*"\n')
    path.chmod(0o755)


def _launch(
    name: str, *args: str, path: list[Path], **env: str
) -> subprocess.CompletedProcess[str]:
    search = os.pathsep.join([str(PLUGIN / "bin"), *map(str, path), "/usr/bin", "/bin"])
    return subprocess.run(
        [str(PLUGIN / "bin" / name), *args],
        env={**os.environ, **env, "PATH": search},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_launcher_runs_the_clarity_on_path_else_uvx_else_says_what_to_install(
    tmp_path: Path,
) -> None:
    installed, uv = tmp_path / "installed", tmp_path / "uv"
    _tool(installed, "clarity", "installed clarity")
    _tool(uv, "uvx", "uvx")

    first = _launch("clarity", "scan", "--print-only", path=[installed, uv])
    fallback = _launch("clarity", "scan", "--print-only", path=[uv])
    server = _launch("clarity", "mcp", path=[uv])
    neither = _launch("clarity", "scan", path=[])

    assert first.stdout == "installed clarity scan --print-only\n"  # never itself
    assert fallback.stdout == f"uvx --from clarity-plans=={VERSION} clarity scan --print-only\n"
    assert server.stdout == f"uvx --from clarity-plans[mcp]=={VERSION} clarity mcp\n"
    assert neither.returncode == 2 and neither.stdout == ""
    assert neither.stderr.splitlines() == [
        "clarity: not installed: from a checkout of clarity, uv tool install . (or pipx "
        "install .); once it is released, uv tool install clarity-plans"
    ]


def test_the_hook_runs_in_clarity_s_own_python_and_is_silent_without_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_files(
        home / ".claude" / "plans", {f"d{i}.md": Plan(DONE, 3) for i in range(3)}, datetime.now(UTC)
    )
    event = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "SessionStart"})
    venv_bin = Path(shutil.which("clarity") or Path(sys.executable).with_name("clarity")).parent
    env = {"HOME": str(home), "XDG_STATE_HOME": str(home / "state"), "CLAUDE_CONFIG_DIR": ""}

    def hook(path: list[Path]) -> subprocess.CompletedProcess[str]:
        search = os.pathsep.join([str(PLUGIN / "bin"), *map(str, path), "/usr/bin", "/bin"])
        return subprocess.run(
            [str(PLUGIN / "bin" / "clarity-session-start"), "--plugin"],
            env={
                **{k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"},
                **{k: v for k, v in env.items() if v},
                "PATH": search,
            },
            input=event,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    said = hook([venv_bin])
    quiet = hook([])

    assert said.returncode == 0, said.stderr
    assert json.loads(said.stdout)["systemMessage"] == (
        "clarity: 3 plans done: /clarity to review them"
    )
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_the_launchers_pass_over_what_is_no_clarity_and_never_run_themselves(
    tmp_path: Path,
) -> None:
    # Issue 36, H6: a folder named clarity earlier on PATH gave exit 126; a FIFO hung the
    # session-start launcher; the plugin's bin on PATH twice (once through a link) made the
    # launcher exec itself for ever.
    folder, fifo, installed = tmp_path / "folder", tmp_path / "fifo", tmp_path / "installed"
    (folder / "clarity").mkdir(parents=True)
    fifo.mkdir()
    os.mkfifo(fifo / "clarity")
    (fifo / "clarity").chmod(0o755)
    _tool(installed, "clarity", "installed clarity")
    linked = tmp_path / "linked-bin"
    linked.symlink_to(PLUGIN / "bin")

    ran = _launch("clarity", "scan", path=[linked, folder, fifo, installed])
    assert (ran.returncode, ran.stdout) == (0, "installed clarity scan\n")
    alone = _launch("clarity", "scan", path=[linked, folder, fifo])
    assert alone.returncode == 2 and "not installed" in alone.stderr  # not itself, for ever
    hook = _launch("clarity-session-start", "--plugin", path=[linked, folder, fifo])
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
