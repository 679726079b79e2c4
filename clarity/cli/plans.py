"""The commands about plans: scan, apply, undo, archive, config, demo."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.cli.app import app
from clarity.cli.options import (
    AgentOption,
    AllRootsOption,
    ArchiveDirOption,
    CurrentOption,
    DormantDaysOption,
    FormatOption,
    IncludeTrackedOption,
    JsonOption,
    NowOption,
    PlansDirOption,
    ProjectOption,
    ProtectHoursOption,
    SessionOption,
    StaleBytesOption,
    StaleDaysOption,
    YesOption,
    check_one_root_options,
    given_path,
    note,
    scan_request,
    settings_from,
)
from clarity.errors import ClarityError
from clarity.hints import Again
from clarity.render.output import say, terminal_width
from clarity.render.terminal import (
    Format,
    ProgressBar,
    asking,
    choose_format,
    print_run_report,
    print_scan_report,
    save_scan_report,
)

if TYPE_CHECKING:
    from clarity.model import ScanReport
    from clarity.settings.config import Settings
    from clarity.workflows.runs import RunReport


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
        str | None,
        typer.Option(
            "--output",
            metavar="FILE",
            help="Write the report to this file instead (whole, at once).",
        ),
    ] = None,
    show_all: Annotated[
        bool,
        typer.Option(
            "--full",
            help="List every plan in the table; without it, long lists of plans apply handles "
            "alone (completed, stale, active) are folded after their newest.",
        ),
    ] = False,
    all_roots: AllRootsOption = False,
    include_tracked: IncludeTrackedOption = False,
    record: Annotated[
        bool,
        typer.Option(
            "--record/--no-record",
            help="Record this scan for apply; --no-record for a report nobody reviews "
            "(the schedule's), which leaves the reviewed scan in place.",
        ),
    ] = True,
    print_only: Annotated[
        bool,
        typer.Option(
            "--print-only",
            help="Print the report and write no file but clarity's own state: --output is "
            "refused. The form the /clarity skill lets Claude run unasked.",
        ),
    ] = False,
) -> int:
    """Classify every plan and show what apply would do. Moves nothing."""
    if print_only and output is not None:
        from clarity.errors import ClarityError

        raise ClarityError(
            "scan --print-only writes no report file, so --output is refused; "
            "run clarity scan --output PATH yourself (without --print-only) to save one"
        )
    settings = settings_from(locals())._replace(include_tracked=include_tracked)

    chosen_format = choose_format(json_output, output_format)
    bar = ProgressBar(chosen_format is not Format.JSON)
    from clarity.workflows.scanning import run_scan

    where = None if project is None else given_path(project, "--project").absolute()
    request = scan_request(now, current, session, where)

    def scan_one(chosen: Settings) -> ScanReport:
        return run_scan(
            chosen,
            request,
            note,
            progress=bar,
            record=record,
            # The skill's report (pre-approved as changing nothing) and a report nobody
            # reviews leave a killed run to the next apply: they never move a file.
            settle=record and not print_only,
        )

    shaping = {
        "--now": now,
        "--stale-days": stale_days,
        "--stale-bytes": stale_bytes,
        "--dormant-days": dormant_days,
        "--protect-hours": protect_hours,
        "--session": session,
        "--project": None if where is None else str(where),
    }
    scan_words = [
        word
        for option, value in shaping.items()
        if value is not None
        for word in (option, value if isinstance(value, str) else f"{value:g}")
    ]
    scan_words += [word for plan in current or [] for word in ("--current", plan)]
    if all_roots:
        from clarity.cli.roots import scan_every_root

        check_one_root_options(plans_dir, archive_dir)
        saved = None if output is None else given_path(output, "--output")
        try:
            return scan_every_root(
                settings,
                scan_one,
                chosen_format,
                show_all=show_all,
                output_file=saved,
                record=record,
                scan_words=tuple(scan_words),
            )
        finally:
            bar.close()
    try:
        report = scan_one(settings)
    finally:
        bar.close()
    again = Again.of(settings, scan_words)
    if output is not None:
        save_scan_report(report, chosen_format, given_path(output, "--output"), again)
        note(f"report written to {output}")
        return 0
    print_scan_report(report, chosen_format, again, show_all=show_all)
    if (
        chosen_format is not Format.JSON
        and report.proposal is not None
        and report.moves()
        and terminal_width(sys.stdout) is None  # on a terminal, the report's last line says it
    ):
        from clarity.render.layout import apply_command

        say(
            [
                f"Review the above, then run {apply_command(report, again)} to carry out "
                "exactly this scan."
            ],
            err=True,
        )
    return 0


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
    from clarity.workflows.configuration import view_config

    print_config(view_config(settings), as_json=json_output)


@app.command()
def demo(
    directory: Annotated[
        str | None,
        typer.Option(
            "--dir",
            metavar="DIR",
            help="Lay the sample out here (new or empty) [default: a temp dir].",
        ),
    ] = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> None:
    """Lay out the shipped sample plans, with their ages, and scan them."""
    from clarity.cli.clock import parse_now
    from clarity.hints import clarity_command
    from clarity.workflows.demo import run_demo

    chosen_format = choose_format(json_output, output_format)
    where = None if directory is None else given_path(directory, "--dir")
    report, kept = run_demo(where, parse_now(None))
    # a kept sample's hints name its folder; a removed one's name nothing to act on
    print_scan_report(
        report, chosen_format, Again(() if kept is None else ("--plans-dir", str(kept)))
    )
    if kept is None:
        lines = ["", "The sample was laid out in a temporary folder, now removed. To keep it:"]
        lines.append("  " + clarity_command("demo", "--dir", "clarity-demo"))
    else:
        lines = ["", f"The sample plans are in {kept}; scan them again with:"]
        lines.append("  " + clarity_command("scan", "--plans-dir", str(kept)))
    say(lines, err=True)


def _only_with_rescan(settings: Settings, given: dict[str, float | None]) -> None:
    """Thresholds decide the classes, which only a scan does: apply carries out the reviewed
    scan as it was, so a threshold it would ignore is an error, not a silent no-op."""

    for option, value in given.items():
        if value is not None:
            review = Again.of(settings).command("scan", option, f"{value:g}")
            raise ClarityError(
                f"{option} changes how plans are classified, and apply carries out the scan "
                f"you reviewed; review with {review}, or scan and apply at once with --rescan"
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
    trust_plans_dir: Annotated[
        bool,
        typer.Option(
            "--trust-plans-dir",
            help="Apply in a folder that looks like a project (it holds .git, or a README "
            "and a build file), which apply otherwise refuses: an empty or mistaken "
            "--plans-dir must not send a project's files to the trash.",
        ),
    ] = False,
    all_roots: AllRootsOption = False,
    include_tracked: IncludeTrackedOption = False,
) -> int:
    """Carry out the latest scan: archive completed plans, trash stale ones."""
    settings = settings_from(locals())._replace(include_tracked=include_tracked)
    chosen_format = choose_format(json_output, output_format)
    if include_tracked and not rescan:
        raise ClarityError(
            "--include-tracked changes what a scan proposes, and apply carries out the scan "
            "you reviewed; scan with --include-tracked first, or add --rescan"
        )
    if not rescan:
        _only_with_rescan(
            settings,
            {
                "--stale-days": stale_days,
                "--stale-bytes": stale_bytes,
                "--dormant-days": dormant_days,
            },
        )
    from clarity.render.run_report import preview_lines
    from clarity.workflows.runs import run_apply

    bar = ProgressBar(chosen_format is not Format.JSON)
    confirm = asking(yes, "apply", chosen_format, preview_lines, bar=bar)
    request = scan_request(now, current, session)

    def apply_one(chosen: Settings) -> RunReport:
        return run_apply(
            chosen,
            request,
            rescan=rescan,
            confirm=confirm,
            progress=bar,
            proposal_id=proposal,
            trust_plans_dir=trust_plans_dir,
        )

    try:
        if all_roots:
            from clarity.cli.roots import apply_every_root

            check_one_root_options(plans_dir, archive_dir)
            if proposal is not None:
                raise ClarityError(
                    "--proposal names one folder's scan, and --all applies each folder's "
                    "latest scan; give --plans-dir with --proposal instead of --all"
                )
            return apply_every_root(settings, apply_one, chosen_format, rescan=rescan)
        report = apply_one(settings)
    finally:
        bar.close()
    return print_run_report(report, chosen_format, Again.of(settings))


@app.command()
def undo(
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    yes: YesOption = False,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
    all_roots: Annotated[
        bool,
        typer.Option("--all", help="Undo the latest apply --all, in every folder it moved in."),
    ] = False,
) -> int:
    """Put back what the latest apply, archive or restore moved (from the archive, the trash,
    or into the archive again)."""
    settings = settings_from(locals())
    chosen_format = choose_format(json_output, output_format)
    from clarity.render.run_report import undo_preview_lines
    from clarity.workflows.runs import run_undo

    confirm = asking(yes, "undo", chosen_format, undo_preview_lines)

    def undo_one(chosen: Settings) -> RunReport:
        return run_undo(chosen, confirm=confirm)

    if all_roots:
        from clarity.cli.roots import undo_every_root

        check_one_root_options(plans_dir, archive_dir)
        return undo_every_root(settings, undo_one, chosen_format)
    report = undo_one(settings)
    return print_run_report(report, chosen_format, Again.of(settings))


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
    yes: YesOption = False,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
    include_tracked: IncludeTrackedOption = False,
) -> int:
    """Archive the plans you name, with their sub-plans: any plan but one a live session uses."""
    settings = settings_from(locals())._replace(include_tracked=include_tracked)
    chosen_format = choose_format(json_output, output_format)
    from clarity.render.run_report import preview_lines
    from clarity.workflows.runs import run_archive

    confirm = asking(yes, "archive", chosen_format, preview_lines)
    report = run_archive(settings, scan_request(now, current, session), names, confirm=confirm)
    return print_run_report(report, chosen_format, Again.of(settings))
