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
import sys
from collections.abc import Iterator
from dataclasses import dataclass
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


def locate(original: Path, sha256: str, size: int) -> TrashedFile | None:
    """The trash entry holding these bytes from this path, if the trash can be read."""
    if not freedesktop():
        return None
    wanted = os.fsencode(os.path.abspath(original))  # noqa: PTH100 - no link resolving
    seen: set[Path] = set()
    for trash, topdir in trash_dirs(original):
        for entry in _entries(trash, original.name):
            if entry.info in seen:
                continue
            seen.add(entry.info)
            if _recorded_path(entry.info, topdir) != wanted:
                continue
            try:
                if entry.file.lstat().st_size != size or hash_file(entry.file) != sha256:
                    continue
            except OSError:
                continue
            return entry
    return None


def restore(entry: TrashedFile, dst: Path) -> None:
    """Move a trashed file back to dst (never replacing) and drop its trash record."""
    move_file(entry.file, dst)
    with contextlib.suppress(FileNotFoundError):
        entry.info.unlink()  # the record of a file no longer in the trash
