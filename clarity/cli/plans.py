"""The commands about plans: scan, apply, undo, archive, config, demo."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.cli.app import app
from clarity.cli.options import (
    AgentOption,
    ArchiveDirOption,
    CurrentOption,
    DormantDaysOption,
    FormatOption,
    JsonOption,
    NowOption,
    PlansDirOption,
    ProjectOption,
    ProtectHoursOption,
    SessionOption,
    StaleBytesOption,
    StaleDaysOption,
    YesOption,
    current_values,
    note,
    settings_from,
)
from clarity.errors import ClarityError
from clarity.output import say
from clarity.terminal import (
    Format,
    ProgressBar,
    ask,
    choose_format,
    needs_terminal,
    print_run_report,
    print_scan_report,
    save_scan_report,
)

if TYPE_CHECKING:
    from datetime import datetime

    from clarity.config import Settings
    from clarity.model import ScanReport


def _moves(report: ScanReport) -> bool:
    from clarity.model import MOVING_ACTIONS

    return any(v.action in MOVING_ACTIONS for v in report.verdicts)


def _scan_and_record(
    settings: Settings,
    now: datetime,
    current: list[str],
    session: str | None,
    progress: ProgressBar | None = None,
    project: Path | None = None,
    record: bool = True,
) -> ScanReport:
    """Settle a killed run first, scan (the agent reviewing dormant plans when it is on), and
    record the proposal for apply: what the person reviews is what apply carries out."""
    from clarity.proposal import save_proposal
    from clarity.scan import scan_and_propose
    from clarity.state import DirState

    state = DirState.for_plans_dir(settings.plans_dir)
    if settings.plans_dir.is_dir() and state.running_run() is not None:
        from clarity.runs import settle_interrupted  # the executor, only when needed

        for line in settle_interrupted(state):
            note(line)
    review = None
    if settings.agent.enabled:
        from clarity.agent.advisor import make_advisor
        from clarity.agent.review import dormant_reviewer

        advisor = make_advisor(settings.agent, os.environ)
        review = dormant_reviewer(advisor, settings.agent.plan_bytes)
    report, proposal = scan_and_propose(
        settings, now, current, session, progress, state, review, project
    )
    if not record:
        return report  # a report nobody reviews (the schedule's) keeps the reviewed one
    try:
        save_proposal(state, proposal)
    except (ClarityError, OSError) as error:
        message = error.message if isinstance(error, ClarityError) else str(error)
        note(f"warning: this scan was not recorded, so apply needs --rescan: {message}")
        return report
    return report._replace(proposal=proposal.id)


@app.command()
def scan(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    now: NowOption = None,
    stale_days: StaleDaysOption = None,
    stale_bytes: StaleBytesOption = None,
    dormant_days: DormantDaysOption = None,
    current: CurrentOption = None,
    session: SessionOption = None,
    protect_hours: ProtectHoursOption = None,
    project: ProjectOption = None,
    agent: AgentOption = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="Write the report to this file instead (whole, at once)."),
    ] = None,
    record: Annotated[
        bool,
        typer.Option(
            "--record/--no-record",
            help="Record this scan for apply; --no-record for a report nobody reviews "
            "(the schedule's), which leaves the reviewed scan in place.",
        ),
    ] = True,
) -> None:
    """Classify every plan and show what apply would do. Moves nothing."""
    settings = settings_from(locals())
    from clarity.clock import parse_now

    chosen_format = choose_format(json_output, output_format)
    bar = ProgressBar(chosen_format is not Format.JSON)
    from clarity.locations import expand_home

    where = None if project is None else expand_home(project).absolute()
    try:
        report = _scan_and_record(
            settings, parse_now(now), current_values(current), session, bar, where, record
        )
    finally:
        bar.close()
    if output is not None:
        save_scan_report(report, chosen_format, expand_home(output))
        note(f"report written to {output}")
        return
    print_scan_report(report, chosen_format)
    if chosen_format is not Format.JSON and _moves(report) and report.proposal is not None:
        hint = f"Review the above, then run clarity apply --proposal {report.proposal}"
        say([f"{hint} to carry out exactly this scan."], err=True)


@app.command("config")
def show_config(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    stale_days: StaleDaysOption = None,
    stale_bytes: StaleBytesOption = None,
    dormant_days: DormantDaysOption = None,
    protect_hours: ProtectHoursOption = None,
    json_output: JsonOption = False,
) -> None:
    """Show every effective setting and where it came from."""
    settings = settings_from(locals())
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
    settings = settings_from({"plans_dir": plans_dir})
    from clarity.scan import scan as run_scan

    print_scan_report(run_scan(settings, now), chosen_format)  # not recorded: a throwaway dir
    say(
        [
            "",
            f"The sample plans are in {plans_dir}; scan them again with:",
            f"  clarity scan --plans-dir {plans_dir}",
        ],
        err=True,
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
    session: SessionOption = None,
    protect_hours: ProtectHoursOption = None,
    agent: AgentOption = None,
    rescan: Annotated[
        bool, typer.Option("--rescan", help="Scan now and apply that (cron: --rescan --yes).")
    ] = False,
    yes: YesOption = False,
    proposal: Annotated[
        str | None,
        typer.Option(
            "--proposal",
            metavar="ID",
            help="Apply only if the latest scan is this one (its id is in the scan's report).",
        ),
    ] = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> int:
    """Carry out the latest scan: archive completed plans, trash stale ones."""
    settings = settings_from(locals())
    chosen_format = choose_format(json_output, output_format)
    from clarity.clock import parse_now
    from clarity.render.run_report import preview_lines
    from clarity.runs import ApplyPreview, run_apply

    def confirm(preview: ApplyPreview) -> bool:
        if yes:
            return True
        needs_terminal(yes, "apply")  # asked only once there is something to apply
        with bar.paused():  # the bar times the moves, not the answer
            return ask(preview_lines(preview), chosen_format)

    bar = ProgressBar(chosen_format is not Format.JSON)
    try:
        report = run_apply(
            settings,
            parse_now(now),
            current_values(current),
            rescan=rescan,
            session=session,
            confirm=confirm,
            progress=bar,
            proposal_id=proposal,
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
    settings = settings_from(locals())
    chosen_format = choose_format(json_output, output_format)
    from clarity.render.run_report import undo_preview_lines
    from clarity.runs import run_undo

    if TYPE_CHECKING:
        from clarity.executor.undo import UndoPlan

    def confirm(plan: UndoPlan) -> bool:
        if yes:
            return True
        needs_terminal(yes, "undo")  # asked only once there is something to undo
        return ask(undo_preview_lines(plan), chosen_format)

    report = run_undo(settings, confirm=confirm)
    return print_run_report(report, chosen_format)


@app.command()
def archive(
    names: Annotated[
        list[str],
        typer.Argument(metavar="NAME...", help="Plans to archive, as the scan names them."),
    ],
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    now: NowOption = None,
    current: CurrentOption = None,
    session: SessionOption = None,
    protect_hours: ProtectHoursOption = None,
    agent: AgentOption = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> int:
    """Archive the plans you name (a dormant plan you want to keep), with their sub-plans."""
    settings = settings_from(locals())
    chosen_format = choose_format(json_output, output_format)
    from clarity.clock import parse_now
    from clarity.runs import run_archive

    report = run_archive(settings, parse_now(now), names, current_values(current), session)
    return print_run_report(report, chosen_format)
