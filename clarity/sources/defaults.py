"""What most plan sources say alike, said once: a source class takes these and writes only
what its agent does otherwise (sources/protocol.py says what each part means)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.model import NO_SESSIONS
from clarity.plans.reader import is_plan_name

if TYPE_CHECKING:
    from clarity.model import PlanSessions, Retention
    from clarity.settings.config import Settings
    from clarity.sources import Found, PlansRoot


def users_folder(plans_dir: Path, how: str, agent: str, sessions_dir: Path) -> Found:
    """An agent's one plans folder in the user's home, as a root (its archive beside it,
    as SPEC 5 has it for a folder of the person's), or nothing where there is none."""
    from clarity.settings.locations import Origin, Source, absolute, default_archive_dir, is_folder
    from clarity.sources import Found, PlansRoot

    if not is_folder(plans_dir):
        return Found((), ())
    plans_dir = absolute(plans_dir)
    why = Source("default: beside the plans dir", Origin.DEFAULT)
    archive = default_archive_dir(plans_dir)
    return Found((PlansRoot(plans_dir, how, archive, why, sessions_dir, None, agent),), ())


class PlainSource:
    """A person's plans folder of markdown files: every `.md` there is a plan, no name
    makes a sub-plan, nothing to bring up to date before reading, a folder named by hand
    has its archive beside it, no session record read, no cleanup by age."""

    may_move = True

    def root_of(self, settings: Settings, plans_dir: Path) -> PlansRoot | None:
        return None  # its archive beside the folder a person names (SPEC 5)

    def is_plan(self, name: str) -> bool:
        return is_plan_name(name)

    def sub_plans(self, names: set[str]) -> Mapping[str, str]:
        return {}

    def prepare(self, settings: Settings) -> tuple[str, ...]:
        return ()  # its plans are files already

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        return NO_SESSIONS

    def retention(self, settings: Settings, root: PlansRoot) -> Retention | None:
        return None  # it deletes no plan by age
