"""Plan sources: the coding agents whose plans clarity keeps, one module per agent (in the
style of doc2dash's parsers), each behind the one `PlanSource` Protocol (protocol.py)
and listed in `SOURCES` (registry.py). The core (judge, executor, archive, search,
browse, MCP) names no agent: it asks a folder's source.

A source says, for its agent:
- where its plans folders are on this machine, user-wide and per project (`folders`),
  and which files in them are plans (`is_plan`);
- how a plan's name reads: which plans are sub-plans of which (`sub_plans`);
- what its sessions say of each plan (`sessions`: Claude Code's transcripts and the
  approval ledger);
- its own cleanup, if any (`retention`: what drives keeping and the countdown);
- whether clarity may move files out of its folders (`may_move`): a person's plans
  folder, yes; an agent's session store, never (clarity keeps a copy of the text).

Adding an agent: a module here with a class that meets `PlanSource`, its name in
`SOURCES`, its fixtures and tests (docs/architecture.md walks it through).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from clarity.settings.config import Settings
    from clarity.settings.locations import Located, Source
    from clarity.sources.protocol import PlanSource


class PlansRoot(NamedTuple):
    """One plans folder a source found, and what goes with it."""

    plans_dir: Path
    source: str  # how it was found, for people
    archive_dir: Path
    archive_source: Source
    claude_dir: Path  # the config dir whose sessions tell about these plans
    project: Path | None  # the project it lies in; None for an agent's own folder
    agent: str = "claude-code"  # the PlanSource.name of the agent whose plans these are
    # The agent deleted the folder, and clarity keeps its texts (an agent's session
    # store): search, show, archived and browse still find them; scan and apply pass it by.
    gone: bool = False


class PassedOver(NamedTuple):
    """A folder that names plans, and why it is not a root."""

    path: Path
    reason: str
    gone: bool = False  # a folder the agent once worked in that is no more: said as a count


class Found(NamedTuple):
    """What a source found on this machine: its roots, and the folders it passed over."""

    roots: tuple[PlansRoot, ...]
    passed_over: tuple[PassedOver, ...]


def projects_known(
    settings: Settings, home: Path, own: Iterable[tuple[Path, str]]
) -> Iterator[tuple[Path, str]]:
    """(project, how it was found): the projects an agent's own records name (own), then
    the folders Claude Code worked in; each folder once. Where a source that
    keeps plans inside projects looks for them."""
    import os

    from clarity.transcripts.worked_in import worked_in

    every = [*own]
    for claude_dir in settings.claude_dirs:
        every += worked_in(claude_dir, home)
    seen: set[str] = set()
    for folder, how in every:
        # each name once, without a look at the disk: 20,000 projects are asked about by
        # several sources; a folder known by two names is one root all the same (its
        # caller keys what it finds by the real path)
        known = os.path.normpath(folder)
        if known not in seen:
            seen.add(known)
            yield folder, how


def project_agent_archive(settings: Settings, project: Path, agent: str, label: str) -> Located:
    """The archive of an agent's plans folder inside a project: in the user's archive (the
    configured one, else the one beside `~/.claude/plans`), `projects/<name>-<hash>-<agent>`:
    never a new folder inside the project, and apart from its Claude Code plans'."""
    from clarity.settings.locations import (
        Located,
        Origin,
        Source,
        default_archive_dir,
        project_archive_dir,
    )

    configured = settings.archive_dir if settings.sources["archive_dir"].chosen else None
    user_archive = configured or default_archive_dir(Path.home() / ".claude" / "plans")
    folder = project_archive_dir(user_archive, project)
    whose = "the configured archive" if configured is not None else "the user's archive"
    origin = Origin.CONFIG if configured is not None else Origin.DEFAULT
    return Located(
        folder.with_name(f"{folder.name}-{agent}"),
        Source(f"{whose}, for {label}'s plans of project {project}", origin),
    )


def source_of(settings: Settings) -> PlanSource:
    """The source of settings' plans folder: the one its root named (--all), else the one
    that claims the folder, the registry's last first (Claude Code, which claims any
    folder, is asked last)."""
    from clarity.sources.registry import SOURCES

    if settings.plan_source:
        return source_named(settings.plan_source)
    return next(source for source in reversed(SOURCES) if source.claims(settings.plans_dir))


def source_named(name: str) -> PlanSource:
    """The source of that name; KeyError for none."""
    from clarity.sources.registry import SOURCES

    for source in SOURCES:
        if source.name == name:
            return source
    raise KeyError(name)
