"""The commands about plans: scan, apply, undo, archive, config, demo."""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.cli.app import app
from clarity.cli.groups import (
    Folders,
    Moment,
    Shape,
    Thresholds,
    grouped,
    only_agent,
    plan_names,
    settings_from,
)
from clarity.cli.options import (
    AgentOption,
    AllRootsOption,
    FormatOption,
    FromOption,
    FullOption,
    IncludeTrackedOption,
    JsonOnlyOption,
    OutputOption,
    PrintOnlyOption,
    ProjectOption,
    ProposalOption,
    ProtectHoursOption,
    RecordOption,
    RescanOption,
    TrustPlansDirOption,
    YesOption,
    given_path,
    note,
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
    from clarity.model import ScanReport, ScanRequest
    from clarity.settings.config import Settings
    from clarity.workflows.runs import RunReport


@app.command(
    epilog=(
        "\b\n"
        "Examples:\n"
        "  clarity scan\n"
        "  clarity scan --all\n"
        "  clarity scan --from cursor --json\n"
        "  clarity scan --plans-dir ~/work/app/docs/plans"
    )
)
@grouped
def scan(
    *,
    folders: Folders,
    moment: Moment,
    thresholds: Thresholds,
    protect_hours: ProtectHoursOption = None,
    project: ProjectOption = None,
    agent: AgentOption = None,
    shape: Shape,
    output: OutputOption = None,
    show_all: FullOption = False,
    all_roots: AllRootsOption = False,
    from_agent: FromOption = None,
    include_tracked: IncludeTrackedOption = False,
    record: RecordOption = True,
    print_only: PrintOnlyOption = False,
) -> int:
    """Classify every plan and show what apply would do. Moves nothing."""
    _refuse_output_with_print_only(print_only, output)
    settings = settings_from(folders, thresholds, protect_hours=protect_hours, agent=agent)
    settings = only_agent(settings._replace(include_tracked=include_tracked), from_agent)
    all_roots = all_roots or from_agent is not None
    chosen_format = shape.format
    bar = ProgressBar(chosen_format is not Format.JSON)
    where = None if project is None else given_path(project, "--project").absolute()
    request = moment.request(where)
    scan_one = functools.partial(
        _scan_one, request=request, bar=bar, record=record, print_only=print_only
    )
    shaping: dict[str, str | float | None] = {"--now": moment.now, **thresholds.given()}
    shaping |= {"--protect-hours": protect_hours, "--session": moment.session}
    shaping["--project"] = None if where is None else str(where)
    scan_words = _scan_words(shaping, moment.current)
    try:
        if all_roots:
            from clarity.cli.roots import scan_every_root

            folders.check_none_for_all()
            saved = None if output is None else given_path(output, "--output")
            return scan_every_root(
                settings,
                scan_one,
                chosen_format,
                show_all=show_all,
                output_file=saved,
                record=record,
                scan_words=scan_words,
            )
        report = scan_one(settings)
    finally:
        bar.close()
    _show_scan(report, chosen_format, Again.of(settings, scan_words), output, show_all=show_all)
    return 0


def _refuse_output_with_print_only(print_only: bool, output: str | None) -> None:
    if print_only and output is not None:
        raise ClarityError(
            "scan --print-only writes no report file, so --output is refused; "
            "run clarity scan --output PATH yourself (without --print-only) to save one"
        )


def _scan_one(
    chosen: Settings, *, request: ScanRequest, bar: ProgressBar, record: bool, print_only: bool
) -> ScanReport:
    """One folder's scan. The skill's report (print_only: pre-approved as changing
    nothing) and a report nobody reviews (not recorded) leave a killed run to the next
    apply: they never move a file."""
    from clarity.workflows.scanning import run_scan

    return run_scan(
        chosen, request, note, progress=bar, record=record, settle=record and not print_only
    )


def _scan_words(
    shaping: dict[str, str | float | None], current: list[str] | None
) -> tuple[str, ...]:
    """The options that shaped the scan, as words a hint repeats (apply --rescan with the
    same thresholds classifies the same way)."""
    words = [
        word
        for option, value in shaping.items()
        if value is not None
        for word in (option, value if isinstance(value, str) else f"{value:g}")
    ]
    return (*words, *(word for plan in current or [] for word in ("--current", plan)))


def _show_scan(
    report: ScanReport,
    chosen_format: Format,
    again: Again,
    output: str | None,
    *,
    show_all: bool,
) -> None:
    """The report, printed or saved (--output); piped, the command that applies it on
    stderr."""
    if output is not None:
        save_scan_report(report, chosen_format, given_path(output, "--output"), again)
        note(f"report written to {output}")
        return
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
    json_output: JsonOnlyOption = False,
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


def _only_with_rescan(
    settings: Settings, given: dict[str, float | None], *, include_tracked: bool
) -> None:
    """Thresholds decide the classes, which only a scan does: apply carries out the reviewed
    scan as it was, so a threshold it would ignore is an error, not a silent no-op."""
    if include_tracked:
        raise ClarityError(
            "--include-tracked changes what a scan proposes, and apply carries out the scan "
            "you reviewed; scan with --include-tracked first, or add --rescan"
        )

    for option, value in given.items():
        if value is not None:
            review = Again.of(settings).command("scan", option, f"{value:g}")
            raise ClarityError(
                f"{option} changes how plans are classified, and apply carries out the scan "
                f"you reviewed; review with {review}, or scan and apply at once with --rescan"
            )


@app.command(
    epilog=("\b\nExamples:\n  clarity apply\n  clarity apply --rescan --yes\n  clarity apply --all")
)
@grouped
def apply(
    *,
    folders: Folders,
    moment: Moment,
    thresholds: Thresholds,
    protect_hours: ProtectHoursOption = None,
    agent: AgentOption = None,
    rescan: RescanOption = False,
    yes: YesOption = False,
    proposal: ProposalOption = None,
    shape: Shape,
    trust_plans_dir: TrustPlansDirOption = False,
    all_roots: AllRootsOption = False,
    from_agent: FromOption = None,
    include_tracked: IncludeTrackedOption = False,
) -> int:
    """Carry out the latest scan: archive completed plans, trash stale ones."""
    settings = settings_from(folders, thresholds, protect_hours=protect_hours, agent=agent)
    settings = only_agent(settings._replace(include_tracked=include_tracked), from_agent)
    all_roots = all_roots or from_agent is not None
    chosen_format = shape.format
    if not rescan:
        _only_with_rescan(settings, thresholds.given(), include_tracked=include_tracked)
    from clarity.render.run_report import preview_lines
    from clarity.workflows.runs import run_apply

    bar = ProgressBar(chosen_format is not Format.JSON)
    confirm = asking(yes, "apply", chosen_format, preview_lines, bar=bar)
    request = moment.request()

    apply_one = functools.partial(
        run_apply,
        request=request,
        rescan=rescan,
        confirm=confirm,
        progress=bar,
        proposal_id=proposal,
        trust_plans_dir=trust_plans_dir,
    )

    try:
        if all_roots:
            from clarity.cli.roots import apply_every_root

            folders.check_none_for_all()
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
@grouped
def undo(
    *,
    folders: Folders,
    yes: YesOption = False,
    shape: Shape,
    all_roots: Annotated[
        bool,
        typer.Option("--all", help="Undo the latest apply --all, in every folder it moved in."),
    ] = False,
) -> int:
    """Put back what the latest apply, archive or restore moved (from the archive, the trash,
    or into the archive again)."""
    settings = settings_from(folders)
    chosen_format = shape.format
    from clarity.render.run_report import undo_preview_lines
    from clarity.workflows.runs import run_undo

    confirm = asking(yes, "undo", chosen_format, undo_preview_lines)

    def undo_one(chosen: Settings) -> RunReport:
        return run_undo(chosen, confirm=confirm)

    if all_roots:
        from clarity.cli.roots import undo_every_root

        folders.check_none_for_all()
        return undo_every_root(settings, undo_one, chosen_format)
    report = undo_one(settings)
    return print_run_report(report, chosen_format, Again.of(settings))


@app.command()
@grouped
def archive(
    names: Annotated[
        list[str],
        typer.Argument(
            metavar="NAME...",
            help="Plans to archive, as the scan names them.",
            autocompletion=plan_names,
        ),
    ],
    *,
    folders: Folders,
    moment: Moment,
    protect_hours: ProtectHoursOption = None,
    agent: AgentOption = None,
    yes: YesOption = False,
    shape: Shape,
    include_tracked: IncludeTrackedOption = False,
) -> int:
    """Archive the plans you name, with their sub-plans: any plan but one a live session uses."""
    settings = settings_from(folders, protect_hours=protect_hours, agent=agent)
    settings = settings._replace(include_tracked=include_tracked)
    chosen_format = shape.format
    from clarity.render.run_report import preview_lines
    from clarity.workflows.runs import run_archive

    confirm = asking(yes, "archive", chosen_format, preview_lines)
    report = run_archive(settings, moment.request(), names, confirm=confirm)
    return print_run_report(report, chosen_format, Again.of(settings))
