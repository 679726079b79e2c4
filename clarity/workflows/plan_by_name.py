"""A plan a person (or Claude, through the MCP server) named, wherever it is: `clarity show
NAME` and MCP `get_plan` are this one lookup. Read-only.

Live first (the plans dir), then the archive (foo, foo.md, foo.2.md, 2026-Q4/foo.md),
then a plan Claude Code deleted whose text clarity kept before its cleanup
(SPEC 6.1). Its bytes are read through one descriptor, never through a link,
and at most `most` of them when the caller says so (a context is not a disk).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarity.archive.shelf import Found, find_archived, kept_named, read_archived
from clarity.errors import ClarityError
from clarity.fsio import READ_FLAGS
from clarity.model import Place
from clarity.plans.reader import is_plan_name
from clarity.settings.config import Settings


@dataclass(frozen=True, slots=True)
class NamedPlan:
    """A plan found by its name, and its bytes (the first `most` of them, if cut)."""

    where: str  # Place.LIVE, Place.ARCHIVE or Place.KEPT
    name: str  # its name in the plans dir
    path: Path
    data: bytes
    cut: bool  # the file holds more than data
    archived: Found | None = None  # the archive's record of it, when it is archived


def _read(path: Path, most: int | None) -> tuple[bytes, bool]:
    fd = os.open(path, READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file", os.fspath(path))
        parts: list[bytes] = []
        size = 0
        while most is None or size < most:
            chunk = os.read(fd, 1 << 20 if most is None else min(1 << 20, most - size))
            if not chunk:
                return b"".join(parts), False
            parts.append(chunk)
            size += len(chunk)
        return b"".join(parts), bool(os.read(fd, 1))
    finally:
        os.close(fd)


def _wanted(value: str) -> str:
    text = value.strip()
    if not text or "\0" in text:
        raise ClarityError("an empty name was given; name a plan, e.g. misty-sleeping-cherny")
    return text if text.endswith(".md") else f"{text}.md"


def plan_by_name(
    settings: Settings, value: str, most: int | None = None, *, reuse: bool = False
) -> NamedPlan:
    """The plan named `value`, live, archived or kept: in settings' plans folder, else,
    unless the person named that folder, in every other one on the machine (another
    agent's, or a session an agent deleted whose texts clarity kept). ClarityError (one
    line) if none has it, or it cannot be read. reuse: a server's (find_roots)."""
    try:
        return _in_root(settings, value, most)
    except ClarityError as error:
        if settings.sources["plans_dir"].given:
            raise
        missed = error
    from clarity.workflows.roots import find_roots, settings_for

    chosen = os.path.realpath(settings.plans_dir)
    for root in find_roots(settings, reuse=reuse).roots:
        if os.path.realpath(root.plans_dir) == chosen:
            continue
        try:
            return _in_root(settings_for(settings, root), value, most)
        except ClarityError:
            continue
    raise missed


def _in_root(settings: Settings, value: str, most: int | None) -> NamedPlan:
    wanted = _wanted(value)
    if "/" not in wanted and is_plan_name(wanted):
        path = settings.plans_dir / wanted
        try:
            data, cut = _read(path, most)
        except FileNotFoundError:
            pass  # not live: the archive may have it
        except OSError as error:
            raise ClarityError(f"cannot read {path}: {error.strerror or error}") from None
        else:
            return NamedPlan(Place.LIVE, wanted, path, data, cut)
    try:
        found = find_archived(settings.archive_dir, value)
    except ClarityError as error:
        kept = kept_named(settings.archive_dir, settings.plans_dir, value)
        if kept is None:
            raise ClarityError(
                f"no live plan {wanted} in {settings.plans_dir}; {error.message}"
            ) from None
        try:
            data, cut = _read(kept.version.path, most)
        except OSError as problem:
            raise ClarityError(
                f"cannot read the kept text {kept.version.path}: {problem.strerror or problem}"
            ) from None
        return NamedPlan(Place.KEPT, kept.name, kept.version.path, data, cut)
    if most is None:
        return NamedPlan(Place.ARCHIVE, found.name, found.path, read_archived(found), False, found)
    try:
        data, cut = _read(found.reached(), most)
    except OSError as error:
        raise ClarityError(f"cannot read {found.path}: {error.strerror or error}") from None
    return NamedPlan(Place.ARCHIVE, found.name, found.path, data, cut, found)


def record_of(plan: NamedPlan) -> dict[str, Any] | None:
    """The archive's index record of the plan, if it is archived."""
    return None if plan.archived is None else plan.archived.plan.record


def newest_plans(settings: Settings, most: int) -> list[tuple[str, str]]:
    """(name, Place.LIVE or Place.ARCHIVE) of at most `most` plans, the live ones newest first, then
    the archive's newest first; each name once (the live plan before its archived one)."""
    from clarity.archive.shelf import list_archived

    live: list[tuple[float, str]] = []
    try:
        with os.scandir(settings.plans_dir) as entries:
            for entry in entries:
                if is_plan_name(entry.name) and entry.is_file(follow_symlinks=False):
                    live.append((entry.stat(follow_symlinks=False).st_mtime, entry.name))
    except OSError:
        pass  # no plans dir: the archive may still have plans
    named = [(name, Place.LIVE) for _, name in sorted(live, reverse=True)]
    try:
        shelf = list_archived(settings.archive_dir)  # its kept plans are not listed
        named += [(plan.name, Place.ARCHIVE) for plan in shelf.plans]
    except (ClarityError, OSError):
        pass  # no archive, or one that cannot be read: the live plans are listed
    unique: dict[str, str] = {}
    for name, where in named:
        unique.setdefault(name, where)
    return list(unique.items())[:most]
