"""The walk of Claude Code's projects folder: every transcript, in one order, from a point.

The order (walk_key) is the one quiet.txt keeps its lines in, so a scan merges
the two a transcript at a time; within a folder a session's transcript comes
before its sub-agents' (whose tool calls are read only once their session is
known to use a plan). A walk may start where a scan cut short stopped (Stop).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NamedTuple


class Stop(NamedTuple):
    """Where a walk was cut short: at a transcript, or just after it."""

    relative: str
    after: bool = False


WalkKey = tuple[tuple[int, int, str], ...]


def walk_key(relative: str) -> WalkKey:
    """Where a path comes in the walk: in each folder its files (sessions, then agents')
    before its sub-folders, each kind by name."""
    *folders, name = relative.split("/")
    key = [(1, 0, folder) for folder in folders]
    key.append((0, int(name.startswith("agent-")), name))
    return tuple(key)


def walk(projects_dir: str, start: Stop | None = None) -> Iterator[tuple[str, str, os.stat_result]]:
    """(relative path, path, stat) of every `*.jsonl` under projects_dir, in walk_key
    order, from start on (None: from the first); links are not followed, an unreadable
    folder is passed over."""
    first = None if start is None else walk_key(start.relative)
    skip = None if start is None or not start.after else start.relative
    stack: list[tuple[str, str, WalkKey]] = [("", projects_dir, ())]
    while stack:
        relative, folder, prefix = stack.pop()
        files: list[tuple[int, str, os.DirEntry[str]]] = []
        folders: list[tuple[str, str]] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            folders.append((entry.name, entry.path))
                        elif entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                            agent = int(entry.name.startswith("agent-"))
                            if first is not None and (*prefix, (0, agent, entry.name)) < first:
                                continue  # before where this walk starts
                            files.append((agent, entry.name, entry))
                    except OSError:
                        continue  # gone or unreadable meanwhile: Claude Code's, not ours
        except OSError:
            continue
        files.sort(key=lambda item: item[:2])
        for _, name, entry in files:  # each stat'ed as it comes: a walk cut short goes on
            if relative + name == skip:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield relative + name, entry.path, info
        below = []
        for name, path in sorted(folders):
            key: WalkKey = (*prefix, (1, 0, name))
            if first is not None and key < first[: len(key)]:
                continue  # all of it comes before where this walk starts
            below.append((f"{relative}{name}/", path, key))
        stack.extend(reversed(below))  # popped in name order
