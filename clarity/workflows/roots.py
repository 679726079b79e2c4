"""Every plans folder on the machine (SPEC 2, `clarity roots`, `--all`), and one use case
run over each of them.

A root is a plans folder with what goes with it: its archive, its agent and the folder
whose sessions tell about its plans, the project it belongs to, and how it was found.
Each plan source finds its own (sources/: Claude Code's are the plans dir a person set,
every config dir's `plans`, and every project's `plansDirectory`), in the order the
registry lists the sources.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from clarity.behind import LastFound
from clarity.errors import ClarityError
from clarity.settings.locations import Origin, Source
from clarity.sources import PassedOver as PassedOver
from clarity.sources import PlansRoot as PlansRoot

if TYPE_CHECKING:
    from clarity.settings.config import Settings

T = TypeVar("T")


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


ROOTS_REUSE_SECONDS = 60.0  # a long-running server's roots: a folder set up since shows within it


def find_roots(settings: Settings, home: Path | None = None, *, reuse: bool = False) -> Roots:
    """Every plans folder on the machine, of every source (sources/registry.py), each real
    folder once: the first source to find it owns it. reuse: a long-running server (MCP,
    browse) answering again and again answers from what it found last; a finding older
    than ROOTS_REUSE_SECONDS is made again behind its callers (20,000 projects take a
    second or more to look at), so that only its first call waits on one."""
    home = home if home is not None else Path.home()
    if not reuse:
        return _find_roots(settings, home)
    key = (
        os.fspath(home),
        settings.claude_dirs,
        settings.plans_dir,
        settings.archive_dir,
        settings.sources["plans_dir"].chosen,
        settings.sources["archive_dir"].chosen,
        settings.only_agent,
    )
    return _FOUND.get(key, lambda: _find_roots(settings, home), within=ROOTS_REUSE_SECONDS)


_FOUND: LastFound[Roots] = LastFound("roots")  # one server asks with one settings


def _find_roots(settings: Settings, home: Path) -> Roots:
    from clarity.sources.registry import SOURCES

    roots: dict[str, PlansRoot] = {}
    passed: list[PassedOver] = []
    for source in SOURCES:
        if settings.only_agent and source.name != settings.only_agent:
            continue
        found = source.folders(settings, home)
        for root in found.roots:
            roots.setdefault(os.path.realpath(root.plans_dir), root)
        passed += found.passed_over
    return Roots(tuple(roots.values()), tuple(passed))


def archives_on_this_machine(settings: Settings) -> list[Path]:
    """Every archive folder of every plans folder clarity finds, each once (one inside
    another listed is left out: removing the outer removes it)."""
    found = sorted(
        {root.archive_dir for root in find_roots(settings).roots} | {settings.archive_dir}
    )
    outer: list[Path] = []
    for folder in found:
        if not any(folder.is_relative_to(kept) for kept in outer):
            outer.append(folder)
    return outer


def only_agent(settings: Settings, name: str | None) -> Settings:
    """The settings narrowed to one agent's plans folders (`--from NAME`); a ClarityError
    naming the agents clarity knows when it knows no such one."""
    if name is None:
        return settings
    from clarity.sources.registry import SOURCES

    names = [source.name for source in SOURCES]
    if name not in names:
        raise ClarityError(f"--from {name!r}: no such agent; clarity knows {', '.join(names)}")
    return settings._replace(only_agent=name)


def settings_for(settings: Settings, root: PlansRoot) -> Settings:
    """The settings of one root: its folders, its agent and the folder its sessions are in,
    the rest as given."""
    from clarity.sources import source_named

    return settings._replace(
        plans_dir=root.plans_dir,
        archive_dir=root.archive_dir,
        claude_dir=root.claude_dir,
        plan_source=root.agent,
        plans_gone=root.gone,
        retention=source_named(root.agent).retention(settings, root),
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


def of_its_agent(settings: Settings) -> Settings:
    """The settings of a plans folder a person named (an option, the environment) that is
    plainly another agent's: its archive and sessions as that agent's source has them,
    where the person did not name an archive (an agent's session store never gets one
    beside it: clarity writes nothing there)."""
    if not settings.sources["plans_dir"].given or settings.sources["archive_dir"].chosen:
        return settings
    from clarity.sources import source_of

    root = source_of(settings).root_of(settings, settings.plans_dir)
    if root is None:
        return settings
    named = settings_for(settings, root)
    return named._replace(sources={**named.sources, "plans_dir": settings.sources["plans_dir"]})


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
