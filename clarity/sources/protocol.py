"""The one Protocol every plan source meets (the package's docstring says what each part is
for). Read by the type checker: a source is any class with these members, and the
registry's `SOURCES` is typed with it, so a source that lacks one fails mypy."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from clarity.model import PlanSessions, Retention
    from clarity.settings.config import Settings
    from clarity.sources import Found, PlansRoot


class PlanSource(Protocol):
    """One coding agent's plans, as clarity reads them (see the module)."""

    @property
    def name(self) -> str:
        """Its name in JSON, in `clarity roots` and in options: `claude-code`."""
        ...

    @property
    def label(self) -> str:
        """Its name in prose: `Claude Code`."""
        ...

    @property
    def may_move(self) -> bool:
        """Whether clarity may move files out of its folders (archive, trash)."""
        ...

    def folders(self, settings: Settings, home: Path) -> Found:
        """Every plans folder of this agent on the machine, each real folder once."""
        ...

    def root_of(self, settings: Settings, plans_dir: Path) -> PlansRoot | None:
        """A folder of its own a person named, as `folders` finds it (its archive, the
        folder its sessions are in); None: read as SPEC 2 reads a named folder."""
        ...

    def claims(self, plans_dir: Path) -> bool:
        """Whether a folder a person named is plainly this agent's (`.cursor/plans`)."""
        ...

    def is_plan(self, name: str) -> bool:
        """Whether a file of that name in one of its folders is a plan."""
        ...

    def sub_plans(self, names: set[str]) -> Mapping[str, str]:
        """Each sub-plan among names, mapped to its root parent (plain plans are absent)."""
        ...

    def prepare(self, settings: Settings) -> tuple[str, ...]:
        """Bring settings' plans folder up to date with the agent's own records before it
        is read (Codex: its plans extracted from the rollouts, into clarity's own folder);
        the lines to say. Most agents write their plans as files: nothing to do."""
        ...

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        """What its sessions say about the plans of settings' plans folder, as of now."""
        ...

    def retention(self, settings: Settings, root: PlansRoot) -> Retention | None:
        """Its own cleanup of a root's plans (None: it deletes none by age)."""
        ...
