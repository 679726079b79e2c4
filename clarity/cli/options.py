"""What the commands share: their options, settings from options, and one-line notes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from clarity.output import say
from clarity.printable import printable
from clarity.terminal import Format

if TYPE_CHECKING:
    from clarity.config import Settings

PlansDirOption = Annotated[
    Path | None, typer.Option("--plans-dir", help="Plans directory [default: see SPEC 2].")
]
ArchiveDirOption = Annotated[
    Path | None, typer.Option("--archive-dir", help="Archive [default: <plans dir>-archive].")
]
NowOption = Annotated[
    str | None, typer.Option("--now", help="Classify as of this ISO-8601 moment.")
]
StaleDaysOption = Annotated[
    float | None, typer.Option("--stale-days", help="Stale after this many days [7].")
]
StaleBytesOption = Annotated[
    int | None, typer.Option("--stale-bytes", help="Stale only under this size [2048].")
]
DormantDaysOption = Annotated[
    float | None, typer.Option("--dormant-days", help="Dormant after this many days [14].")
]
CurrentOption = Annotated[
    list[str] | None,
    typer.Option("--current", help="The current session's plan (repeatable); kept active."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]
AgentOption = Annotated[
    bool | None,
    typer.Option(
        "--agent/--no-agent",
        help="Ask Claude for archive summaries and dormant verdicts [config: agent].",
    ),
]
YesOption = Annotated[
    bool, typer.Option("--yes", "-y", help="Do not ask; needed when there is no terminal.")
]
FormatOption = Annotated[Format | None, typer.Option("--format", help="Output format.")]
SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        help="A Claude Code session id: the plans it used are current (the slash command "
        "passes its own).",
    ),
]
ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="Report only the plans of the Claude Code sessions that worked in this folder.",
    ),
]
ProtectHoursOption = Annotated[
    float | None,
    typer.Option(
        "--protect-hours",
        help="Keep the plans of Claude Code sessions active this recently [24].",
    ),
]


# The options every command that reads plans takes, named as config keys.
_SETTING_OPTIONS = (
    "plans_dir",
    "archive_dir",
    "stale_days",
    "stale_bytes",
    "dormant_days",
    "protect_hours",
    "agent",
)


def settings_from(parameters: dict[str, Any]) -> Settings:
    """Settings from a command's parameters (pass `locals()` first thing)."""
    from clarity.config import load_settings

    options = {key: parameters.get(key) for key in _SETTING_OPTIONS}
    return load_settings(options, os.environ, Path.cwd())


def current_values(current: list[str] | None) -> list[str]:
    if current:
        return current
    return [v for v in os.environ.get("CLARITY_CURRENT_PLAN", "").split(os.pathsep) if v]


def note(line: str | None) -> None:
    """A line for the user on stderr, away from the report on stdout."""
    if line:
        say([f"clarity: {one_line(line)}"], err=True)


def one_line(message: str) -> str:
    """A message as one line: a newline or ESC in a file name it quotes is shown escaped."""
    return printable(message.strip())
