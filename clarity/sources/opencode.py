"""OpenCode's plans (and Kilo Code's, its fork): a plan source whose records are SQLite.

What OpenCode writes (read in `opencode-ai` 1.18.33 and seen in fixtures/opencode,
recorded from the real client offline):
- Plan mode writes a plan file only with `OPENCODE_EXPERIMENTAL_PLAN_MODE=1`: the plan
  agent `write`s `<worktree>/.opencode/plans/<session created ms>-<session slug>.md`
  (Kilo Code: `.kilo/plans/`), then asks with `plan_exit`. Without the flag the plan is
  only the assistant's text, and there is no file to keep.
- Its store is `$XDG_DATA_HOME/opencode/opencode.db` (else `~/.local/share/opencode`):
  tables `project` (`worktree`), `session` (`id`, `slug`, `directory`, `time_updated`
  in ms), `message` and `part` (`data`: JSON; a part of type `tool` has `tool` and
  `state {status, input, output}`, one of type `text` may be `synthetic`).
- Approval: `plan_exit` completed, then a synthetic user text "The plan at <path
  relative to the worktree> has been approved, you can now edit files. Execute the
  plan". A refusal or a dismissed question leaves `plan_exit` in `error` ("The user
  dismissed this question"), and nothing follows.
- The work: `edit`, `write`, `patch` and `multiedit` parts completed after the approval,
  on files outside the plans folder.
- OpenCode deletes no plan by age. The plans folder is in the person's project: clarity
  moves plans out of it, into the user's archive (never a new folder in the project).
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.model import NO_SESSIONS, PlanSessions, SessionEvidence
from clarity.settings.locations import absolute, is_folder
from clarity.sources import Found, PlansRoot, project_agent_archive, projects_known
from clarity.sources.defaults import PlainSource
from clarity.transcripts.store import text_digest

if TYPE_CHECKING:
    from clarity.settings.config import Settings

NAME = "opencode"
LABEL = "OpenCode"
FOLDERS = (".opencode", ".kilo")  # OpenCode's, and Kilo Code's (its fork)
APPROVED = re.compile(r"^The plan at (.+?) has been approved")
EDITS = ("edit", "write", "patch", "multiedit")


class OpenCode(PlainSource):
    """OpenCode's plans, as the module says."""

    name = NAME
    label = LABEL

    def folders(self, settings: Settings, home: Path) -> Found:
        found: dict[str, PlansRoot] = {}
        for project, how in projects_known(settings, home, _own_projects(home)):
            for hidden in FOLDERS:
                plans = project / hidden / "plans"
                if not is_folder(plans):
                    continue  # most projects: looked at with one stat, not a real path
                real = os.path.realpath(plans)
                if real in found:
                    continue
                archive = project_agent_archive(settings, project, NAME, LABEL)
                label = f"{LABEL}'s plans in {how}"
                found[real] = PlansRoot(
                    absolute(plans), label, archive.path, archive.source, store(home), project, NAME
                )
        return Found(tuple(found.values()), ())

    def root_of(self, settings: Settings, plans_dir: Path) -> PlansRoot | None:
        """A project's `.opencode/plans` a person named: its archive in the user's."""
        if not self.claims(plans_dir):
            return None
        plans_dir = absolute(plans_dir)
        project = plans_dir.parent.parent
        archive = project_agent_archive(settings, project, NAME, LABEL)
        how = f"{LABEL}'s plans of {project}"
        return PlansRoot(
            plans_dir, how, archive.path, archive.source, store(Path.home()), project, NAME
        )

    def claims(self, plans_dir: Path) -> bool:
        return plans_dir.name == "plans" and plans_dir.parent.name in FOLDERS

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        """What OpenCode's sessions in the folder's project did with its plans (the folder
        whose sessions tell is OpenCode's data folder, `claude_dir`)."""
        return read_sessions(
            settings.claude_dir / "opencode.db", settings.plans_dir, now, settings.protect_hours
        )


def store(home: Path) -> Path:
    """OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`."""
    data = os.environ.get("XDG_DATA_HOME") or str(home / ".local" / "share")
    return Path(data) / "opencode"


