"""`clarity install-command` and `uninstall-command`: the /clarity skill and the
SessionStart hook for Claude Code (SPEC 9, issue 17)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.cli.app import app
from clarity.render.output import say

if TYPE_CHECKING:
    from clarity.claude_code.slash_command import Installed

ProjectOption = Annotated[
    bool,
    typer.Option(
        "--project",
        help="The current project's .claude/ (skills/, settings.local.json) instead of yours.",
    ),
]
ForceOption = Annotated[
    bool,
    typer.Option("--force", help="Even over your edits (kept as SKILL.md.bak, .bak.2, ...)."),
]
HookOption = Annotated[
    bool,
    typer.Option(
        "--hook",
        help="Also Claude Code hooks: one line at session start when plans are done or at "
        "risk, and the approval ledger of ExitPlanMode (uninstall: only the hooks).",
    ),
]

_SAID = {
    "installed": "installed /clarity",
    "unchanged": "/clarity is already installed, unchanged",
    "updated": "updated /clarity",
    "replaced": "replaced your /clarity",
    "removed": "removed /clarity",
    "absent": "/clarity is not installed",
}
_HOOK_SAID = {
    "installed": "added clarity's hooks to",
    "unchanged": "clarity's hooks are already in",
    "updated": "updated clarity's hooks in",
    "removed": "removed clarity's hooks from",
    "absent": "clarity's hooks are not in",
}
# What the hooks are, said once when they go in (a person sees four entries appear).
HOOKS_ARE = (
    "the session-start line (SessionStart), and the approval ledger: a plan shown or "
    "approved (ExitPlanMode's PreToolUse and PostToolUse), a session cleared (SessionEnd)"
)


def _base(project: bool) -> Path:
    from clarity.claude_code.slash_command import claude_base, project_root
    from clarity.settings.locations import claude_config_dir

    claude_dir = claude_config_dir(os.environ)
    return claude_base(claude_dir, project_root(Path.cwd(), claude_dir) if project else None)


def _settings_file(base: Path, project: bool) -> Path:
    """The user's settings.json; in a project, settings.local.json: the hook names this
    machine's Python, which is no one else's to run."""
    return base / ("settings.local.json" if project else "settings.json")


def _say_skill(installed: Installed) -> None:
    skill = installed.skill
    kept = f" (the old text is kept as {skill.backup})" if skill.backup is not None else ""
    say([f"{_SAID[skill.outcome.value]}: {skill.path}{kept}"])
    if installed.legacy is not None:
        say([f"removed the older /clarity command clarity wrote: {installed.legacy.path}"])
    if installed.legacy_kept is not None:
        say(
            [
                f"left {installed.legacy_kept} as it is (yours, or edited since clarity wrote "
                "it); Claude Code runs the /clarity skill in its place: remove it if you no "
                "longer need it"
            ]
        )


def _say_hook(outcome: str, path: Path) -> None:
    said = f"{_HOOK_SAID[outcome]} {path}"
    say([f"{said}: {HOOKS_ARE}" if outcome in ("installed", "updated") else said])


@app.command("install-command")
def install_command(
    project: ProjectOption = False, force: ForceOption = False, hook: HookOption = False
) -> None:
    """Install the /clarity skill for Claude Code (--hook: and its hooks: the session-start
    line and the approval ledger)."""
    from clarity.claude_code.hook_settings import add_hook, check_settings, hook_command
    from clarity.claude_code.slash_command import install_skill
    from clarity.executable import shell_command

    base = _base(project)
    settings_file = _settings_file(base, project)
    if hook:  # refused before anything is written: a settings file clarity cannot read
        command = hook_command(os.path.abspath(sys.executable))  # noqa: PTH100 (a venv's link)
        check_settings(settings_file)
    installed = install_skill(base, shell_command(), force=force)
    _say_skill(installed)
    if hook:
        _say_hook(add_hook(settings_file, command).outcome.value, settings_file)
    if installed.skill.outcome.value != "unchanged":
        say(["In Claude Code, type /clarity to review and tidy your plans."])


@app.command("uninstall-command")
def uninstall_command(
    project: ProjectOption = False, force: ForceOption = False, hook: HookOption = False
) -> None:
    """Remove the /clarity skill and clarity's hook (never a skill you edited, unless --force)."""
    from clarity.claude_code.hook_settings import check_settings, remove_hook
    from clarity.claude_code.slash_command import uninstall_skill

    base = _base(project)
    settings_file = _settings_file(base, project)
    check_settings(settings_file)
    if hook:
        _say_hook(remove_hook(settings_file).outcome.value, settings_file)
        return
    installed = uninstall_skill(base, force=force)
    _say_skill(installed)
    removed = remove_hook(settings_file)
    if removed.outcome.value == "removed":
        _say_hook(removed.outcome.value, settings_file)
