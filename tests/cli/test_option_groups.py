"""Issue 43, part 5: the options several commands share are declared once, as groups
(cli/groups.py), and every command that takes a group takes all of it, worded alike."""

from __future__ import annotations

import json
from typing import Any

import pytest
import typer

from clarity.cli import app
from clarity.cli.groups import GROUPS, Folders, grouped

GROUP_OPTIONS = {
    group.__name__: [field.replace("_", "-") for field in group.__dataclass_fields__]
    for group in GROUPS
}


def _commands() -> dict[str, Any]:
    """Each command as typer builds it (its click command), sub-commands by their path."""
    root: Any = typer.main.get_command(app)
    found: dict[str, Any] = {}
    for name, command in root.commands.items():
        if hasattr(command, "commands"):
            found |= {f"{name} {sub}": each for sub, each in command.commands.items()}
            if command.params:  # a group that takes options of its own (`clarity config`)
                found[name] = command
        else:
            found[name] = command
    return found


def _options(command: Any) -> dict[str, Any]:
    return {
        parameter.name.replace("_", "-"): parameter
        for parameter in command.params
        if parameter.param_type_name == "option" and parameter.name
    }


def test_every_command_with_a_groups_option_has_the_whole_group_worded_alike() -> None:
    takers: dict[str, list[str]] = {}
    commands = _commands()
    for name, command in commands.items():
        options = _options(command)
        for group, fields in GROUP_OPTIONS.items():
            present = [field for field in fields if field in options]
            if present and group != "Shape":  # --json alone, where there is no --format
                assert present == fields, (name, group)
                takers.setdefault(group, []).append(name)
    assert len(takers["Folders"]) >= 12
    assert {"scan", "apply", "config"} <= set(takers["Thresholds"])
    assert {"scan", "apply", "archive"} <= set(takers["Moment"])
    for option in ("plans-dir", "archive-dir", "stale-days", "now"):
        given = [_options(command).get(option) for command in commands.values()]
        texts = {each.help for each in given if each is not None}
        assert len(texts) == 1, (option, texts)  # declared once: one wording


def test_a_groups_options_reach_the_command(cli) -> None:
    result = cli("config", "--plans-dir", "/srv/plans", "--stale-days", "3", "--json")
    settings = json.loads(result.stdout)["settings"]
    assert settings["plans_dir"] == {"value": "/srv/plans", "source": "option --plans-dir"}
    assert settings["stale_days"] == {"value": 3.0, "source": "option --stale-days"}
    assert settings["archive_dir"]["value"] == "/srv/plans-archive"


def test_a_command_whose_own_option_shares_a_groups_name_is_refused() -> None:
    def clashing(*, folders: Folders, plans_dir: str | None = None) -> None:
        raise AssertionError("never run")

    with pytest.raises(TypeError, match="clashing"):
        grouped(clashing)


def test_help_names_arguments_alike_and_json_as_it_is() -> None:
    """Issue 46: metavars were `name` in some commands and `NAME` in others, and `--json`
    said "Same as --format json" on commands that have no --format."""
    for name, command in _commands().items():
        for parameter in command.params:
            if parameter.param_type_name == "argument":
                shown = parameter.metavar or ""  # given, not made up from the name
                assert shown and shown == shown.upper(), (name, parameter.name, shown)
        options = _options(command)
        if "json" in options and options["json"].help:
            same = "--format" in options["json"].help
            assert same == ("format" in options), (name, options["json"].help)


def test_the_main_commands_help_ends_with_examples(cli) -> None:
    """Issue 46: the help a person reads gives examples to copy, each of that command."""
    for command in ("scan", "apply", "search", "archived", "show", "restore", "diff", "uninstall"):
        shown = cli(command, "--help").stdout
        assert "Examples:" in shown, command
        examples = shown.split("Examples:", 1)[1].split("\n")
        lines = [line.strip() for line in examples if line.strip()]
        assert lines and all(line.startswith(f"clarity {command}") for line in lines), lines
