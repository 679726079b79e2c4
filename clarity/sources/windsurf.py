"""Windsurf's plans: judged by the text rules alone (SPEC 2.1).

What Windsurf writes (closed source: from the spec's table, SPEC 2.1): plans as markdown
files in `~/.windsurf/plans/`. clarity reads no session record of Windsurf's, so a plan
is completed by its own words (markers, status fields and tables, frontmatter status),
and the age rules do the rest. Windsurf deletes no plan by age. Its folder is a
person's: clarity may move plans out of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from clarity.sources import Found
from clarity.sources.defaults import PlainSource, users_folder

if TYPE_CHECKING:
    from clarity.settings.config import Settings

NAME = "windsurf"


class Windsurf(PlainSource):
    """Windsurf's plans, as the module says."""

    name = NAME
    label = "Windsurf"

    def folders(self, settings: Settings, home: Path) -> Found:
        plans = home / ".windsurf" / "plans"
        return users_folder(plans, "Windsurf's plans folder", NAME, plans.parent)

    def claims(self, plans_dir: Path) -> bool:
        return plans_dir.name == "plans" and plans_dir.parent.name == ".windsurf"
