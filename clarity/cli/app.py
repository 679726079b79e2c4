"""The typer application every command module registers on.

Help is click's plain text, not typer's rich panels: plain help wraps
cleanly at any width, never cuts an option's name, and never reads `[...]`
in a help text as markup. `-h` is `--help` everywhere; `--version` and
typer's shell completion (`--install-completion`, `--show-completion`) are
options of `clarity` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup
from typer.models import CommandFunctionType

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


class Group(TyperGroup):
    """A group whose command list shows each command's first sentence whole, wrapped to
    the terminal, where click would cut it at a third of the width with `...`."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class Command(TyperCommand):
    """A command whose usage line shows its arguments as click does (`NAME...`,
    `[QUERY]`), where typer writes a required one in braces: `{names}...`."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                shown = param.make_metavar(ctx)
                pieces.append(shown if param.required else f"[{shown}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces


class App(typer.Typer):
    """A typer app whose commands are Commands unless one says otherwise."""

    def command(
        self, *args: Any, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        return super().command(*args, cls=cls or Command, **kwargs)


# \b keeps click from rewrapping the lines: each example stays on its line.
EXAMPLES = """\b
Examples:
  clarity demo            try it on sample plans
  clarity scan            what would move, and why
  clarity apply           carry out that scan (asks)
  clarity undo            put back the latest apply
  clarity archived cache  find archived plans on cache
"""

app = App(
    name="clarity",
    cls=Group,
    help="Keep Claude Code's plan directory lean without ever losing a plan.",
    epilog=EXAMPLES,
    invoke_without_command=True,
    context_settings=HELP_OPTIONS,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def help_when_bare(ctx: typer.Context) -> None:
    """`clarity` or `clarity schedule` alone: the help on stdout, exit 0.

    Asking the program for nothing is asking what it does (as `gh`, `cargo`,
    `docker` and `pip` answer it), not a mistake to report on stderr.
    """
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        from clarity.render.output import say_text

        say_text(ctx.get_help())
        raise typer.Exit(0)


def _version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import PackageNotFoundError, version

        from clarity.render.output import say

        try:
            number = version("clarity-plans")
        except PackageNotFoundError:
            number = "unknown (not installed as a package)"
        say([f"clarity {number}"])
        raise typer.Exit(0)


@app.callback()
def clarity(
    ctx: typer.Context,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            is_eager=True,
            callback=_version,
            help="Print clarity's version and exit.",
        ),
    ] = False,
) -> None:
    """Keep Claude Code's plan directory lean without ever losing a plan."""
    help_when_bare(ctx)
