"""What the commands share: their options, settings from options, and one-line notes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.printable import printable
from clarity.render.output import say
from clarity.render.terminal import Format

if TYPE_CHECKING:
    from clarity.model import ScanRequest

# Help is plain text (cli/app.py): a [default: ...] here is shown as written. These
# options default to None so that the environment and the config file can set them
# (SPEC 7); the help names the value that applies when nothing does.
# Paths as given (str): typer would turn "" into Path("."), the current folder, and an
# unset shell variable would then act on whatever folder the command ran in.
PlansDirOption = Annotated[
    str | None,
    typer.Option(
        "--plans-dir",
        metavar="DIR",
        help="The plans directory [default: CLARITY_PLANS_DIR, the config file, Claude "
        "Code's plansDirectory setting, else ~/.claude/plans].",
    ),
]
ArchiveDirOption = Annotated[
    str | None,
    typer.Option(
        "--archive-dir",
        metavar="DIR",
        help="Where archived plans go [default: <plans dir>-archive; for a project's "
        "plansDirectory, projects/<name>-<hash> in ~/.claude/plans-archive].",
    ),
]
NowOption = Annotated[
    str | None,
    typer.Option("--now", metavar="ISO-8601", help="Classify as of this moment [default: now]."),
]
StaleDaysOption = Annotated[
    float | None,
    typer.Option("--stale-days", metavar="DAYS", help="Stale after this many days [default: 7]."),
]
StaleBytesOption = Annotated[
    int | None,
    typer.Option(
        "--stale-bytes", metavar="BYTES", help="Stale only under this size [default: 2048]."
    ),
]
DormantDaysOption = Annotated[
    float | None,
    typer.Option(
        "--dormant-days", metavar="DAYS", help="Dormant after this many days [default: 14]."
    ),
]
CurrentOption = Annotated[
    list[str] | None,
    typer.Option(
        "--current",
        metavar="PLAN",
        help="The current session's plan (repeatable); kept active.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]
JsonOnlyOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
AgentOption = Annotated[
    bool | None,
    typer.Option(
        "--agent/--no-agent",
        help="Ask Claude for archive summaries and dormant verdicts [default: off, or "
        "agent in the config file].",
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
        metavar="ID",
        help="A Claude Code session id: the plans it used are current (the slash command "
        "passes its own).",
    ),
]
ProjectOption = Annotated[
    str | None,
    typer.Option(
        "--project",
        metavar="DIR",
        help="Report only the plans of the Claude Code sessions that worked in this folder.",
    ),
]
ProtectHoursOption = Annotated[
    float | None,
    typer.Option(
        "--protect-hours",
        metavar="HOURS",
        help="Keep the plans of Claude Code sessions active this recently [default: 24].",
    ),
]

FromOption = Annotated[
    str | None,
    typer.Option(
        "--from",
        metavar="AGENT",
        help="Only this coding agent's plans folders (clarity roots names each folder's "
        "agent: claude-code, cursor, gemini-cli, codex, qwen-code, opencode, windsurf); "
        "every one of them, as --all does for every agent's.",
    ),
]
AllRootsOption = Annotated[
    bool,
    typer.Option(
        "--all",
        help="Every plans folder on the machine (clarity roots lists them), one after "
        "another, each with its own archive.",
    ),
]
IncludeTrackedOption = Annotated[
    bool,
    typer.Option(
        "--include-tracked",
        help="Archive and trash plans git tracks too; without it they are reported and "
        "left in place (git keeps their history).",
    ),
]

# The options of one command each, declared here beside the shared ones, so that a
# command's signature reads as its list of options.
OutputOption = Annotated[
    str | None,
    typer.Option(
        "--output", metavar="FILE", help="Write the report to this file instead (whole, at once)."
    ),
]
FullOption = Annotated[
    bool,
    typer.Option(
        "--full",
        help="List every plan in the table; without it, long lists of plans apply handles "
        "alone (completed, stale, active) are folded after their newest.",
    ),
]
RecordOption = Annotated[
    bool,
    typer.Option(
        "--record/--no-record",
        help="Record this scan for apply; --no-record for a report nobody reviews "
        "(the schedule's), which leaves the reviewed scan in place.",
    ),
]
PrintOnlyOption = Annotated[
    bool,
    typer.Option(
        "--print-only",
        help="Print the report and write no file but clarity's own state: --output is "
        "refused. The form the /clarity skill lets Claude run unasked.",
    ),
]
RescanOption = Annotated[
    bool, typer.Option("--rescan", help="Scan now and apply that (cron: --rescan --yes).")
]
ProposalOption = Annotated[
    str | None,
    typer.Option(
        "--proposal",
        metavar="ID",
        help="Apply only if the latest scan is this one (its id is in the scan's report).",
    ),
]
TrustPlansDirOption = Annotated[
    bool,
    typer.Option(
        "--trust-plans-dir",
        help="Apply in a folder that looks like a project (it holds .git, or a README "
        "and a build file), which apply otherwise refuses: an empty or mistaken "
        "--plans-dir must not send a project's files to the trash.",
    ),
]


def given_path(value: str, option: str) -> Path:
    """A path option's value as a path: never "" (an unset shell variable), which Path
    would take for the current folder."""
    from clarity.errors import ClarityError
    from clarity.settings.locations import expand_home

    if not value.strip():
        raise ClarityError(f"{option}: is empty (an unset shell variable?); give a path")
    return expand_home(value)


def scan_request(
    now: str | None,
    current: list[str] | None,
    session: str | None,
    project: Path | None = None,
) -> ScanRequest:
    """What a command asks its scan for, from its options: built once, carried as one value."""
    from clarity.cli.clock import parse_now
    from clarity.model import ScanRequest

    return ScanRequest(parse_now(now), tuple(current_values(current)), session, project)


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
