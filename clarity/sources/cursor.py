"""Cursor's plans: the second plan source.

What Cursor writes (closed source: from its documented format and public plans):
- Plan mode saves `~/.cursor/plans/<name>_<8 hex>.plan.md`; "save to workspace" puts
  the plan in `<project>/.cursor/plans/`. Only `*.plan.md` files there are plans (a
  README or notes beside them are not).
- A plan opens with YAML frontmatter: `name`, `overview`, and `todos: [{id, content,
  status}]`, each todo's status `pending`, `in_progress`, `completed` or `cancelled`,
  marked `completed` as the work is done. Every todo completed: the plan is done
  (the reader makes that the plan's status: plans/plantext.py). Open todos: the age
  rules. No todos: no evidence.
- No sub-plans (the `_<8 hex>` suffix tells plans of one name apart), no cleanup of old
  plans, and no session records clarity reads yet (Cursor keeps its chats in SQLite).
- Its folders are a person's: clarity may move plans out of them.

Projects are those Cursor opened (`workspace.json` of each folder of its
`User/workspaceStorage`, as VS Code writes it: `{"folder": "file:///path"}`) and those
Claude Code worked in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from clarity.settings.locations import (
    Located,
    Origin,
    Source,
    absolute,
    default_archive_dir,
    is_folder,
)
from clarity.sources import Found, PlansRoot, project_agent_archive, projects_known
from clarity.sources.defaults import PlainSource

if TYPE_CHECKING:
    from clarity.settings.config import Settings

NAME = "cursor"
SUFFIX = ".plan.md"
WORKSPACE_JSON_MOST = 64 * 1024  # a workspace.json names one folder: far less than this


class Cursor(PlainSource):
    """Cursor's plans, as the module says."""

    name = NAME
    label = "Cursor"

    def folders(self, settings: Settings, home: Path) -> Found:
        found: dict[str, PlansRoot] = {}
        user = home / ".cursor" / "plans"
        if is_folder(user):
            self._add(found, settings, user, "Cursor's plans folder", None)
        for project, how in projects_known(settings, home, _cursor_workspaces(home)):
            folder = project / ".cursor" / "plans"
            if is_folder(folder):
                self._add(found, settings, folder, f"Cursor's plans in {how}", project)
        return Found(tuple(found.values()), ())

    def _add(
        self,
        found: dict[str, PlansRoot],
        settings: Settings,
        plans_dir: Path,
        how: str,
        project: Path | None,
    ) -> None:
        real = os.path.realpath(plans_dir)
        if real in found:
            return
        plans_dir = absolute(plans_dir)
        archive = _archive_of(settings, plans_dir, project)
        root = PlansRoot(
            plans_dir, how, archive.path, archive.source, settings.claude_dir, project, NAME
        )
        found[real] = root

    def claims(self, plans_dir: Path) -> bool:
        return plans_dir.name == "plans" and plans_dir.parent.name == ".cursor"

    def is_plan(self, name: str) -> bool:
        return name.endswith(SUFFIX) and not name.startswith(".") and len(name) > len(SUFFIX)


def _archive_of(settings: Settings, plans_dir: Path, project: Path | None) -> Located:
    """`~/.cursor/plans-archive` beside the user's folder (or the configured archive); a
    project's in the user's archive (sources.project_agent_archive)."""
    source = settings.sources["archive_dir"]
    if project is None:
        if source.chosen:
            return Located(settings.archive_dir, Source("config", Origin.CONFIG))
        return Located(
            default_archive_dir(plans_dir), Source("default: beside the plans dir", Origin.DEFAULT)
        )
    return project_agent_archive(settings, project, NAME, "Cursor")


def _cursor_workspaces(home: Path) -> list[tuple[Path, str]]:
    """The folders Cursor opened: each `workspace.json` of its workspace storage."""
    found = []
    for storage in _storages(home):
        try:
            entries = sorted(os.scandir(storage), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            folder = _workspace_folder(Path(entry.path) / "workspace.json")
            if folder is not None:
                found.append((folder, f"the workspaces of {storage}"))
    return found


def _storages(home: Path) -> list[Path]:
    config = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return [
        Path(config) / "Cursor" / "User" / "workspaceStorage",
        home / "Library" / "Application Support" / "Cursor" / "User" / "workspaceStorage",
    ]


def _workspace_folder(path: Path) -> Path | None:
    from clarity.fsio import read_regular

    try:
        document = json.loads(read_regular(path, WORKSPACE_JSON_MOST))
    except (OSError, ValueError, RecursionError):
        return None  # none, damaged, or no file clarity should read
    uri = document.get("folder") if isinstance(document, dict) else None
    if not isinstance(uri, str):
        return None  # a multi-root workspace, or another shape: passed over
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None  # a remote folder (ssh, WSL): not on this machine
    folder = Path(unquote(parts.path))
    return folder if folder.is_absolute() else None
