"""Keeping every text of the live plans (SPEC 6.1): the pass that runs whenever clarity
writes anything (apply, archive, the weekly run, the session-start hook).

Each plan in the plans dir whose file changed since the text last kept of it
(by size, mtime, inode and ctime: a file unchanged is not read) has its text kept as a
version in the archive (archive/versions.py), unless that text is kept already.
A plan within `keep_days` of Claude Code's cleanup is marked so: once Claude
Code deletes it, `clarity archived` lists it as kept. The live files are only
read; nothing here writes in the plans directory. What cannot be kept (a full
disk, a file that vanished) is said in a line and tried again next time.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from clarity.archive.versions import BEFORE_CLEANUP, SEEN, keep_file
from clarity.fsio import read_regular, sync_filesystem, write_atomic
from clarity.plans.reader import is_plan_name
from clarity.state import DirState

KEEP_DAYS = 7.0  # a plan this close to Claude Code's cleanup is kept as such
_SEEN_FILE = "versions-seen.json"  # plan -> the stamp of the file when its text was kept
_SEEN_MOST = 64 * 1024 * 1024


@dataclass
class Kept:
    """What a keeping pass did."""

    kept: list[str] = field(default_factory=list)  # plans a new text of which was kept
    near_cleanup: list[str] = field(default_factory=list)  # of those, kept before the cleanup
    left: int = 0  # plans not reached before the deadline (kept next time)
    problems: list[str] = field(default_factory=list)


# size, mtime_ns, inode, ctime_ns: a same-size write whose mtime was put back (cp -p,
# rsync --inplace -t) still moves the ctime, which no one can set
Stamp = tuple[int, int, int, int]


def _load_seen(state: DirState) -> dict[str, Stamp]:
    try:
        data = json.loads(read_regular(state.root / _SEEN_FILE, _SEEN_MOST))
    except (OSError, ValueError, RecursionError):
        return {}  # a cache: without it, every plan is hashed once and nothing is kept twice
    seen: dict[str, Stamp] = {}
    if isinstance(data, dict):
        for name, value in data.items():
            if isinstance(value, list) and len(value) == 4 and all(type(v) is int for v in value):
                seen[name] = (value[0], value[1], value[2], value[3])
    return seen


def keep_live_plans(
    state: DirState,
    plans_dir: Path,
    archive_dir: Path,
    now: datetime,
    *,
    cleanup_days: float | None,
    keep_days: float = KEEP_DAYS,
    only_near_cleanup: bool = False,
    deadline: float | None = None,
) -> Kept:
    """Keep the text of each live plan that changed since its text was last kept.

    cleanup_days: Claude Code's cleanupPeriodDays for this plans dir (None: its cleanup
    does not reach it). only_near_cleanup: the session-start hook's pass, which keeps
    only the plans the cleanup is about to take. deadline: a time.monotonic() past which
    the rest is left for next time.
    """
    done = Kept()
    seen = _load_seen(state)
    changed = False
    try:
        entries = list(os.scandir(plans_dir))
    except OSError as error:
        done.problems.append(f"cannot list {plans_dir}: {error.strerror or error}")
        return done
    moment = now.timestamp()
    for entry in sorted(entries, key=lambda e: e.name):
        name = entry.name
        if not is_plan_name(name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        stamp = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
        if seen.get(name) == stamp:
            continue
        age_days = (moment - info.st_mtime_ns / 1e9) / 86400
        near = cleanup_days is not None and age_days >= cleanup_days - keep_days
        if only_near_cleanup and not near:
            continue
        if deadline is not None and time.monotonic() > deadline:
            done.left += 1
            continue
        try:
            source = BEFORE_CLEANUP if near else SEEN
            version = keep_file(archive_dir, name, plans_dir / name, source, now, durable=False)
        except OSError as error:
            done.problems.append(
                f"the text of {name} was not kept ({error.strerror or error}); "
                "the next apply tries again"
            )
            continue
        seen[name] = stamp
        changed = True
        if version is not None:
            done.kept.append(name)
            if near:
                done.near_cleanup.append(name)
    if done.kept:
        try:  # the texts on disk, every one, before the stamps say they are kept
            sync_filesystem(archive_dir)
        except OSError as error:
            done.problems.append(f"the texts kept may not be on disk yet: {error}")
            return done
    if changed:
        present = {entry.name for entry in entries}
        data = {name: list(value) for name, value in seen.items() if name in present}
        with contextlib.suppress(OSError):
            write_atomic(state.root / _SEEN_FILE, json.dumps(data).encode(), durable=False)
    return done
