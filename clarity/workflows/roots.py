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

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from clarity.errors import ClarityError
from clarity.locations import (
    ClaudeSettings,
    absolute,
    archive_dir_for,
    claude_retention,
    plans_directory_setting,
    project_of,
)

if TYPE_CHECKING:
    from clarity.config import Settings
    from clarity.executor.results import RunReport

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PlansRoot:
    """One plans folder and what goes with it."""

    plans_dir: Path
    source: str  # how it was found, for people
    archive_dir: Path
    archive_source: str
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
    if not chosen.startswith(("default", "$CLAUDE_CONFIG_DIR", "plansDirectory")):
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
            _add_project(found, passed, settings, folder, how, claude_dir)
    return Roots(tuple(found.values()), tuple(passed))


def _default_source(settings: Settings, claude_dir: Path) -> str:
    if claude_dir == settings.claude_dirs[0] and os.environ.get("CLAUDE_CONFIG_DIR"):
        return "$CLAUDE_CONFIG_DIR/plans"
    if claude_dir == settings.claude_dirs[0] or claude_dir == absolute(Path.home() / ".claude"):
        return "default"
    return f"claude_config_dirs in {settings.config_path}"


def _add_project(
    found: dict[str, PlansRoot],
    passed: list[PassedOver],
    settings: Settings,
    folder: Path,
    how: str,
    claude_dir: Path,
) -> None:
    if not folder.is_dir():
        passed.append(PassedOver(folder, f"a project folder that is gone ({how})"))
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
    from clarity.judge.scan import project_signs

    signs = project_signs(setting.path) if setting.path.is_dir() else []
    if signs:  # "." say: its README and notes are no plans, and --all was not told of it
        passed.append(
            PassedOver(
                setting.path,
                f'plansDirectory "{setting.value}" in {setting.settings_file} is a folder '
                f"that holds {' and '.join(signs[:3])}, a project's own files, not plans; name "
                "it with --plans-dir to act there",
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
    if not plans_dir.is_dir():
        if not any(p.path == plans_dir for p in passed):
            passed.append(PassedOver(plans_dir, f"no such folder yet ({source})"))
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


def _archive_of(settings: Settings, plans_dir: Path) -> tuple[Path, str]:
    """The root's archive: the settings' own for the plans dir they chose, else where
    archive_dir_for puts it under the configured archive (or the user's)."""
    if os.path.realpath(plans_dir) == os.path.realpath(settings.plans_dir):
        return settings.archive_dir, settings.sources["archive_dir"]
    source = settings.sources["archive_dir"]
    configured = settings.archive_dir if source.startswith(("config", "env", "option")) else None
    located = archive_dir_for(plans_dir, settings.claude_dirs, configured)
    return located.path, source if located.source == "config" else located.source


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
            "plans_dir": f"option --plans-dir, as --all found it: {root.source}",
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


EVERY_ROOT_RUNS = "every-root-apply.json"  # in clarity's state folder: what undo --all undoes


def remember_every_root_apply(outcomes: list[RootOutcome[RunReport]]) -> None:
    """The runs an `apply --all` made, root by root, for `undo --all`."""
    from clarity.fsio import write_atomic
    from clarity.locations import state_dir

    runs = {
        os.fsdecode(outcome.root.plans_dir): outcome.result.run
        for outcome in outcomes
        if outcome.result is not None and outcome.result.run is not None
    }
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / EVERY_ROOT_RUNS, json.dumps(runs, indent=2).encode() + b"\n")


def every_root_apply() -> dict[str, str]:
    """plans dir -> the run the latest `apply --all` made there; {} when none is known."""
    from clarity.locations import state_dir

    try:
        runs = json.loads((state_dir() / EVERY_ROOT_RUNS).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(runs, dict):
        return {}
    return {k: v for k, v in runs.items() if isinstance(k, str) and isinstance(v, str)}


def undo_every_root(
    settings: Settings, roots: Roots, run_one: Callable[[Settings], RunReport]
) -> list[RootOutcome[RunReport]]:
    """Undo, in each root, the run the latest `apply --all` made there, if it is still the
    latest run of that root (a later one is undone there, by name, by the person)."""
    from clarity.state import DirState

    runs = every_root_apply()
    chosen = Roots(
        tuple(root for root in roots.roots if os.fsdecode(root.plans_dir) in runs),
        roots.passed_over,
    )

    def undo_one(root_settings: Settings) -> RunReport:
        made = runs[os.fsdecode(root_settings.plans_dir)]
        files = DirState.for_plans_dir(root_settings.plans_dir).run_files()
        latest = files[-1].name if files else None
        if latest != made:
            from clarity.hints import clarity_command, dir_options

            again = clarity_command("undo", options=dir_options(root_settings))
            raise ClarityError(
                f"apply --all ran {made} here, but {latest} ran since; undo here with {again}"
            )
        return run_one(root_settings)

    outcomes = for_each_root(settings, chosen, undo_one)
    undone = {os.fsdecode(o.root.plans_dir) for o in outcomes if o.result is not None}
    if undone:
        from clarity.fsio import write_atomic
        from clarity.locations import state_dir

        left = {folder: run for folder, run in runs.items() if folder not in undone}
        write_atomic(state_dir() / EVERY_ROOT_RUNS, json.dumps(left, indent=2).encode() + b"\n")
    return outcomes
