"""The OS trash: send2trash to put a plan there, the freedesktop layout to find it again.

send2trash does not say where it put a file. On freedesktop systems (Linux,
BSD) the trash is plain folders (`files/` and `info/*.trashinfo`), so clarity
finds the entry whose recorded original path and bytes match, and undo can
move it back. Elsewhere (macOS, Windows) the entry cannot be found and undo
says to restore the file by hand.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import unquote_to_bytes

from clarity.executor.moves import move_file
from clarity.fsio import hash_file


class TrashRefused(OSError):
    """The trash would not take the file; it is still where it was."""


@dataclass(frozen=True, slots=True)
class TrashedFile:
    file: Path  # <trash>/files/<name>
    info: Path  # <trash>/info/<name>.trashinfo


def send_to_trash(path: Path, sha256: str, size: int) -> TrashedFile | None:
    """Trash path; return where it went when the platform lets clarity know."""
    from send2trash import send2trash

    try:
        send2trash(os.fspath(path))
    except OSError as error:
        raise TrashRefused(
            error.errno, f"the trash refused it: {error.strerror or error}"
        ) from None
    except Exception as error:  # noqa: BLE001 - platform backends raise their own types
        raise TrashRefused(f"the trash refused it: {error}") from None
    return locate(path, sha256, size)


def freedesktop() -> bool:
    return sys.platform not in ("darwin", "win32")


def _home_trash() -> tuple[Path, Path]:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")  # noqa: PTH111 - the same spelling send2trash uses
    return Path(data_home) / "Trash", Path(data_home)


def _mount_point(path: Path) -> Path:
    current = Path(os.path.realpath(path))
    while not current.is_mount() and current != current.parent:
        current = current.parent
    return current


def trash_dirs(original: Path) -> Iterator[tuple[Path, Path]]:
    """Candidate trash folders for a file, each with the folder its relative paths start at."""
    yield _home_trash()
    top = _mount_point(original.parent)
    uid = os.getuid()
    yield top / ".Trash" / str(uid), top
    yield top / f".Trash-{uid}", top


def _candidate_names(name: str) -> Iterator[str]:
    """The names send2trash gives a file in the trash: `name`, then `base N.ext`."""
    yield name
    base, ext = os.path.splitext(name)  # noqa: PTH122 - send2trash's own split
    for counter in range(1, 10_000):
        yield f"{base} {counter}{ext}"


def _recorded_path(info: Path, topdir: Path) -> bytes | None:
    try:
        text = info.read_bytes()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(b"Path="):
            value = unquote_to_bytes(line[5:].strip())
            return value if value.startswith(b"/") else os.fsencode(topdir) + b"/" + value
    return None


def _entries(trash: Path, name: str) -> Iterator[TrashedFile]:
    files, info = trash / "files", trash / "info"
    for candidate in _candidate_names(name):
        entry = TrashedFile(files / candidate, info / f"{candidate}.trashinfo")
        if not os.path.lexists(entry.file) and not os.path.lexists(entry.info):
            break
        yield entry
    with contextlib.suppress(OSError):
        base = os.path.splitext(name)[0]  # noqa: PTH122 - send2trash's own split
        for info_name in (
            entry.name for entry in info.iterdir()
        ):  # other trash tools name files their own way
            if info_name.startswith(base) and info_name.endswith(".trashinfo"):
                yield TrashedFile(files / info_name.removesuffix(".trashinfo"), info / info_name)


def _entries_of(original: Path) -> Iterator[tuple[TrashedFile, Path]]:
    """Trash entries (and the folder their paths start at) that record `original`."""
    wanted = os.fsencode(os.path.abspath(original))  # noqa: PTH100 - no link resolving
    seen: set[Path] = set()
    for trash, topdir in trash_dirs(original):
        for entry in _entries(trash, original.name):
            if entry.info in seen:
                continue
            seen.add(entry.info)
            if _recorded_path(entry.info, topdir) == wanted:
                yield entry, topdir


def locate(
    original: Path, sha256: str, size: int, mtime_ns: int | None = None
) -> TrashedFile | None:
    """The trash entry holding these bytes from this path, if the trash can be read.

    Of several (a file trashed twice with the same bytes, or a copy a kill cut
    short before its mtime was set), the one with the file's mtime wins.
    """
    if not freedesktop():
        return None
    found: TrashedFile | None = None
    for entry, _ in _entries_of(original):
        try:
            info = entry.file.lstat()
            if info.st_size != size or hash_file(entry.file) != sha256:
                continue
        except OSError:
            continue
        if mtime_ns is None or info.st_mtime_ns == mtime_ns:
            return entry
        found = found or entry
    return found


def _deleted_at(info: Path) -> datetime | None:
    """The trash record's DeletionDate (local time, as the spec writes it)."""
    try:
        for line in info.read_bytes().splitlines():
            if line.startswith(b"DeletionDate="):
                return datetime.fromisoformat(line[13:].strip().decode("ascii"))
    except (OSError, ValueError):
        return None
    return None


def remove_strays(original: Path, since: datetime | None) -> int:
    """Remove what an interrupted trashing of `original` (still in place) left in the trash.

    send2trash writes the .trashinfo record first, then moves the file; across
    filesystems the move is a copy, which a kill can cut short. An entry is
    removed only if it records this path, was made since the run started, and
    holds nothing the source does not: its bytes are the source's, or the
    start of them, or it has no file at all. How many went.
    """
    if not freedesktop() or since is None:
        return 0
    earliest = since.astimezone().replace(tzinfo=None) - timedelta(seconds=2)
    try:
        source = original.read_bytes()
    except OSError:
        return 0
    removed = 0
    for entry, _ in _entries_of(original):
        deleted = _deleted_at(entry.info)
        if deleted is None or deleted < earliest:
            continue  # trashed before this run: someone's, not this run's copy
        try:
            if os.path.lexists(entry.file):
                if not stat.S_ISREG(entry.file.lstat().st_mode):
                    continue
                if not source.startswith(entry.file.read_bytes()):
                    continue
                entry.file.unlink()
            entry.info.unlink()
        except OSError:
            continue
        removed += 1
    return removed


def restore(entry: TrashedFile, dst: Path, sha256: str | None = None) -> None:
    """Move a trashed file back to dst (never replacing) and drop its trash record."""
    move_file(entry.file, dst, sha256)
    with contextlib.suppress(FileNotFoundError):
        entry.info.unlink()  # the record of a file no longer in the trash
