"""Every plans folder on the machine (SPEC 2, `clarity roots`, `--all`), and one use case
run over each of them.

A root is a plans folder with what goes with it: its archive, the Claude config
dir whose transcripts tell about its plans, the project it belongs to, and how
it was found. The roots are, in this order: the plans dir the settings chose
when a person set one (option, environment, config), the default
`<config dir>/plans` of every Claude config dir clarity knows, and the
`plansDirectory` of every project those config dirs have worked in, read as
Claude Code reads it. Finding them reads settings files, never a project's tree.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from clarity.errors import ClarityError
from clarity.settings.locations import (
    ClaudeSettings,
    Origin,
    Source,
    absolute,
    archive_dir_for,
    claude_retention,
    is_folder,
    plans_directory_setting,
    project_of,
)

if TYPE_CHECKING:
    from clarity.settings.config import Settings

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PlansRoot:
    """One plans folder and what goes with it."""

    plans_dir: Path
    source: str  # how it was found, for people
    archive_dir: Path
    archive_source: Source
    claude_dir: Path  # the config dir whose transcripts tell about these plans
    project: Path | None  # the project it lies in; None for a config dir's own


@dataclass(frozen=True, slots=True)
class PassedOver:
    """A folder that names plans, and why it is not a root."""

    path: Path
    reason: str


@dataclass(frozen=True, slots=True)
class Roots:
    roots: tuple[PlansRoot, ...]
    passed_over: tuple[PassedOver, ...]


@dataclass(frozen=True, slots=True)
class RootOutcome(Generic[T]):
    """What a use case gave for one root, or the one line saying why it failed there."""

    root: PlansRoot
    result: T | None
    error: str | None = None


def find_roots(settings: Settings, home: Path | None = None) -> Roots:
    """Every plans folder on the machine, each real folder once (the first way found)."""
    home = home if home is not None else Path.home()
    found: dict[str, PlansRoot] = {}
    passed: list[PassedOver] = []
    chosen = settings.sources["plans_dir"]
    if chosen.chosen:  # a folder the person named: a root of its own
        _add(found, passed, settings, settings.plans_dir, chosen, settings.claude_dir)
    for claude_dir in settings.claude_dirs:
        _add(
            found,
            passed,
            settings,
            claude_dir / "plans",
            _default_source(settings, claude_dir),
            claude_dir,
        )
    from clarity.transcripts.worked_in import worked_in

    for claude_dir in settings.claude_dirs:
        for folder, how in worked_in(claude_dir, home):
            try:
                _add_project(found, passed, settings, folder, how, claude_dir)
            except OSError as error:  # one project that cannot be looked at stops no other
                reason = error.strerror or str(error)
                passed.append(PassedOver(folder, f"cannot be looked at ({reason}; {how})"))
    return Roots(tuple(found.values()), tuple(passed))


def _default_source(settings: Settings, claude_dir: Path) -> Source:
    if claude_dir == settings.claude_dirs[0] and os.environ.get("CLAUDE_CONFIG_DIR"):
        return Source("$CLAUDE_CONFIG_DIR/plans", Origin.CLAUDE_CONFIG_DIR)
    if claude_dir == settings.claude_dirs[0] or claude_dir == absolute(Path.home() / ".claude"):
        return Source("default", Origin.DEFAULT)
    return Source(f"claude_config_dirs in {settings.config_path}", Origin.CONFIG)


def _add_project(
    found: dict[str, PlansRoot],
    passed: list[PassedOver],
    settings: Settings,
    folder: Path,
    how: str,
    claude_dir: Path,
) -> None:
    if not is_folder(folder):
        passed.append(PassedOver(folder, f"no such folder now: gone, or not a folder ({how})"))
        return
    setting = plans_directory_setting(ClaudeSettings(folder, claude_dir), folder)
    if setting is None:
        return  # its plans go to the config dir's own plans folder
    if not setting.inside:
        passed.append(
            PassedOver(
                setting.path,
                f'plansDirectory "{setting.value}" in {setting.settings_file} resolves outside '
                "the project; Claude Code ignores it, and so does clarity",
            )
        )
        return
    unlike = _not_a_plans_folder(setting.path, setting.project)
    if unlike is not None:  # "." say: a project's README and notes are no plans
        passed.append(
            PassedOver(
                setting.path,
                f'plansDirectory "{setting.value}" in {setting.settings_file} {unlike}, not '
                "plans; --all leaves it alone (name it with --plans-dir to act there)",
            )
        )
        return
    _add(
        found,
        passed,
        settings,
        setting.path,
        f"plansDirectory in {setting.settings_file} ({how})",
        claude_dir,
    )


def _not_a_plans_folder(plans_dir: Path, project: Path) -> str | None:
    """Why a project's plansDirectory is a folder --all must not take for plans (the
    project's own folder, git's, one holding the project's files), or None."""
    from clarity.judge.scan import project_signs

    if plans_dir == project:
        return "is the project's own folder, whose files are the project's"
    inside = plans_dir.relative_to(project).parts if plans_dir.is_relative_to(project) else ()
    if ".git" in inside:
        return "is inside git's own folder"
    signs = project_signs(plans_dir) if is_folder(plans_dir) else []
    if signs:
        return f"holds {' and '.join(signs[:3])}, a project's own files"
    return None


