"""`clarity install-command` and `uninstall-command`: the /clarity slash command (SPEC 9)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from clarity.cli.app import app
from clarity.output import say

ProjectOption = Annotated[
    bool,
    typer.Option("--project", help="The current project's .claude/commands/ instead of your own."),
]
ForceOption = Annotated[
    bool,
    typer.Option("--force", help="Even over your edits (kept as clarity.md.bak, .bak.2, ...)."),
]

_SAID = {
    "installed": "installed /clarity",
    "unchanged": "/clarity is already installed, unchanged",
    "updated": "updated /clarity",
    "replaced": "replaced your /clarity",
    "removed": "removed /clarity",
    "absent": "/clarity is not installed",
}


def _path(project: bool) -> Path:
    from clarity.locations import claude_config_dir
    from clarity.slash_command import command_path, project_root

    claude_dir = claude_config_dir(os.environ)
    return command_path(claude_dir, project_root(Path.cwd(), claude_dir) if project else None)


def _say(outcome: str, path: Path, backup: Path | None) -> None:
    kept = f" (the old text is kept as {backup})" if backup is not None else ""
    say([f"{_SAID[outcome]}: {path}{kept}"])


@app.command("install-command")
def install_command(project: ProjectOption = False, force: ForceOption = False) -> None:
    """Install the /clarity slash command for Claude Code."""
    from clarity.executable import shell_command
    from clarity.slash_command import install_command as install

    change = install(_path(project), shell_command(), force=force)
    _say(change.outcome.value, change.path, change.backup)
    if change.outcome.value != "unchanged":
        say(["In Claude Code, type /clarity to review and tidy your plans."])


@app.command("uninstall-command")
def uninstall_command(project: ProjectOption = False, force: ForceOption = False) -> None:
    """Remove the /clarity slash command (never one you edited, unless --force)."""
    from clarity.slash_command import uninstall_command as uninstall

    change = uninstall(_path(project), force=force)
    _say(change.outcome.value, change.path, change.backup)
