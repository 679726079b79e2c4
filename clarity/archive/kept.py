"""Plans Claude Code's cleanup deleted, whose text clarity kept before it did (SPEC 6.1).

A plan that came within `keep_days` of Claude Code's cleanup had its text kept,
and marked so, in `<archive>/versions/<name>/` (archive/versions.py). Once the
plan is neither in the plans dir nor in the archive's index, that text is all
that is left of it: `clarity archived` lists it as kept, and `clarity restore
NAME` puts it back (workflows/restoring.py). A plan clarity itself trashed or
archived, or one that was never near the cleanup, is not listed here.
Read-only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from clarity.archive.versions import Version, kept_before_cleanup, kept_plans

TEXT_BYTES = 256 * 1024  # of each kept text a query reads, at most


@dataclass(frozen=True, slots=True)
class KeptPlan:
    """A plan Claude Code deleted, and the text of it clarity kept before it did."""

    name: str  # foo.md
    version: Version  # the text, its size, sha256 and the file's mtime then
    title: str | None
    matched_in: tuple[str, ...] = ()  # where a query was found: name, title, text


def _opening(path: Path, limit: int) -> str:
    from clarity.plans.reader import NotARegularFile, read_opening

    try:
        return read_opening(path, limit)
    except (OSError, NotARegularFile):
        return ""  # gone or unreadable: no title, nothing to match


def _title(path: Path) -> str | None:
    from clarity.plans.plantext import (
        FrontmatterUnclosed,
        find_h1,
        opens_frontmatter,
        split_frontmatter,
    )

    text = _opening(path, 16 * 1024)
    if opens_frontmatter(text):
        with contextlib.suppress(FrontmatterUnclosed):  # unclosed: no title in the head
            text = split_frontmatter(text)[1]
    return find_h1(text)


def _matched_in(plan: KeptPlan, query: str) -> tuple[str, ...]:
    fields = {"name": plan.name, "title": plan.title}
    found = tuple(key for key, value in fields.items() if value and query in value.casefold())
    if found:
        return found
    return ("text",) if query in _opening(plan.version.path, TEXT_BYTES).casefold() else ()


def kept_gone(
    archive_dir: Path, plans_dir: Path, archived: Collection[str], query: str | None = None
) -> list[KeptPlan]:
    """The plans gone from plans_dir and not archived (archived: the names the index
    lists) whose text was kept before Claude Code's cleanup; newest first. With a query,
    those whose name, title or text holds it (any case)."""
    wanted = (query or "").strip().casefold()
    found = []
    for plan in _gone(archive_dir, plans_dir, archived):
        if wanted:
            where = _matched_in(plan, wanted)
            if not where:
                continue
            plan = KeptPlan(plan.name, plan.version, plan.title, where)
        found.append(plan)
    found.sort(key=lambda plan: (-plan.version.mtime_ns, plan.name))
    return found


def _gone(archive_dir: Path, plans_dir: Path, archived: Collection[str]) -> Iterator[KeptPlan]:
    for name in kept_plans(archive_dir):
        if name in archived or os.path.lexists(plans_dir / name):
            continue
        version = kept_before_cleanup(archive_dir, name)
        if version is not None:
            yield KeptPlan(name, version, _title(version.path))