def _add(
    found: dict[str, PlansRoot],
    passed: list[PassedOver],
    settings: Settings,
    plans_dir: Path,
    source: str,
    claude_dir: Path,
) -> None:
    real = os.path.realpath(plans_dir)
    if real in found:
        return
    if not is_folder(plans_dir):
        if not any(p.path == plans_dir for p in passed):
            passed.append(PassedOver(plans_dir, f"no such folder, or not a folder ({source})"))
        return
    plans_dir = absolute(plans_dir)
    archive = _archive_of(settings, plans_dir)
    project = (
        None
        if _is_a_config_dirs(settings, plans_dir)
        else project_of(plans_dir, settings.claude_dirs)
    )
    found[real] = PlansRoot(plans_dir, source, archive[0], archive[1], claude_dir, project)


def _is_a_config_dirs(settings: Settings, plans_dir: Path) -> bool:
    real = os.path.realpath(plans_dir)
    return any(os.path.realpath(d / "plans") == real for d in settings.claude_dirs)


def _archive_of(settings: Settings, plans_dir: Path) -> tuple[Path, Source]:
    """The root's archive: the settings' own for the plans dir they chose, else where
    archive_dir_for puts it under the configured archive (or the user's)."""
    if os.path.realpath(plans_dir) == os.path.realpath(settings.plans_dir):
        return settings.archive_dir, settings.sources["archive_dir"]
    source = settings.sources["archive_dir"]
    configured = settings.archive_dir if source.chosen else None
    located = archive_dir_for(plans_dir, settings.claude_dirs, configured)
    return located.path, source if located.path == configured else located.source


def settings_for(settings: Settings, root: PlansRoot) -> Settings:
    """The settings of one root: its folders and Claude config dir, the rest as given."""
    claude = ClaudeSettings(root.project or root.plans_dir, root.claude_dir)
    return settings._replace(
        plans_dir=root.plans_dir,
        archive_dir=root.archive_dir,
        claude_dir=root.claude_dir,
        retention=claude_retention(claude, root.claude_dir, root.plans_dir),
        # "option": a hint this root's report prints names its folder (hints.dir_options),
        # which the folder clarity runs in would not choose again
        sources={
            **settings.sources,
            "plans_dir": Source(
                f"option --plans-dir, as --all found it: {root.source}", Origin.OPTION
            ),
            "archive_dir": root.archive_source,
        },
    )


def for_each_root(
    settings: Settings, roots: Roots, run: Callable[[Settings], T]
) -> list[RootOutcome[T]]:
    """run on each root's settings; a root where it fails is one line, and the others go on."""
    outcomes: list[RootOutcome[T]] = []
    for root in roots.roots:
        try:
            outcomes.append(RootOutcome(root, run(settings_for(settings, root))))
        except ClarityError as error:
            outcomes.append(RootOutcome(root, None, error.message))
        except OSError as error:
            outcomes.append(RootOutcome(root, None, f"{error.strerror or error}"))
    return outcomes
