"""The `/clarity` slash command for Claude Code (SPEC 9).

Claude Code runs the `!` line when the command is invoked, after putting the
session id in place of `${CLAUDE_SESSION_ID}`, so the report Claude reads
already keeps that session's plan active. `allowed-tools` pre-approves the
clarity commands and nothing else; apply runs only after the user agrees.
"""

from __future__ import annotations

from pathlib import Path

from clarity.managed import Change, CommentStyle, install, remove

COMMAND_FILE = "clarity.md"
SUBCOMMANDS = ("scan", "apply", "archive", "undo")  # what the command may run unasked

_TEMPLATE = """\
---
description: Review and tidy Claude Code's plans with clarity (archive finished, trash stale)
argument-hint: "[clarity scan options, e.g. --dormant-days 30]"
allowed-tools: {allowed}
---

clarity has reviewed this machine's Claude Code plans. It has moved nothing yet.

!`{clarity} scan --format markdown --session=${{CLAUDE_SESSION_ID}} $ARGUMENTS`

Work through the report above with the user, in this order:

1. Sum it up in a few lines: how many plans `clarity apply` would archive, send to the
   trash and keep, and anything under Skipped or Warnings.
2. Comment on each dormant plan from its title, age and reason (and the agent's verdict
   if the report has one): does it look finished, abandoned or still live? Name any that
   Claude Code will delete within a week; `clarity archive NAME` keeps one safe.
3. Ask the user whether to carry out the proposal. Run nothing else until they answer.
4. Only if the user agrees, run `{clarity} apply --yes $ARGUMENTS` and, for dormant plans
   they want kept, `{clarity} archive NAME...`. Show the user what clarity printed.
5. If they decline, say that nothing was moved.

Never move, delete or edit plan files yourself: clarity does it, journals it, and
`{clarity} undo` puts back its latest run.
"""


def command_text(clarity: str) -> str:
    """The command file's text for this clarity (a shell command, e.g. `clarity`)."""
    allowed = ", ".join(f"Bash({clarity} {sub}:*)" for sub in SUBCOMMANDS)
    return _TEMPLATE.format(clarity=clarity, allowed=allowed)


def project_root(cwd: Path, claude_dir: Path) -> Path:
    """The project clarity runs in: the nearest ancestor with .claude/ or .git, else cwd."""
    home = Path.home()
    for folder in (cwd, *cwd.parents):
        if folder == home:
            break  # ~/.claude is the user's, not a project's
        if (folder / ".git").exists() or (
            (folder / ".claude").is_dir() and (folder / ".claude").resolve() != claude_dir.resolve()
        ):
            return folder
    return cwd


def command_path(claude_dir: Path, project: Path | None) -> Path:
    """The user's command (<claude config dir>/commands) or a project's (.claude/commands)."""
    base = project / ".claude" if project is not None else claude_dir
    return base / "commands" / COMMAND_FILE


def install_command(path: Path, clarity: str, *, force: bool = False) -> Change:
    return install(path, command_text(clarity), CommentStyle.XML, force=force)


def uninstall_command(path: Path, *, force: bool = False) -> Change:
    return remove(path, force=force)
