"""The commands about the archive: archived, show (read-only) and restore."""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from clarity import hints
from clarity.cli.app import app
from clarity.cli.options import (
    ArchiveDirOption,
    FormatOption,
    JsonOption,
    PlansDirOption,
    YesOption,
    note,
    settings_from,
)
from clarity.errors import ClarityError
from clarity.output import say
from clarity.terminal import Format, ask, choose_format, print_run_report

if TYPE_CHECKING:
    from clarity.config import Settings


def dir_options(settings: Settings) -> str:
    """The options that chose this run's directories, for a hint to repeat (SPEC 6)."""
    chosen = hints.dir_options(settings)
    return " " + shlex.join(chosen) if chosen else ""


@app.command()
def archived(
    query: Annotated[
        str | None,
        typer.Argument(help="Only plans whose name, title, summary or text holds this (any case)."),
    ] = None,
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> None:
    """List the archive's plans, newest first by quarter (or those matching QUERY). Read-only."""
    settings = settings_from(locals())
    chosen_format = choose_format(json_output, output_format)
    from clarity.render import shelf_report
    from clarity.shelf import list_archived

    shelf = list_archived(settings.archive_dir, query)
    if chosen_format is Format.JSON:
        from clarity.output import send_json

        send_json(shelf_report.shelf_document(shelf))
        return
    for line in shelf.notes:
        note(line)
    if chosen_format is Format.MARKDOWN:
        from clarity.output import say_text

        say_text(shelf_report.shelf_markdown(shelf))
        return
    say(shelf_report.shelf_lines(shelf))
    if shelf.plans:
        options = dir_options(settings)
        say(
            [
                f"Read one with clarity show NAME{options}; "
                f"put one back with clarity restore NAME{options}"
            ],
            err=True,
        )
    elif shelf.total:
        note(f"no archived plan matches {query!r}")


@app.command()
def show(
    name: Annotated[str, typer.Argument(help="An archived plan: foo, foo.md, or 2026-Q4/foo.md.")],
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    json_output: JsonOption = False,
) -> None:
    """Print an archived plan: rendered in a terminal, its exact bytes when piped. Read-only."""
    settings = settings_from(locals())
    from clarity.shelf import find_archived, read_archived

    found = find_archived(settings.archive_dir, name)
    data = read_archived(found)
    if json_output:
        from clarity.output import send_json
        from clarity.render.shelf_report import show_document

        send_json(show_document(found, data))
    elif sys.stdout.isatty():
        from clarity.render.console import plain_console
        from clarity.render.shelf_report import print_plan

        print_plan(data, plain_console())
        if not found.is_subplan:
            again = f"clarity restore {shlex.quote(found.plan.relative)}{dir_options(settings)}"
            say([f"{found.plan.relative}: put it back with {again}"], err=True)
    else:
        from clarity.output import send_bytes

        send_bytes(data)


@app.command()
def restore(
    name: Annotated[
        str, typer.Argument(help="The archived plan to put back: foo, foo.md, or 2026-Q4/foo.md.")
    ],
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    yes: YesOption = False,
    json_output: JsonOption = False,
    output_format: FormatOption = None,
) -> int:
    """Put an archived plan back, with its sub-plans; it stays active for dormant_days."""
    settings = settings_from(locals())
    chosen_format = choose_format(json_output, output_format)
    options = dir_options(settings)
    if not yes and not sys.stdin.isatty():
        raise ClarityError(
            "clarity restore asks before it moves anything and there is no terminal to ask at; "
            f"run clarity restore {shlex.quote(name)}{options} --yes"
        )
    from clarity.render.shelf_report import restore_preview_lines
    from clarity.restoring import run_restore

    days = settings.thresholds.dormant_days
    report = run_restore(
        settings,
        name,
        confirm=lambda group: (
            yes or ask(restore_preview_lines(group, settings.plans_dir, days), chosen_format)
        ),
    )
    code = print_run_report(report, chosen_format)
    if chosen_format is not Format.JSON and any(r.status == "done" for r in report.results):
        say([f"Changed your mind? clarity undo{options} puts it back in the archive."], err=True)
    return code
