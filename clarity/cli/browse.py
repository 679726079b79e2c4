"""`clarity browse`: a local, read-only web page over every plan (SPEC 9.3)."""

from __future__ import annotations

from typing import Annotated

import typer

from clarity.cli.app import app
from clarity.cli.groups import Folders, grouped, only_agent, settings_from
from clarity.cli.options import FromOption
from clarity.render.output import say


@app.command()
@grouped
def browse(
    *,
    folders: Folders,
    port: Annotated[
        int,
        typer.Option(
            "--port", min=0, max=65535, metavar="N", help="Port on 127.0.0.1 (0: a free one)."
        ),
    ] = 0,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Print the address only; open no browser.")
    ] = False,
    from_agent: FromOption = None,
) -> None:
    """Look at every plan in a browser: list, search, plan pages, diffs, pictures. Read-only."""
    settings = only_agent(settings_from(folders), from_agent)
    from clarity.browse.server import serve

    serve(
        settings,
        port=port,
        open_page=not no_open,
        say=lambda line: say([line], fitted=False),
        warn=lambda line: say([line], err=True, fitted=False),
    )
