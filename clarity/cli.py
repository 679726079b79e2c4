"""The command line: parse, call the core, render. No rules live here."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from clarity.errors import EXIT_ACTION_FAILED, ClarityError
from clarity.terminal import (
    Format,
    ProgressBar,
    ask,
    choose_format,
    needs_terminal,
    print_run_report,
    print_scan_report,
)

if TYPE_CHECKING:
    from datetime import datetime

    from clarity.config import Settings
    from clarity.model import ScanReport

app = typer.Typer(
    name="clarity",
    help="Keep Claude Code's plan directory lean without ever losing a plan.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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


# The options every command that reads plans takes, named as config keys.
_SETTING_OPTIONS = (
    "plans_dir",
    "archive_dir",
    "stale_days",
    "stale_bytes",
    "dormant_days",
    "agent",
)


def _settings(parameters: dict[str, Any]) -> Settings:
    """Settings from a command's parameters (pass `locals()` first thing)."""
    from clarity.config import load_settings

    options = {key: parameters.get(key) for key in _SETTING_OPTIONS}
    return load_settings(options, os.environ, Path.cwd())


def _current_values(current: list[str] | None) -> list[str]:
    if current:
        return current
    return [v for v in os.environ.get("CLARITY_CURRENT_PLAN", "").split(os.pathsep) if v]


def _moves(report: ScanReport) -> bool:
    from clarity.model import MOVING_ACTIONS

    return any(v.action in MOVING_ACTIONS for v in report.verdicts)


def _scan_and_record(
    settings: Settings, now: datetime, current: list[str] | tuple[()]
) -> ScanReport:
    """Settle a killed run first, scan, and record the proposal for apply."""
    from clarity.proposal import build_proposal, save_proposal
    from clarity.scan import scan as run_scan
    from clarity.state import DirState

    state = DirState.for_plans_dir(settings.plans_dir)
    if settings.plans_dir.is_dir() and state.running_run() is not None:
        from clarity.runs import settle_interrupted  # the executor, only when needed

        _note(settle_interrupted(state))
    report = run_scan(settings, now, current)
    try:
        save_proposal(state, build_proposal(report))
    except (ClarityError, OSError) as error:
        message = error.message if isinstance(error, ClarityError) else str(error)
        _note(f"warning: this scan was not recorded, so apply needs --rescan: {message}")
    return report


def _note(line: str | None) -> None:
    if line:
        sys.stderr.write(f"clarity: {_one_line(line)}\n")


@app.command()
def scan(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    now: NowOption = None,
    stale_days: StaleDaysOption = None,
    stale_bytes: StaleBytesOption = None,
    dormant_days: DormantDaysOption = None,
    current: CurrentOption = None,
    agent: AgentOption = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> None:
    """Classify every plan and show what apply would do. Moves nothing."""
    settings = _settings(locals())
    from clarity.clock import parse_now

    chosen_format = choose_format(json_output, output_format)
    report = _scan_and_record(settings, parse_now(now), _current_values(current))
    if settings.agent.enabled:
        from clarity.agent.advisor import make_advisor
        from clarity.agent.review import review_dormant

        advisor = make_advisor(settings.agent, os.environ)
        report = review_dormant(report, advisor, settings.agent.plan_bytes)
    print_scan_report(report, chosen_format)
    if chosen_format is not Format.JSON and _moves(report):
        sys.stderr.write("Review the above, then run clarity apply to carry it out.\n")


@app.command("config")
def show_config(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    stale_days: StaleDaysOption = None,
    stale_bytes: StaleBytesOption = None,
    dormant_days: DormantDaysOption = None,
    json_output: JsonOption = False,
) -> None:
    """Show every effective setting and where it came from."""
    settings = _settings(locals())
    from clarity.render.config_report import print_config

    print_config(settings, as_json=json_output)


@app.command()
def demo(
    directory: Annotated[
        Path | None,
        typer.Option("--dir", help="Lay the sample out here (new or empty) [default: a temp dir]."),
    ] = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> None:
    """Lay out the shipped sample plans, with their ages, and scan them."""
    from clarity.clock import parse_now
    from clarity.demo import lay_out_sample

    chosen_format = choose_format(json_output, output_format)
    now = parse_now(None)
    plans_dir = lay_out_sample(directory, now)
    settings = _settings({"plans_dir": plans_dir})
    from clarity.scan import scan as run_scan

    print_scan_report(run_scan(settings, now), chosen_format)  # not recorded: a throwaway dir
    sys.stderr.write(
        f"\nThe sample plans are in {plans_dir}; scan them again with:\n"
        f"  clarity scan --plans-dir {plans_dir}\n"
    )


@app.command()
def apply(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    now: NowOption = None,
    stale_days: StaleDaysOption = None,
    stale_bytes: StaleBytesOption = None,
    dormant_days: DormantDaysOption = None,
    current: CurrentOption = None,
    agent: AgentOption = None,
    rescan: Annotated[
        bool, typer.Option("--rescan", help="Scan now and apply that (cron: --rescan --yes).")
    ] = False,
    yes: YesOption = False,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> int:
    """Carry out the latest scan: archive completed plans, trash stale ones."""
    settings = _settings(locals())
    chosen_format = choose_format(json_output, output_format)
    needs_terminal(yes, "apply")
    from clarity.clock import parse_now
    from clarity.render.run_report import preview_lines
    from clarity.runs import run_apply

    bar = ProgressBar("Moving plans", chosen_format is not Format.JSON)
    try:
        report = run_apply(
            settings,
            parse_now(now),
            _current_values(current),
            rescan=rescan,
            confirm=lambda preview: yes or ask(preview_lines(preview), chosen_format),
            progress=bar,
        )
    finally:
        bar.close()
    return print_run_report(report, chosen_format)


@app.command()
def undo(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    yes: YesOption = False,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> int:
    """Put back what the latest apply moved (from the archive and the trash)."""
    settings = _settings(locals())
    chosen_format = choose_format(json_output, output_format)
    needs_terminal(yes, "undo")
    from clarity.render.run_report import undo_preview_lines
    from clarity.runs import run_undo

    report = run_undo(
        settings,
        confirm=lambda plan: yes or ask(undo_preview_lines(plan), chosen_format),
    )
    return print_run_report(report, chosen_format)


def _one_line(message: str) -> str:
    return " ".join(message.split())


def main(argv: list[str] | None = None) -> int:
    """Entry point: every error a user can cause becomes one line and an exit code."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")  # an odd file name must not crash a report
    command = typer.main.get_command(app)
    try:
        result = command.main(args=argv, prog_name="clarity", standalone_mode=False)
    except ClarityError as error:
        sys.stderr.write(f"clarity: error: {_one_line(error.message)}\n")
        return error.exit_code
    except typer.TyperException as error:  # typer's parse errors: bad option, bad value
        hint = " (see clarity --help)" if error.exit_code == 2 else ""
        message = _one_line(error.format_message()).rstrip(".")
        sys.stderr.write(f"clarity: error: {message}{hint}\n")
        return error.exit_code
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("clarity: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0  # the reader went away (clarity scan | head): nothing left to say
    except Exception as error:
        if os.environ.get("CLARITY_DEBUG"):
            raise
        sys.stderr.write(
            f"clarity: internal error: {type(error).__name__}: {_one_line(str(error))}; "
            "please report it (CLARITY_DEBUG=1 shows the traceback)\n"
        )
        return EXIT_ACTION_FAILED
    return result if isinstance(result, int) else 0
