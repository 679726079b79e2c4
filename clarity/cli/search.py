"""`clarity search QUERY`: ranked full-text search over the live plans and the archive;
`clarity mcp`: the same, and the scan, for Claude over the Model Context Protocol."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.cli.app import app
from clarity.cli.groups import Folders, Shape, grouped, only_agent, settings_from
from clarity.cli.options import (
    FromOption,
    ProjectOption,
    given_path,
    note,
)
from clarity.errors import ClarityError
from clarity.model import PlanClass
from clarity.render.terminal import Format

if TYPE_CHECKING:
    from clarity.workflows.reports import Found


# --class's choices: a plan's class (model.PlanClass), or the archive's plans. An enum for
# typer to offer them; made from PlanClass, so that a new class is a choice at once.
ClassChoice = StrEnum(  # type: ignore[misc]
    "ClassChoice", {**{c.name: c.value for c in PlanClass}, "ARCHIVED": "archived"}
)


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    from clarity.dates import NotADate, parse_moment

    try:
        return parse_moment(value)
    except NotADate as error:
        raise ClarityError(f"--since {error}") from None


@app.command(
    epilog=(
        "\b\n"
        "Examples:\n"
        "  clarity search oauth\n"
        "  clarity search cache -- -redis\n"
        "  clarity search auth --class completed --since 2026-10-01"
    )
)
@grouped
def search(
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="QUERY...",
            help="Words the plan holds, any case (all); -word: without it (after --).",
        ),
    ],
    *,
    folders: Folders,
    project: ProjectOption = None,
    plan_class: Annotated[
        ClassChoice | None,
        typer.Option("--class", help="Only plans of this class (archived: the archive's)."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="DATE", help="Only plans modified since (2026-10-01)."),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, metavar="N", help="Hits shown, at most.")
    ] = 20,
    shape: Shape,
    from_agent: FromOption = None,
) -> None:
    """Find any plan, live or archived, by its words: best first, with where it lives."""
    settings = only_agent(settings_from(folders), from_agent)
    chosen_format = shape.format
    from clarity.workflows.searching import search_plans

    query = " ".join(words)
    where = None if project is None else str(given_path(project, "--project").absolute())
    from clarity.model import SearchRequest

    request = SearchRequest(
        query,
        project=where,
        plan_class=None if plan_class is None else plan_class.value,
        since=_since(since),
        limit=limit,
    )
    _show_hits(search_plans(settings, request, note), chosen_format)


def _show_hits(found: Found, chosen_format: Format) -> None:
    from clarity.render import search_report

    if chosen_format is Format.JSON:
        from clarity.render.output import send_json

        send_json(search_report.hits_document(found))
    elif chosen_format is Format.MARKDOWN:
        from clarity.render.output import say_text

        say_text(search_report.hits_markdown(found))
    elif found.hits:
        from clarity.render.console import plain_console

        search_report.print_hits(found, plain_console())
    if not found.hits and chosen_format is not Format.JSON:  # said once, not "0 plans match"
        note(
            f"nothing matches {found.query!r} in {found.live:,} live and "
            f"{found.archived:,} archived plans: a plan must hold every word given "
            "(as the start of a word)"
        )


@app.command("mcp")
@grouped
def mcp_server(*, folders: Folders) -> None:
    """Answer Claude over MCP on stdio: search_plans, get_plan, list_plans. Read-only."""
    settings = settings_from(folders)
    try:
        from clarity.claude_code.mcp_server import serve
    except ImportError:
        raise ClarityError(
            "clarity mcp needs the MCP SDK (the mcp package), which this install lacks: "
            "install clarity again (from its checkout: uv tool install --reinstall .)"
        ) from None
    serve(settings)
