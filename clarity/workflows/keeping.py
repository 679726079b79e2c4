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
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from clarity.archive.versions import BEFORE_CLEANUP, SEEN, keep_file, mark_before_cleanup
from clarity.fsio import read_regular, sync_filesystem, write_atomic
from clarity.model import Retention
from clarity.plans.reader import is_plan_name
from clarity.settings.config import KEEP_DAYS
from clarity.state import DirState

_SEEN_FILE = "versions-seen.json"  # plan -> the stamp of the file when its text was kept
_SEEN_MOST = 64 * 1024 * 1024


@dataclass
class Kept:
    """What a keeping pass did."""

    kept: list[str] = field(default_factory=list)  # plans a new text of which was kept
    near_cleanup: list[str] = field(default_factory=list)  # plans kept as near the cleanup now
    near_before: list[str] = field(default_factory=list)  # near it, and kept so by an earlier pass
    left: int = 0  # plans not reached before the deadline (kept next time)
    problems: list[str] = field(default_factory=list)


# size, mtime_ns, inode, ctime_ns: a same-size write whose mtime was put back (cp -p,
# rsync --inplace -t) still moves the ctime, which no one can set; and 1 once the text was
# marked as kept before Claude Code's cleanup (else 0)
Stamp = tuple[int, int, int, int, int]


def _load_seen(state: DirState) -> dict[str, Stamp]:
    try:
        data = json.loads(read_regular(state.root / _SEEN_FILE, _SEEN_MOST))
    except (OSError, ValueError, RecursionError):
        return {}  # a cache: without it, every plan is hashed once and nothing is kept twice
    seen: dict[str, Stamp] = {}
    if isinstance(data, dict):
        for name, value in data.items():
            if not isinstance(value, list) or len(value) not in (4, 5):
                continue
            if all(type(v) is int for v in value):
                near = value[4] if len(value) == 5 else 0
                seen[name] = (value[0], value[1], value[2], value[3], near)
    return seen


def keep_live_plans(
    state: DirState,
    plans_dir: Path,
    archive_dir: Path,
    now: datetime,
    *,
    retention: Retention | None,
    keep_days: float = KEEP_DAYS,
    only_near_cleanup: bool = False,
    deadline: float | None = None,
    is_plan: Callable[[str], bool] = is_plan_name,
) -> Kept:
    """Keep the text of each live plan that changed since its text was last kept.

    retention: Claude Code's cleanup of this plans dir (None: it does not reach it).
    only_near_cleanup: the session-start hook's pass, which keeps only the plans the
    cleanup is about to take. deadline: a time.monotonic() past which the rest is left
    for next time.
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
        if not is_plan(name):  # the folder's agent's rule (sources/): a README is no plan
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        stamp = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
        near = retention is not None and retention.near(info.st_mtime_ns / 1e9, moment, keep_days)
        was = seen.get(name)
        if was is not None and was[:4] == stamp and (was[4] or not near):
            if near:
                done.near_before.append(name)
            continue
        if only_near_cleanup and not near:
            continue
        if deadline is not None and time.monotonic() > deadline:
            done.left += 1
            continue
        try:
            source = BEFORE_CLEANUP if near else SEEN
            version = keep_file(archive_dir, name, plans_dir / name, source, now, durable=False)
            # A text kept already (seen a week before) is marked as near the cleanup now.
            marked = near and (
                version is not None or mark_before_cleanup(archive_dir, name, plans_dir / name, now)
            )
        except OSError as error:
            done.problems.append(
                f"the text of {name} was not kept ({error.strerror or error}); "
                "the next apply tries again"
            )
            continue
        seen[name] = (*stamp, int(marked))
        changed = True
        if version is not None:
            done.kept.append(name)
        if marked:
            done.near_cleanup.append(name)
    if done.kept or done.near_cleanup:
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


def keep_session_texts(state: DirState, archive_dir: Path, now: datetime) -> Kept:
    """Keep as versions the texts sessions presented, approved or wrote that scans set aside
    in the state folder (transcripts/texts_seen.py), each dated when the session carried
    it; those kept leave the state folder. What cannot be kept now stays for next time."""
    from clarity.transcripts.texts_seen import FOLDER, forget, read_seen

    folder = state.root / FOLDER
    done = Kept()
    seen = read_seen(folder)
    if not seen:
        return done
    kept: set[tuple[str, str]] = set()
    left = []
    for text in sorted(seen, key=lambda s: s.time):  # oldest first: numbered as they came
        try:
            moment = datetime.fromisoformat(text.time.replace("Z", "+00:00"))
            mtime_ns = int(moment.timestamp() * 1e9)
            path = folder / f"{text.sha256}.md"
            version = keep_file(
                archive_dir, text.plan, path, text.source, now, durable=False, mtime_ns=mtime_ns
            )
        except FileNotFoundError:
            continue  # its file went (kept by another run): nothing left to keep
        except (OSError, ValueError, OverflowError) as error:
            left.append(text)
            why = getattr(error, "strerror", None) or error
            done.problems.append(f"a text of {text.plan} was not kept ({why}); next time")
            continue
        kept.add((text.plan, text.sha256))
        if version is not None:
            done.kept.append(text.plan)
    if done.kept:
        try:
            sync_filesystem(archive_dir)
        except OSError as error:
            done.problems.append(f"the texts kept may not be on disk yet: {error}")
            return done  # kept again next time: the same texts, nothing twice
    forget(folder, kept, left)
    return done
