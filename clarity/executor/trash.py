"""The OS trash: clarity's own no-replace move into the freedesktop trash, and finding a
file there again.

On freedesktop systems (Linux, BSD) the trash is plain folders, and clarity
puts a plan there itself: it claims a name by creating the name's
`.trashinfo` record with O_EXCL, then moves the plan in with the same
no-replace move it uses everywhere (a verified copy across filesystems). A
taken name is passed over, never replaced: send2trash checked for a free name
and then renamed over whatever took it meanwhile, which lost a plan when two
runs trashed namesakes at once. Elsewhere (macOS, Windows) send2trash hands
the file to the system's own trash, which clarity cannot look into: undo then
says to restore the file by hand.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

from clarity.executor.alone import InUse
from clarity.executor.moves import ChangedWhileMoving, SourceKept, move_file
from clarity.executor.trash_layout import (
    Trash,
    TrashedFile,
    claim,
    deleted_at,
    entry_names,
    info_record,
    make_folders,
    recorded_path,
    release,
    trash_dirs,
    trash_for,
)
from clarity.fsio import hash_file, partial_path

__all__ = ["TrashRefused", "TrashedFile", "freedesktop", "locate", "restore", "send_to_trash"]


class TrashRefused(OSError):
    """The trash would not take the file; it is still where it was."""


def freedesktop() -> bool:
    return sys.platform not in ("darwin", "win32")


def send_to_trash(path: Path, sha256: str, size: int) -> TrashedFile | None:
    """Trash path; return where it went when the platform lets clarity know.

    Raises TrashRefused (the file stays where it was), ChangedWhileMoving, InUse or
    SourceKept.
    """
    if not freedesktop():
        _system_trash(path)
        return None
    trash = trash_for(path)
    record = info_record(path, trash, datetime.now())
    try:
        make_folders(trash)
        for name in entry_names(path.name):
            entry = trash.entry(name)
            if not claim(entry, record):
                continue
            try:
                move_file(path, entry.file, sha256)
            except FileExistsError as error:
                release(entry)
                if error.filename != os.fspath(entry.file):
                    raise  # not the trash's name that was taken
                continue  # taken since the claim, by a trasher that writes no record
            except BaseException:
                release(entry)
                raise
            return entry
    except (ChangedWhileMoving, SourceKept, InUse):
        raise
    except OSError as error:
        raise TrashRefused(
            error.errno, f"the trash refused it: {error.strerror or error}"
        ) from None
    raise TrashRefused(f"the trash refused it: every name for {path.name} is taken there")


def _system_trash(path: Path) -> None:
    from send2trash import send2trash

    try:
        send2trash(os.fspath(path))
    except OSError as error:
        raise TrashRefused(
            error.errno, f"the trash refused it: {error.strerror or error}"
        ) from None
    except Exception as error:  # noqa: BLE001 - platform backends raise their own types
        raise TrashRefused(f"the trash refused it: {error}") from None


def _entries(trash: Trash, name: str) -> Iterator[TrashedFile]:
    for candidate in entry_names(name):
        entry = trash.entry(candidate)
        if not os.path.lexists(entry.file) and not os.path.lexists(entry.info):
            break
        yield entry
    info = trash.folder / "info"
    base = os.path.splitext(name)[0]  # noqa: PTH122 - send2trash's own split
    try:
        names = [item.name for item in info.iterdir()]
    except OSError:
        return
    for info_name in names:  # other trash tools name files their own way
        if info_name.startswith(base) and info_name.endswith(".trashinfo"):
            yield trash.entry(info_name.removesuffix(".trashinfo"))


def _entries_of(original: Path) -> Iterator[TrashedFile]:
    """Trash entries that record `original`."""
    wanted = os.fsencode(os.path.abspath(original))  # noqa: PTH100 - no link resolving
    seen: set[Path] = set()
    for trash in trash_dirs(original):
        for entry in _entries(trash, original.name):
            if entry.info in seen:
                continue
            seen.add(entry.info)
            if recorded_path(entry.info, trash.topdir) == wanted:
                yield entry


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
    for entry in _entries_of(original):
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


def remove_strays(original: Path, since: datetime | None) -> int:
    """Remove what an interrupted trashing of `original` (still in place) left in the trash.

    The `.trashinfo` record is written first, then the file moved; across
    filesystems the move is a copy into a hidden partial file, which a kill
    can cut short (send2trash, before, copied straight to the entry's name).
    An entry is removed only if it records this path, was made since the run
    started, and holds nothing the source does not: its bytes are the
    source's, or the start of them, or it has no file at all. How many went.
    """
    if not freedesktop() or since is None:
        return 0
    earliest = since.astimezone().replace(tzinfo=None) - timedelta(seconds=2)
    try:
        source = original.read_bytes()
    except OSError:
        return 0
    removed = 0
    for entry in _entries_of(original):
        deleted = deleted_at(entry.info)
        if deleted is None or deleted < earliest:
            continue  # trashed before this run: someone's, not this run's copy
        try:
            for copy in (entry.file, partial_path(entry.file)):
                if os.path.lexists(copy):
                    if not _part_of(copy, source):
                        raise FileExistsError  # someone's file: the entry stays whole
                    copy.unlink()
            entry.info.unlink()
        except OSError:
            continue
        removed += 1
    return removed


def _part_of(copy: Path, source: bytes) -> bool:
    """copy is a regular file holding the source's bytes or the start of them."""
    return stat.S_ISREG(copy.lstat().st_mode) and source.startswith(copy.read_bytes())


def restore(entry: TrashedFile, dst: Path, sha256: str | None = None) -> None:
    """Move a trashed file back to dst (never replacing) and drop its trash record."""
    move_file(entry.file, dst, sha256)
    with contextlib.suppress(FileNotFoundError):
        entry.info.unlink()  # the record of a file no longer in the trash
