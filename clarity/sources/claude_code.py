"""Claude Code's plans (SPEC 2, 4, 5, 9): the first plan source.

- Folders: the plans dir a person set (option, environment, config), the default
  `<config dir>/plans` of every Claude config dir clarity knows, and the
  `plansDirectory` of every project those config dirs have worked in, read as Claude
  Code reads it (settings/locations.py). Finding them reads settings files, never a
  project's tree.
- Plans: every `.md` file not hidden (plans/reader.is_plan_name).
- Names: `<parent>-agent-<id>.md` is a sub-plan of `<parent>.md` (plans/subplans.py).
- Sessions: the transcripts under `<config dir>/projects`, read incrementally, and the
  approval ledger the plugin's hooks write (transcripts/).
- Cleanup: top-level plans older than `cleanupPeriodDays` (30 by default), by mtime,
  deleted at Claude Code's start (settings/locations.claude_retention).
- Its plans folders are a person's: clarity may move plans out of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.plans.reader import is_plan_name
from clarity.plans.subplans import root_parents
from clarity.settings.locations import (
    ClaudeSettings,
    Origin,
    ProjectRoots,
    Source,
    absolute,
    archive_dir_for,
    claude_retention,
    is_folder,
    plans_directory_setting,
    project_of,
)
from clarity.sources import Found, PassedOver, PlansRoot
from clarity.sources.defaults import PlainSource

if TYPE_CHECKING:
    from clarity.model import PlanSessions, Retention
    from clarity.settings.config import Settings

NAME = "claude-code"


class ClaudeCode(PlainSource):
    """Claude Code's plans, as the module says."""

    name = NAME
    label = "Claude Code"

    def folders(self, settings: Settings, home: Path) -> Found:
        """Every plans folder on the machine, each real folder once (the first way found)."""
        found: dict[str, PlansRoot] = {}
        passed: list[PassedOver] = []
        chosen = settings.sources["plans_dir"]
        if chosen.chosen:  # a folder the person named: a root of its own
            _add(found, passed, settings, settings.plans_dir, chosen, settings.claude_dir)
        for claude_dir in settings.claude_dirs:
            default = _default_source(settings, claude_dir)
            _add(found, passed, settings, claude_dir / "plans", default, claude_dir)
        from clarity.transcripts.worked_in import worked_in

        for claude_dir in settings.claude_dirs:
            roots_known = ProjectRoots(claude_dir)  # each folder's project, asked once
            for folder, how in worked_in(claude_dir, home):
                try:
                    _add_project(found, passed, settings, folder, how, claude_dir, roots_known)
                except OSError as error:  # one project that cannot be looked at stops no other
                    reason = error.strerror or str(error)
                    passed.append(PassedOver(folder, f"cannot be looked at ({reason}; {how})"))
        return Found(tuple(found.values()), tuple(passed))

    def claims(self, plans_dir: Path) -> bool:
        return True  # any folder a person names: plans, as SPEC 2 has always read them

    def is_plan(self, name: str) -> bool:
        return is_plan_name(name)

    def sub_plans(self, names: set[str]) -> Mapping[str, str]:
        return root_parents(names)

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        """What Claude Code's transcripts (and the approval ledger) say about this plans
        dir's plans as of now. What they said before is kept in the plans dir's state
        folder: only what was appended since is read. go_on: start where a scan cut
        short stopped."""
        from clarity.state import DirState
        from clarity.transcripts.sessions import find_plan_sessions

        state = DirState.for_plans_dir(settings.plans_dir)
        return find_plan_sessions(
            settings.claude_dir / "projects",
            settings.plans_dir,
            now.timestamp(),
            settings.protect_hours,
            session or None,
            state.sessions_file,
            go_on=go_on,
            ledger_dir=state.shared,
        )

    def retention(self, settings: Settings, root: PlansRoot) -> Retention | None:
        claude = ClaudeSettings(root.project or root.plans_dir, root.claude_dir)
        return claude_retention(claude, root.claude_dir, root.plans_dir)


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
    roots_known: ProjectRoots,
) -> None:
    if not is_folder(folder):
        passed.append(
            PassedOver(folder, f"no such folder now: gone, or not a folder ({how})", gone=True)
        )
        return
    setting = plans_directory_setting(ClaudeSettings(folder, claude_dir, roots_known), folder)
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
    from clarity.plans.folder_signs import project_signs

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
    found[real] = PlansRoot(plans_dir, source, archive[0], archive[1], claude_dir, project, NAME)


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
