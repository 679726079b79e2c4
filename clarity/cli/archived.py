"""The commands about the archive: archived, show (read-only) and restore."""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from clarity import hints
from clarity.cli.app import app
from clarity.cli.groups import Folders, Shape, grouped, only_agent, plan_names, settings_from
from clarity.cli.options import (
    AllRootsOption,
    FromOption,
    JsonOnlyOption,
    YesOption,
    note,
)
from clarity.render.output import say
from clarity.render.terminal import Format, asking, print_run_report

if TYPE_CHECKING:
    from clarity.settings.config import Settings
    from clarity.workflows.archived import ArchiveListing


def _hint(settings: Settings, verb: str, *args: str) -> str:
    """A command to suggest, with the options that chose this run's directories (SPEC 6)."""
    return hints.Again.of(settings).command(verb, *args)


@app.command(
    epilog=(
        "\b\nExamples:\n  clarity archived\n  clarity archived ledger\n  clarity archived --all"
    )
)
@grouped
def archived(
    query: Annotated[
        str | None,
        typer.Argument(
            metavar="QUERY",
            help="Only plans whose name, title, summary or text holds this (any case).",
        ),
    ] = None,
    *,
    folders: Folders,
    shape: Shape,
    all_roots: AllRootsOption = False,
    from_agent: FromOption = None,
) -> int:
    """List the archive's plans, newest first by quarter (or those matching QUERY). Read-only."""
    settings = only_agent(settings_from(folders), from_agent)
    all_roots = all_roots or from_agent is not None
    chosen_format = shape.format
    if all_roots:
        folders.check_none_for_all()
        return _archived_every_root(settings, query, chosen_format)
    from clarity.workflows.archived import list_archive

    listed = list_archive(settings, query)
    if chosen_format is Format.JSON:
        from clarity.render import shelf_report
        from clarity.render.output import send_json

        send_json(shelf_report.listing_document(listed))
        return 0
    _print_shelf(settings, query, chosen_format, listed)
    return 0


def _archived_every_root(settings: Settings, query: str | None, chosen_format: Format) -> int:
    from clarity.render.roots_report import heading, listings_document
    from clarity.workflows.archived import list_archive
    from clarity.workflows.roots import find_roots, for_each_root

    outcomes = for_each_root(settings, find_roots(settings), lambda s: (s, list_archive(s, query)))
    if chosen_format is Format.JSON:
        from clarity.render.output import send_json

        send_json(listings_document(outcomes))
    else:
        for outcome in outcomes:
            say(heading(outcome.root, chosen_format))
            if outcome.result is None:
                note(outcome.error)
            else:
                _print_shelf(outcome.result[0], query, chosen_format, outcome.result[1])
    return 1 if any(o.result is None for o in outcomes) else 0


def _print_shelf(
    settings: Settings, query: str | None, chosen_format: Format, listed: ArchiveListing
) -> None:
    from clarity.render import shelf_report

    shelf, kept = listed.shelf, listed.versions
    for line in shelf.notes:
        note(line)
    if kept[1]:
        note(shelf_report.versions_line(settings.archive_dir, *kept))
    if chosen_format is Format.MARKDOWN:
        from clarity.render.output import say_text

        say_text(shelf_report.shelf_markdown(shelf))
        return
    say(shelf_report.shelf_lines(shelf))
    if shelf.plans or shelf.kept:
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


VersionOption = Annotated[
    int | None,
    typer.Option(
        "--version",
        metavar="N",
        help="Version N of the plan (1 = oldest; clarity history NAME lists them).",
    ),
]


@app.command(
    epilog=(
        "\b\n"
        "Examples:\n"
        "  clarity show misty-sleeping-cherny\n"
        "  clarity show 2026-Q4/foo.md\n"
        "  clarity show foo --version 1"
    )
)
@grouped
def show(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="A plan, live, archived or kept: foo, foo.md, or 2026-Q4/foo.md.",
            autocompletion=plan_names,
        ),
    ],
    *,
    folders: Folders,
    json_output: JsonOnlyOption = False,
    version: VersionOption = None,
) -> None:
    """Print a plan (live first, then the archive): rendered in a terminal, its exact bytes
    when piped. Read-only."""
    settings = settings_from(folders)
    if version is not None:
        _show_version(settings, name, version, json_output)
        return
    from clarity.workflows.plan_by_name import plan_by_name

    found = plan_by_name(settings, name)
    if json_output:
        from clarity.render.output import send_json
        from clarity.render.shelf_report import show_document

        send_json(show_document(found, settings.archive_dir))
    elif sys.stdout.isatty():
        from clarity.render.console import plain_console
        from clarity.render.shelf_report import print_plan

        print_plan(found.data, plain_console())
        archived = found.archived
        if archived is not None and not archived.is_subplan:
            again = _hint(settings, "restore", archived.plan.relative)
            say([f"{archived.plan.relative}: put it back with {again}"], err=True)
        elif found.where == "kept":
            again = _hint(settings, "restore", found.name.removesuffix(".md"))
            say([f"{found.name}, deleted by Claude Code: put it back with {again}"], err=True)
    else:
        from clarity.render.output import send_bytes

        send_bytes(found.data)


