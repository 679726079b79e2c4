"""The freedesktop trash as folders: which trash a file goes to, the names of its entries,
and the `.trashinfo` record that claims a name.

The freedesktop.org Trash specification: a trash is `files/` and `info/`; a
file trashed as `N` is `files/N` with its record `info/N.trashinfo`
(`Path=` where it came from, `DeletionDate=` in local time). A name is
claimed by creating its record with O_EXCL, so two trashers (two clarity
runs on two plans dirs, or a file manager) never take the same name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote_from_bytes, unquote_to_bytes

from clarity.fsio import NAME_MAX, NEW_FLAGS, cut_to, sweep_temps, write_all

INFO_SUFFIX = ".trashinfo"
MOST_NAMES = 10_000  # `name`, then `name 1` ... `name 9999`


@dataclass(frozen=True, slots=True)
class TrashedFile:
    file: Path  # <trash>/files/<name>
    info: Path  # <trash>/info/<name>.trashinfo


@dataclass(frozen=True, slots=True)
class Trash:
    folder: Path  # holds files/ and info/
    topdir: Path  # where the relative paths of its records start

    def entry(self, name: str) -> TrashedFile:
        info = self.folder / "info" / (name + INFO_SUFFIX)
        return TrashedFile(self.folder / "files" / name, info)


def home_trash() -> Trash:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")  # noqa: PTH111 - the spelling send2trash and the spec use
    return Trash(Path(data_home) / "Trash", Path(data_home))


def mount_point(path: Path) -> Path:
    current = Path(os.path.realpath(path))
    while not current.is_mount() and current != current.parent:
        current = current.parent
    return current


def trash_dirs(original: Path) -> Iterator[Trash]:
    """Every trash a file from original's folder may be in: the home trash, then its
    filesystem's own (`$topdir/.Trash/$uid`, `$topdir/.Trash-$uid`)."""
    yield home_trash()
    top = mount_point(original.parent)
    uid = os.getuid()
    yield Trash(top / ".Trash" / str(uid), top)
    yield Trash(top / f".Trash-{uid}", top)


def trash_for(path: Path) -> Trash:
    """The trash a file goes to, as send2trash chose it before clarity did its own moves:
    the home trash for a file on the home's filesystem, else its own filesystem's trash,
    else (none can be made there) the home trash, reached by a verified copy."""
    home = home_trash()
    try:
        device = os.lstat(path).st_dev
        if device == Path("~").expanduser().resolve().stat().st_dev:  # as send2trash decides
            return home
    except OSError:
        return home
    top = mount_point(path.parent)
    shared = top / ".Trash"
    with contextlib.suppress(OSError):
        info = os.lstat(shared)
        if stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX:  # the spec's checks
            own = Trash(shared / str(os.getuid()), top)
            if _usable(own.folder, device):
                return own
    fallback = Trash(top / f".Trash-{os.getuid()}", top)
    return fallback if _usable(fallback.folder, device) else home


def _usable(folder: Path, device: int) -> bool:
    """folder is (or is now made) a real folder of ours on that filesystem, never a link."""
    with contextlib.suppress(FileExistsError, OSError):
        folder.mkdir(mode=0o700)
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and info.st_dev == device
        and os.access(folder, os.W_OK)
    )


def _fit(base: str, tail: str) -> str:
    """base + tail, base cut (at a character) so that the record's name fits NAME_MAX."""
    return cut_to(base, NAME_MAX - len(os.fsencode(tail + INFO_SUFFIX))) + tail


def entry_names(name: str) -> Iterator[str]:
    """The names a file gets in the trash, in order: `name`, then `base N.ext`
    (send2trash's and most trashers' way), each short enough for its record."""
    base, ext = os.path.splitext(name)  # noqa: PTH122 - send2trash's own split
    if len(os.fsencode(ext)) > 32:
        base, ext = name, ""  # no real extension: the whole name is the base
    yield _fit(base, ext)
    for counter in range(1, MOST_NAMES):
        yield _fit(base, f" {counter}{ext}")


def info_record(original: Path, trash: Trash, when: datetime) -> bytes:
    """A `.trashinfo` record: the path absolute in the home trash, relative to the
    filesystem's top in its own trash; percent-encoded, as the spec says."""
    raw = os.fsencode(os.path.abspath(original))  # noqa: PTH100 - no link resolving
    if trash != home_trash():
        top = os.fsencode(trash.topdir).rstrip(b"/") + b"/"
        if raw.startswith(top):
            raw = raw[len(top) :]
    stamp = when.astimezone().strftime("%Y-%m-%dT%H:%M:%S")
    lines = ["[Trash Info]", f"Path={quote_from_bytes(raw)}", f"DeletionDate={stamp}", ""]
    return "\n".join(lines).encode()


def claim(entry: TrashedFile, record: bytes) -> bool:
    """Take the entry's name by putting its record there whole, never replacing one: False
    if the name is someone's already. OSError if the trash cannot be written.

    The record is written beside it first and linked into place (link fails on a name
    taken), so a kill never leaves a record half written: an empty one names no file,
    and nothing could tell whose it was. Where the filesystem has no hard links, it is
    created in place (O_EXCL) and written.
    """
    temp = _claim_temp(entry)
    try:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()  # this process's own, or one a killed process with its pid left
        _write_new(temp, record)
        try:
            os.link(temp, entry.info, follow_symlinks=False)
        except FileExistsError:
            return False
        except OSError as error:
            if error.errno not in _NO_HARD_LINKS:
                raise
            try:
                _write_new(entry.info, record)
            except FileExistsError:
                return False
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
    if os.path.lexists(entry.file):  # a file some other trasher put there without a record
        release(entry)
        return False
    return True


_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK}
_swept: set[Path] = set()  # info folders whose leftover claims this process removed


def _claim_temp(entry: TrashedFile) -> Path:
    """Where this process writes a record before it takes its name: one name per process
    (a kill leaves at most one, removed by the next run)."""
    base = entry.info.with_name("clarity-claim")
    if base.parent not in _swept:
        sweep_temps(base)
        _swept.add(base.parent)
    return base.with_name(f".{base.name}.{os.getpid()}.tmp")


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, NEW_FLAGS, 0o600)
    try:
        write_all(fd, data)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    os.close(fd)


def release(entry: TrashedFile) -> None:
    """Give back a name claimed for a file that did not go there."""
    with contextlib.suppress(OSError):
        entry.info.unlink()


def make_folders(trash: Trash) -> None:
    for folder in (trash.folder, trash.folder / "files", trash.folder / "info"):
        try:
            folder.mkdir(mode=0o700, parents=folder == trash.folder)
        except FileExistsError:
            if not folder.is_dir():
                raise NotADirectoryError(
                    errno.ENOTDIR, "not a folder where the trash should be", str(folder)
                ) from None


def recorded_path(info: Path, topdir: Path) -> bytes | None:
    """Where a record says its file came from (absolute), if it says."""
    try:
        text = info.read_bytes()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(b"Path="):
            value = unquote_to_bytes(line[5:].strip())
            return value if value.startswith(b"/") else os.fsencode(topdir) + b"/" + value
    return None


def deleted_at(info: Path) -> datetime | None:
    """The record's DeletionDate (local time, as the spec writes it)."""
    try:
        for line in info.read_bytes().splitlines():
            if line.startswith(b"DeletionDate="):
                return datetime.fromisoformat(line[13:].strip().decode("ascii"))
    except (OSError, ValueError):
        return None
    return None
