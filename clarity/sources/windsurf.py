"""Windsurf's plans: judged by the text rules alone (SPEC 2.1).

What Windsurf writes (closed source: from the spec's table, SPEC 2.1): plans as markdown
files in `~/.windsurf/plans/`. clarity reads no session record of Windsurf's, so a plan
is completed by its own words (markers, status fields and tables, frontmatter status),
and the age rules do the rest. Windsurf deletes no plan by age. Its folder is a
person's: clarity may move plans out of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.model import NO_SESSIONS
from clarity.plans.reader import is_plan_name
from clarity.settings.locations import Origin, Source, absolute, default_archive_dir, is_folder
from clarity.sources import Found, PlansRoot

if TYPE_CHECKING:
    from clarity.model import PlanSessions, Retention
    from clarity.settings.config import Settings

NAME = "windsurf"


class Windsurf:
    """Windsurf's plans, as the module says."""

    name = NAME
    label = "Windsurf"
    may_move = True

    def folders(self, settings: Settings, home: Path) -> Found:
        plans = home / ".windsurf" / "plans"
        if not is_folder(plans):
            return Found((), ())
        plans = absolute(plans)
        why = Source("default: beside the plans dir", Origin.DEFAULT)
        root = PlansRoot(
            plans, "Windsurf's plans folder", default_archive_dir(plans), why, plans, None, NAME
        )
        return Found((root,), ())

    def root_of(self, settings: Settings, plans_dir: Path) -> PlansRoot | None:
        return None  # a person's folder: its archive beside it (SPEC 5)

    def claims(self, plans_dir: Path) -> bool:
        return plans_dir.name == "plans" and plans_dir.parent.name == ".windsurf"

    def is_plan(self, name: str) -> bool:
        return is_plan_name(name)

    def sub_plans(self, names: set[str]) -> Mapping[str, str]:
        return {}

    def prepare(self, settings: Settings) -> tuple[str, ...]:
        return ()  # its plans are files already

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        return NO_SESSIONS  # no session records clarity reads

    def retention(self, settings: Settings, root: PlansRoot) -> Retention | None:
        return None  # Windsurf deletes no plan by age