@app.command(
    epilog=(
        "\b\n"
        "Examples:\n"
        "  clarity restore swift-owl-turing\n"
        "  clarity restore 2026-Q4/swift-owl-turing.md --yes"
    )
)
@grouped
def restore(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="The archived plan to put back: foo, foo.md, or 2026-Q4/foo.md.",
            autocompletion=plan_names,
        ),
    ],
    *,
    folders: Folders,
    yes: YesOption = False,
    shape: Shape,
) -> int:
    """Put an archived plan back, with its sub-plans; it stays active for dormant_days."""
    settings = settings_from(folders)
    chosen_format = shape.format
    from clarity.render.shelf_report import restore_preview_lines
    from clarity.workflows.restoring import run_restore

    preview = functools.partial(
        restore_preview_lines, plans_dir=settings.plans_dir, days=settings.thresholds.dormant_days
    )
    confirm = asking(yes, "restore", chosen_format, preview)
    report = run_restore(settings, name, confirm=confirm)
    code = print_run_report(report, chosen_format, hints.Again.of(settings))
    if chosen_format is not Format.JSON and any(r.status == "done" for r in report.results):
        undo = _hint(settings, "undo")
        say([f"Changed your mind? {undo} puts it back in the archive."], err=True)
    return code


def _show_version(settings: Settings, name: str, number: int, json_output: bool) -> None:
    from clarity.workflows.versions import plan_history, text_of

    found = plan_history(settings, name)
    text, data = text_of(found, number)
    if json_output:
        from clarity.render.history_report import history_document
        from clarity.render.output import send_json

        document = history_document(found)
        send_json({**document, "version": text.number, "text": data.decode("utf-8", "replace")})
    elif sys.stdout.isatty():
        from clarity.render.console import plain_console
        from clarity.render.shelf_report import print_plan

        print_plan(data, plain_console())
    else:
        from clarity.render.output import send_bytes

        send_bytes(data)


@app.command()
@grouped
def history(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="A plan, live, archived or gone: foo or foo.md.",
            autocompletion=plan_names,
        ),
    ],
    *,
    folders: Folders,
    json_output: JsonOnlyOption = False,
) -> None:
    """List every text clarity knows of a plan, oldest first. Read-only."""
    settings = settings_from(folders)
    from clarity.render import history_report
    from clarity.workflows.versions import plan_history

    found = plan_history(settings, name)
    if json_output:
        from clarity.render.output import send_json

        send_json(history_report.history_document(found))
        return
    say(history_report.history_lines(found))
    stem = found.name.removesuffix(".md")
    read = f"Read one with {_hint(settings, 'show', stem, '--version', 'N')}"
    if len(found.texts) > 1:  # a diff of one version is refused: never suggested
        read += f"; compare two with {_hint(settings, 'diff', stem, 'A', 'B')}"
    say([read], err=True)


@app.command(
    epilog=("\b\nExamples:\n  clarity diff cache\n  clarity diff cache 1 3"),
)
@grouped
def diff(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="A plan, live, archived or gone: foo or foo.md.",
            autocompletion=plan_names,
        ),
    ],
    first: Annotated[
        int | None,
        typer.Argument(metavar="A", help="The older version (default: the one before B)."),
    ] = None,
    second: Annotated[
        int | None, typer.Argument(metavar="B", help="The newer version (default: the latest).")
    ] = None,
    *,
    folders: Folders,
) -> None:
    """Show what changed between two versions of a plan, as a unified diff. Read-only."""
    settings = settings_from(folders)
    from clarity.render.history_report import diff_text
    from clarity.render.output import say_text
    from clarity.workflows.versions import diff_texts, plan_history

    changes = diff_texts(plan_history(settings, name), first, second)
    if not changes:
        note("the two versions hold the same text")
        return
    if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):  # as git diff: colour, a pager
        from clarity.render.history_report import coloured_diff
        from clarity.render.pager import page

        page(coloured_diff(changes))
        return
    say_text(diff_text(changes))
