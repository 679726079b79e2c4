"""Plans dirs as dict trees on a real filesystem (after organize's make_files / read_files),
their ages from a fixed NOW, and what lies under a folder afterwards."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
NOW_ISO = NOW.isoformat()
DAY = 86400.0


@dataclass(frozen=True)
class Plan:
    """A file to lay out: its content and how many days before NOW it was modified."""

    content: str | bytes = ""
    age_days: float = 0.0


Tree = Mapping[str, "str | bytes | Plan | Tree"]


def make_files(root: Path, tree: Tree, now: datetime = NOW) -> Path:
    """Lay out a dict tree under root: dicts are folders, strings/bytes/Plans are files."""
    root.mkdir(parents=True, exist_ok=True)
    for name, spec in tree.items():
        path = root / name
        if isinstance(spec, Mapping):
            make_files(path, spec, now)
            continue
        plan = spec if isinstance(spec, Plan) else Plan(spec)
        data = plan.content.encode() if isinstance(plan.content, str) else plan.content
        path.write_bytes(data)
        mtime = now.timestamp() - plan.age_days * DAY
        os.utime(path, (mtime, mtime))
    return root


def read_files(root: Path) -> dict[str, bytes]:
    """Every file under root, by path relative to root."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def snapshot(root: Path) -> dict[str, tuple[bytes | str, int]]:
    """Names, bytes (or link targets) and mtimes of everything under root."""
    state: dict[str, tuple[bytes | str, int]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            state[str(path.relative_to(root))] = (str(path.readlink()), info.st_mtime_ns)
        elif path.is_file():
            state[str(path.relative_to(root))] = (path.read_bytes(), info.st_mtime_ns)
        else:
            state[str(path.relative_to(root))] = ("<dir>", info.st_mtime_ns)
    return state


def trash_files(home: Path) -> Path:
    """The freedesktop home trash's files/ folder for the isolated home."""
    return home / ".local" / "share" / "Trash" / "files"


VERSIONS = "versions"  # the archive's folder of kept texts (clarity/archive/versions.py)


def quarters_of(archive: Path) -> list[Path]:
    """The archive's quarter folders (its folder of kept versions is not one)."""
    if not archive.is_dir():
        return []
    return [folder for folder in archive.iterdir() if folder.is_dir() and folder.name != VERSIONS]


def contents(*roots: Path) -> Counter[bytes]:
    """How many copies of each file's bytes lie anywhere under the roots; an archive's
    kept versions (copies of texts, never a plan's home) are not counted."""
    found: Counter[bytes] = Counter()
    for root in roots:
        for path in root.rglob("*"):
            if VERSIONS in path.relative_to(root).parts[:-1]:
                continue
            if path.is_file() and not path.is_symlink():
                found[path.read_bytes()] += 1
    return found


TICK = 0.02  # longer than the coarsest kernel timestamp tick (10 ms at HZ=100)


def not_a_file(target: Path, kind: str) -> None:
    """Put at target what a state file must never be read as: a FIFO (a reader waits for
    ever), a link to /dev/zero (a read never ends) or a link to itself (a loop)."""
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "zero":
        target.symlink_to("/dev/zero")
    else:
        target.symlink_to(target.name)
