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
    from clarity.claude_code.hook import plugin_enabled
    from clarity.claude_code.hook_settings import add_hook, check_settings, hook_command
    from clarity.claude_code.slash_command import install_skill
    from clarity.errors import ClarityError
    from clarity.executable import shell_command

    if plugin_enabled(os.environ) and not force:  # it gives both: a second would double them
        raise ClarityError(
            "the clarity plugin is enabled in Claude Code: it brings the /clarity skill and "
            "the hooks already, so install-command would add them twice; --force adds them "
            "anyway (or disable the plugin first: /plugin)"
        )
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


@app.command(
    "uninstall",
    epilog=("\b\nExamples:\n  clarity uninstall"),
)
def uninstall(force: ForceOption = False) -> None:
    """Take out everything clarity installed (the /clarity skill and its hooks, yours and
    this project's, and the weekly run), and say which of its folders remain."""
    from clarity.claude_code.hook_settings import check_settings, remove_hook
    from clarity.claude_code.slash_command import project_root, uninstall_skill
    from clarity.schedule.choose import every_scheduler
    from clarity.settings.locations import claude_config_dir

    places = [(_base(False), False)]
    if project_root(Path.cwd(), claude_config_dir(os.environ)) is not None:
        places.append((_base(True), True))
    for base, project in places:
        settings_file = _settings_file(base, project)
        check_settings(settings_file)
        installed = uninstall_skill(base, force=force)
        if installed.skill.outcome.value != "absent" or installed.legacy is not None:
            _say_skill(installed)
        if installed.legacy_kept is not None:
            _say_skill(installed)
        if remove_hook(settings_file).outcome.value == "removed":
            _say_hook("removed", settings_file)
    removed = [s.name for s in every_scheduler() if s.remove().value == "removed"]
    if removed:
        say([f"removed the weekly run from {', '.join(removed)}"])
    _say_left_in_place()


def _say_left_in_place() -> None:
    """clarity's own folders, kept: the archive and the versions are the record of every
    plan clarity moved or kept (a person removes them, knowing so)."""
    from clarity.hints import shell_quoted
    from clarity.settings.config import load_settings
    from clarity.settings.locations import config_file, state_dir
    from clarity.workflows.roots import archives_on_this_machine

    settings = load_settings({}, os.environ, Path.cwd())
    archives = archives_on_this_machine(settings)
    folders = [path for path in (*archives, state_dir()) if path.exists()]
    config = config_file()
    lines = ["Left in place, each to remove yourself once you no longer need it:"]
    for folder in folders:
        lines.append(f"  {folder}  (rm -r {shell_quoted(str(folder))})")
    if config.exists():
        lines.append(f"  {config}  (rm {shell_quoted(str(config))})")
    if len(lines) > 1:
        say(lines)
    say(
        [
            f"Then remove clarity itself: {_how_to_remove_clarity()}; in Claude Code, /plugin "
            "uninstall clarity@clarity if you added the plugin; and the line clarity "
            "--install-completion added to your shell's startup file, if you ran it"
        ]
    )


def _how_to_remove_clarity() -> str:
    """The command that takes out this clarity, as it was installed: by uv tool, pipx, or
    pip into a virtual environment (then that environment goes, or pip uninstalls it)."""
    parts = Path(sys.prefix).parts
    if "uv" in parts and "tools" in parts:
        return "uv tool uninstall clarity-plans"
    if "pipx" in parts or any(part.startswith(".pipx") for part in parts):
        return "pipx uninstall clarity-plans"
    if sys.prefix != sys.base_prefix:  # a virtual environment of the person's
        from clarity.hints import shell_quoted

        pip = shell_quoted(str(Path(sys.prefix) / "bin" / "pip"))
        return f"{pip} uninstall clarity-plans (or remove {shell_quoted(sys.prefix)})"
    return "pip uninstall clarity-plans"
