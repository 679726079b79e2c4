"""The commands about the archive: archived, show (read-only) and restore."""

from __future__ import annotations

import functools
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
from clarity.render.output import say
from clarity.render.terminal import Format, asking, choose_format, print_run_report

if TYPE_CHECKING:
    from clarity.config import Settings


def _hint(settings: Settings, verb: str, *args: str) -> str:
    """A command to suggest, with the options that chose this run's directories (SPEC 6)."""
    return hints.clarity_command(verb, *args, options=hints.dir_options(settings))


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
    from clarity.archive.shelf import list_archived
    from clarity.render import shelf_report
    from clarity.search import archived_text_matches

    shelf = list_archived(settings.archive_dir, query, archived_text_matches(settings))
    if chosen_format is Format.JSON:
        from clarity.render.output import send_json

        send_json(shelf_report.shelf_document(shelf))
        return
    for line in shelf.notes:
        note(line)
    if chosen_format is Format.MARKDOWN:
        from clarity.render.output import say_text

        say_text(shelf_report.shelf_markdown(shelf))
        return
    say(shelf_report.shelf_lines(shelf))
    if shelf.plans:
        say(
            [
                f"Read one with {_hint(settings, 'show', 'NAME')}; "
                f"put one back with {_hint(settings, 'restore', 'NAME')}"
            ],
            err=True,
        )
    elif shelf.total:
        note(f"no archived plan matches {query!r}")
    elif not shelf.notes:  # an archive with nothing in it yet (no archive: its note says so)
        note(
            f"the archive {settings.archive_dir} holds no plans yet: "
            f"{_hint(settings, 'apply')} and {_hint(settings, 'archive', 'NAME')} put plans there"
        )


@app.command()
def show(
    name: Annotated[str, typer.Argument(help="An archived plan: foo, foo.md, or 2026-Q4/foo.md.")],
    plans_dir: PlansDirOption = None,
    archive_dir: ArchiveDirOption = None,
    json_output: JsonOption = False,
) -> None:
    """Print an archived plan: rendered in a terminal, its exact bytes when piped. Read-only."""
    settings = settings_from(locals())
    from clarity.archive.shelf import find_archived, read_archived

    found = find_archived(settings.archive_dir, name)
    data = read_archived(found)
    if json_output:
        from clarity.render.output import send_json
        from clarity.render.shelf_report import show_document

        send_json(show_document(found, data))
    elif sys.stdout.isatty():
        from clarity.render.console import plain_console
        from clarity.render.shelf_report import print_plan

        print_plan(data, plain_console())
        if not found.is_subplan:
            again = _hint(settings, "restore", found.plan.relative)
            say([f"{found.plan.relative}: put it back with {again}"], err=True)
    else:
        from clarity.render.output import send_bytes

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
    from clarity.render.shelf_report import restore_preview_lines
    from clarity.workflows.restoring import run_restore

    preview = functools.partial(
        restore_preview_lines, plans_dir=settings.plans_dir, days=settings.thresholds.dormant_days
    )
    confirm = asking(yes, "restore", chosen_format, preview)
    report = run_restore(settings, name, confirm=confirm)
    code = print_run_report(report, chosen_format)
    if chosen_format is not Format.JSON and any(r.status == "done" for r in report.results):
        undo = _hint(settings, "undo")
        say([f"Changed your mind? {undo} puts it back in the archive."], err=True)
    return code