def _rows(db: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    """Rows of OpenCode's store, read-only (it may be writing: never a lock of ours)."""
    import sqlite3

    if not db.is_file():
        return []
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2) as connection:
            return connection.execute(query, args).fetchall()
    except sqlite3.Error:
        return []  # another version's store, or one being rebuilt: no evidence, no error


def _own_projects(home: Path) -> list[tuple[Path, str]]:
    """OpenCode's own projects and the folders its sessions ran in."""
    db = store(home) / "opencode.db"
    return [
        (Path(row[0]), f"the projects of {db}")
        for row in _rows(db, "select worktree from project union select directory from session")
        if isinstance(row[0], str) and row[0].startswith("/")
    ]


def read_sessions(db: Path, plans_dir: Path, now: datetime, protect_hours: float) -> PlanSessions:
    """Each plan of plans_dir a session of its project approved, and what it did after."""
    project = plans_dir.parent.parent
    real = os.path.realpath(plans_dir)
    sessions = _rows(
        db,
        "select id, directory, time_updated from session where directory = ? or directory = ?",
        str(project),
        os.path.realpath(project),
    )
    if not sessions:
        return NO_SESSIONS
    evidence: dict[str, SessionEvidence] = {}
    projects: dict[str, str] = {}
    in_use: dict[str, str] = {}
    presented: set[str] = set()
    for session_id, directory, updated in sessions:
        last = (updated or 0) / 1000
        parts = _rows(
            db,
            "select time_created, data from part where session_id = ? order by time_created, id",
            session_id,
        )
        shown = str(session_id).removeprefix("ses_")  # its id as reasons say it: 8 of its own
        found = _weigh(parts, Path(directory), real, shown, last)
        for plan, seen in found.items():
            presented.add(plan)
            projects[plan] = directory
            if now.timestamp() - last < protect_hours * 3600:
                in_use[plan] = shown
            if seen is not None:
                earlier = evidence.get(plan)
                if earlier is None or earlier.approved_at <= seen.approved_at:
                    evidence[plan] = seen
    return PlanSessions(
        in_use, frozenset(), evidence=evidence, projects=projects, presented=frozenset(presented)
    )


def _weigh(
    parts: list[tuple[Any, ...]], directory: Path, real_plans_dir: str, session: str, last: float
) -> dict[str, SessionEvidence | None]:
    """plan -> its latest approval in one session and the work after it (None: written or
    presented, never approved)."""
    written: dict[str, str] = {}  # plan -> the text the session last wrote
    approvals: dict[str, tuple[float, set[str], set[str]]] = {}  # at, texts, files edited
    seen: dict[str, SessionEvidence | None] = {}
    working: str | None = None
    for created, raw in parts:
        try:
            data = json.loads(raw) if isinstance(raw, str) else {}
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        if data.get("type") == "text" and data.get("synthetic"):
            match = APPROVED.match(str(data.get("text") or ""))
            if match is None:
                continue
            path = directory / match.group(1).strip()
            if os.path.realpath(path.parent) != real_plans_dir:
                continue
            plan = path.name
            seen.setdefault(plan, None)
            text = written.get(plan)
            approvals[plan] = ((created or 0) / 1000, {text_digest(text)} if text else set(), set())
            working = plan
        elif data.get("type") == "tool" and data.get("tool") in EDITS:
            state = data.get("state")
            state = state if isinstance(state, dict) else {}
            given = state.get("input")
            given = given if isinstance(given, dict) else {}
            target = given.get("filePath")
            if state.get("status") != "completed" or not isinstance(target, str):
                continue
            target_path = Path(target) if Path(target).is_absolute() else directory / target
            if os.path.realpath(target_path.parent) == real_plans_dir:
                plan = target_path.name
                seen.setdefault(plan, None)
                content = given.get("content")
                if isinstance(content, str):
                    written[plan] = content
                    if plan in approvals:
                        approvals[plan][1].add(text_digest(content))  # its own edit of its plan
            elif working is not None:
                approvals[working][2].add(os.path.realpath(target_path))
    for plan, (at, texts, files) in approvals.items():
        seen[plan] = SessionEvidence(
            session=session,
            approved_at=at,
            files_edited=len(files),
            todos=None,
            last_activity=max(last, at),
            texts=frozenset(texts),
        )
    return seen
