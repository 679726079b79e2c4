"""`clarity config`: every effective setting and where it came from (SPEC 7), and, as git
config and llm keys have them, `path`, `set KEY VALUE` and `edit` for the config file."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from clarity.cli.app import App, Group, app
from clarity.cli.groups import Folders, Thresholds, grouped, settings_from
from clarity.cli.options import JsonOnlyOption, ProtectHoursOption
from clarity.render.output import say

config_app = App(
    help="Show every effective setting and where it came from; set one, or edit the file.",
    cls=Group,
    invoke_without_command=True,
    rich_markup_mode=None,
)
app.add_typer(config_app, name="config")


@config_app.callback()
@grouped
def show_config(
    ctx: typer.Context,
    *,
    folders: Folders,
    thresholds: Thresholds,
    protect_hours: ProtectHoursOption = None,
    json_output: JsonOnlyOption = False,
) -> None:
    """Show every effective setting and where it came from (path, set and edit: the file)."""
    if ctx.invoked_subcommand is not None:
        return
    settings = settings_from(folders, thresholds, protect_hours=protect_hours)
    from clarity.render.config_report import print_config
    from clarity.workflows.configuration import view_config

    print_config(view_config(settings), as_json=json_output)


@config_app.command("path")
def config_path() -> None:
    """Print where the config file is (it may not exist yet)."""
    from clarity.settings.locations import config_file

    say([str(config_file())], fitted=False)


@config_app.command(
    "set",
    epilog=(
        "\b\n"
        "Examples:\n"
        "  clarity config set dormant_days 30\n"
        "  clarity config set markers 'COMPLETED,-- Done'\n"
        "  clarity config set agent true"
    ),
)
def config_set(
    key: Annotated[str, typer.Argument(metavar="KEY", help="A key of clarity config's table.")],
    value: Annotated[
        str,
        typer.Argument(
            metavar="VALUE",
            help="As its CLARITY_ variable takes it (a list: comma-separated; paths: by ':').",
        ),
    ],
) -> None:
    """Set one key in the config file (checked first: a bad value changes nothing)."""
    from clarity.workflows.configuration import set_value

    path, line = set_value(key, value)
    say([f"{path}: {line}"], fitted=False)


@config_app.command("edit")
def config_edit() -> None:
    """Open the config file in $VISUAL or $EDITOR (else vi), then check it."""
    from clarity.workflows.configuration import edit_file

    edit_file(os.environ)
