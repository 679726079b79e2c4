"""Option groups, each declared once: the options several commands share, which a
command receives as one frozen value (`folders: Folders`) instead of a list of
parameters repeated in every signature.

Typer reads a command's parameters from its signature; `grouped` writes each group's
fields into the signature in the group's place (typer sees `--plans-dir` and
`--archive-dir` where `folders: Folders` stands), and hands the command the group
made of what was given. A new shared option goes in its group here, once.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from clarity.cli.options import (
    ArchiveDirOption,
    CurrentOption,
    DormantDaysOption,
    FormatOption,
    JsonOption,
    NowOption,
    PlansDirOption,
    SessionOption,
    StaleBytesOption,
    StaleDaysOption,
    scan_request,
)

if TYPE_CHECKING:
    from clarity.model import ScanRequest
    from clarity.render.terminal import Format
    from clarity.settings.config import Settings

Result = TypeVar("Result")


@dataclass(frozen=True, slots=True)
class Folders:
    """Which plans folder, and where its archive is."""

    plans_dir: PlansDirOption = None
    archive_dir: ArchiveDirOption = None

    def check_none_for_all(self) -> None:
        """--all picks its folders itself: an option that names one would be ignored."""
        from clarity.errors import ClarityError

        for option, value in (("--plans-dir", self.plans_dir), ("--archive-dir", self.archive_dir)):
            if value is not None:
                raise ClarityError(
                    f"--all acts on every plans folder, each with its own archive, so {option} "
                    f"is refused; give {option} without --all to act on one folder"
                )


@dataclass(frozen=True, slots=True)
class Thresholds:
    """What makes a plan stale or dormant: only a scan weighs them."""

    stale_days: StaleDaysOption = None
    stale_bytes: StaleBytesOption = None
    dormant_days: DormantDaysOption = None

    def given(self) -> dict[str, float | None]:
        """Each threshold by its option's name, None where not given."""
        return {
            "--stale-days": self.stale_days,
            "--stale-bytes": self.stale_bytes,
            "--dormant-days": self.dormant_days,
        }


@dataclass(frozen=True, slots=True)
class Moment:
    """What the scan is asked as of: the moment, and the sessions and plans in use now."""

    now: NowOption = None
    current: CurrentOption = None
    session: SessionOption = None

    def request(self, project: Path | None = None) -> ScanRequest:
        return scan_request(self.now, self.current, self.session, project)


@dataclass(frozen=True, slots=True)
class Shape:
    """How the answer is printed: --json, or --format."""

    json_output: JsonOption = False
    output_format: FormatOption = None

    @property
    def format(self) -> Format:
        from clarity.render.terminal import choose_format

        return choose_format(self.json_output, self.output_format)


GROUPS = (Folders, Thresholds, Moment, Shape)


def settings_from(
    folders: Folders,
    thresholds: Thresholds | None = None,
    *,
    protect_hours: float | None = None,
    agent: bool | None = None,
) -> Settings:
    """The settings a command's options give, over the environment and the config file
    (SPEC 7: an option > CLARITY_* > the config file > the default)."""
    from clarity.settings.config import load_settings

    thresholds = thresholds or Thresholds()
    options: dict[str, Any] = {
        "plans_dir": folders.plans_dir,
        "archive_dir": folders.archive_dir,
        "stale_days": thresholds.stale_days,
        "stale_bytes": thresholds.stale_bytes,
        "dormant_days": thresholds.dormant_days,
        "protect_hours": protect_hours,
        "agent": agent,
    }
    from clarity.workflows.roots import of_its_agent

    return of_its_agent(load_settings(options, os.environ, Path.cwd()))


def only_agent(settings: Settings, name: str | None) -> Settings:
    """settings narrowed to one agent's folders (`--from NAME`; workflows/roots.py)."""
    if name is None:
        return settings
    from clarity.workflows.roots import only_agent as narrowed

    return narrowed(settings, name)


def plan_names(incomplete: str) -> list[str]:
    """Tab completion of a plan's name (`show spl<TAB>`): the plans of the folder clarity
    would act on, live then archived, newest first, as the commands take them."""
    from clarity.settings.config import load_settings
    from clarity.workflows.plan_by_name import newest_plans

    try:
        settings = load_settings({}, os.environ, Path.cwd())
        names = [name.removesuffix(".md") for name, _ in newest_plans(settings, 500)]
    except Exception:  # noqa: BLE001 (a completion that fails offers nothing, never a traceback)
        return []
    return [name for name in dict.fromkeys(names) if name.startswith(incomplete)]


def grouped(command: Callable[..., Result]) -> Callable[..., Result]:
    """The command with each group parameter spelt out as its options (see the module)."""
    hints = typing.get_type_hints(command, include_extras=True)
    groups: dict[str, type[Any]] = {}
    parameters: list[inspect.Parameter] = []
    for name, parameter in inspect.signature(command).parameters.items():
        hint = hints.get(name, parameter.annotation)
        if hint in GROUPS:
            groups[name] = hint
            fields = typing.get_type_hints(hint, include_extras=True)
            parameters += [
                inspect.Parameter(
                    field.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=field.default,
                    annotation=fields[field.name],
                )
                for field in dataclasses.fields(hint)
            ]
        else:
            # Keyword-only, every one: click passes each by its name.
            parameters.append(
                parameter.replace(annotation=hint, kind=inspect.Parameter.KEYWORD_ONLY)
            )
    names = [parameter.name for parameter in parameters]
    if len(set(names)) != len(names):
        raise TypeError(f"{command.__name__}: an option of a group is also its own parameter")

    @functools.wraps(command)
    def run(*args: Any, **given: Any) -> Result:
        for name, group in groups.items():
            given[name] = group(
                **{field.name: given.pop(field.name) for field in dataclasses.fields(group)}
            )
        return command(*args, **given)

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return run
