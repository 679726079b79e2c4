"""The typer application every command module registers on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="clarity",
    help="Keep Claude Code's plan directory lean without ever losing a plan.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
