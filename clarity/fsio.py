"""File primitives every writer and reader shares: open flags, durable writes, hashing,
and the rename that never replaces a file.

Kept in one place so that no module opens a file, fsyncs a folder or hashes
bytes its own slightly different way.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")

_PORTABLE = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # a link swapped in is not followed
# Reading what clarity did not write: a link is not followed, a FIFO does not hang.
READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _PORTABLE
# A file that must be new: fails if anything (a file, a link) has the name.
NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _PORTABLE
# A log clarity appends to (its journals, the archive's index): never through a link.
APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _PORTABLE


class ParsedFiles(Generic[T]):
    """What files say, worked out once while each is unchanged (its device, inode, size and
    mtime): one entry a path, so a long-running reader that sees a file change keeps only
    what it says now. A file changed in the last RACY_SECONDS may change again within the
    same timestamp tick at the same size (git's "racily clean"): it is worked out again."""

    RACY_SECONDS = 2.0

    def __init__(self) -> None:
        self._known: dict[str, tuple[tuple[int, int, int, int], T]] = {}

    def get(self, path: Path, parse: Callable[[Path], T], missing: T) -> T:
        """parse(path), or what it gave while the file is as it was; missing when path
        cannot be looked at."""
        import time

        try:
            info = path.stat()
        except (OSError, ValueError):
            return missing
        stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        key = os.fspath(path)
        known = self._known.get(key)
        if (
            known is not None
            and known[0] == stamp
            and time.time() - info.st_mtime > self.RACY_SECONDS
        ):
            return known[1]
        value = parse(path)
        self._known[key] = (stamp, value)
        return value


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new name in directory durable (no-op where dirs can't be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the rename still happened
    finally:
        os.close(fd)


NAME_MAX = 255  # bytes in one name, on every filesystem clarity writes to


def cut_to(text: str, most: int) -> str:
    """text, cut at a character so that it takes at most `most` bytes as a file name does
    (a long name's suffix, or a tag, then fits NAME_MAX)."""
    while len(os.fsencode(text)) > most:
        text = text[:-1]
    return text


def _hidden_beside(path: Path, suffix: str) -> Path:
    """`.<name><suffix>` beside path, within NAME_MAX however long the name (a long one is
    cut and told apart by its hash, the same every time, so that recovery finds it)."""
    name = f".{path.name}{suffix}"
    if len(os.fsencode(name)) <= NAME_MAX:
        return path.with_name(name)
    tag = hashlib.sha256(os.fsencode(path.name)).hexdigest()[:12]
    cut = cut_to(path.name, NAME_MAX - len(f"..{tag}{suffix}"))
    return path.with_name(f".{cut}.{tag}{suffix}")


def partial_path(dst: Path) -> Path:
    """Where a cross-filesystem copy is built before it takes dst's name: hidden beside it."""
    return _hidden_beside(dst, ".clarity-partial")


def claim_path(src: Path) -> Path:
    """Where a file waits, renamed in its own folder, while it is copied to another
    filesystem: hidden beside it, so that a program that opens src by name from then on
    makes a new file there instead of writing into the one being moved."""
    return _hidden_beside(src, ".clarity-moving")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _temp_holding(path: Path, data: bytes, *, durable: bool, mode: int | None = None) -> Path:
    """data in a new hidden temp beside path (`.name.<pid>.tmp`, as sweep_temps knows it)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()  # left by a killed process that had this pid
    fd = os.open(temp, NEW_FLAGS, 0o644)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        write_all(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    return temp


def write_atomic(path: Path, data: bytes, *, durable: bool = True, mode: int | None = None) -> None:
    """Replace path with data: readers see the old file or the new one, never half.

    durable: on disk before this returns (fsync). A cache can do without.
    mode: the new file's permissions exactly (a file replaced keeps its own); else 0o644
    less the umask. A write that fails leaves no temp file behind.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temp = _temp_holding(path, data, durable=durable, mode=mode)
        temp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    if durable:
        fsync_dir(path.parent)


def write_new(names: Sequence[Path], data: bytes, *, mtime: float | None = None) -> Path:
    """data as a new file under the first of names (all in one folder) that nothing has,
    whole or not at all: written to a temp beside the first, synced, then renamed without
    replacing (a kill in between leaves only a temp that sweep_temps takes). mtime: the
    new file's. FileExistsError when every name is taken; the temp never stays."""
    temp = names[0].with_name(f".{names[0].name}.{os.getpid()}.tmp")
    try:
        temp = _temp_holding(names[0], data, durable=True)
        if mtime is not None:
            os.utime(temp, (mtime, mtime))
        for name in names:
            try:
                rename_noreplace(temp, name)
            except FileExistsError:
                continue
            fsync_dir(name.parent)
            return name
        raise FileExistsError(errno.EEXIST, "every name is taken", os.fspath(names[0]))
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()


def sweep_temps(path: Path) -> None:
    """Remove the temp files (`.name.<pid>.tmp`, as write_atomic names them) that writers
    of path left when they were killed: those of processes that are gone."""
    prefix = f".{path.name}."
    _sweep(path.parent, lambda name: name[len(prefix) : -4] if name.startswith(prefix) else "")


def sweep_folder_temps(folder: Path) -> None:
    """Remove every `.<name>.<pid>.tmp` in folder that a process now gone left (a folder
    of texts, each written beside its name first)."""

    def pid_of(name: str) -> str:
        stem, _, pid = name[:-4].rpartition(".")
        return pid if name.startswith(".") and len(stem) > 1 else ""

    _sweep(folder, pid_of)


def _sweep(folder: Path, pid_of: Callable[[str], str]) -> None:
    """Remove the `*.tmp` files in folder whose writer (the pid pid_of finds in the name)
    is gone."""
    try:
        names = [entry.name for entry in os.scandir(folder)]
    except OSError:
        return
    for name in names:
        pid = pid_of(name) if name.endswith(".tmp") else ""
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # alive (or another's process with that number): not ours to take
        except ProcessLookupError:
            pass
        except (OSError, OverflowError):
            continue
        with contextlib.suppress(OSError):
            (folder / name).unlink()


def append_durably(path: Path, data: bytes) -> None:
    """Append whole lines to a log (never through a link), on disk before returning.

    A line a kill tore is ended first, so the new lines stay whole; a write that fails
    (a full disk) leaves the file as it was.
    """
    append_lines(path, data, durable=True)
    fsync_dir(path.parent)


def append_lines(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Append whole lines to a log (never through a link); durable: on disk before
    returning, else for a batch made durable at once (sync_filesystem). A line a kill
    tore is ended first; a write that fails (a full disk) leaves the file as it was."""
    fd = os.open(path, (APPEND_FLAGS & ~os.O_WRONLY) | os.O_RDWR, 0o644)  # reads its last byte
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
            data = b"\n" + data
        try:
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        except OSError:
            # Whole lines or none: a write a full disk cut short is taken back (shrinking
            # needs no room), so no torn line is left for readers to stumble on.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, info.st_size)
                if durable:
                    os.fsync(fd)
            raise
    finally:
        os.close(fd)


def sync_filesystem(folder: Path) -> None:
    """Make every write to folder's filesystem durable at once (Linux syncfs; elsewhere
    sync): one call where a batch of files would each need an fsync."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if sys.platform == "linux":
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.syncfs(fd) == 0:
                return
        os.sync()
    finally:
        os.close(fd)


def read_regular(path: Path, limit: int | None = None, *, follow: bool = False) -> bytes:
    """A regular file's bytes, never through a link (OSError ELOOP) and never a FIFO or a
    device (OSError EINVAL); past limit bytes it is not a file clarity wrote (EFBIG).

    follow: a link is followed (a user's file kept elsewhere), still to a regular file
    only: what was opened is checked, and O_NONBLOCK keeps a FIFO from hanging the open.
    """
    fd = os.open(path, (READ_FLAGS & ~_NOFOLLOW) if follow else READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if limit is not None and info.st_size > limit:
            raise OSError(errno.EFBIG, f"{info.st_size:,} bytes, too big", os.fspath(path))
        with os.fdopen(fd, "rb", closefd=False) as stream:
            if limit is None:
                return stream.read()
            # read(n) sets n bytes aside first: ask for what fstat says (a 1 GiB limit
            # took 1 GiB for a small file), then for what it grew by, up to the limit.
            data = stream.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += stream.read(limit + 1 - len(data))
            return data
    finally:
        os.close(fd)


CHUNK = 1024 * 1024


def chunks(fd: int) -> Iterator[bytes]:
    """What the file behind fd holds now, from its start, read through fd (it may have no
    name left), a chunk at a time."""
    offset = 0
    while chunk := os.pread(fd, CHUNK, offset):
        offset += len(chunk)
        yield chunk


def hash_fd(fd: int) -> str:
    """sha256 of what the file behind fd holds now."""
    digest = hashlib.sha256()
    for chunk in chunks(fd):
        digest.update(chunk)
    return digest.hexdigest()


def copy_hashed(src_fd: int, out: int) -> tuple[str, int]:
    """Copy what src_fd's file holds into out; the sha256 and size of what was copied."""
    digest, size = hashlib.sha256(), 0
    for chunk in chunks(src_fd):
        digest.update(chunk)
        write_all(out, chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def hash_file(path: Path) -> str:
    """sha256 of a regular file's bytes; a link or a FIFO is an OSError, never followed."""
    fd = os.open(path, READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    finally:
        os.close(fd)


def same_bytes(path: Path, sha256: str) -> bool:
    try:
        return hash_file(path) == sha256
    except OSError:
        return False


# ---- rename without replacing -------------------------------------------------------

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1  # Linux renameat2
_RENAME_EXCL = 0x4  # macOS renamex_np
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}
_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK}

_NativeRename = Callable[[bytes, bytes], int]
_native: list[_NativeRename | None] = []  # looked up once, on the first move


def _load_native() -> _NativeRename | None:
    import ctypes  # only a run that moves a file pays for it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform == "darwin":
            renamex = libc.renamex_np
            renamex.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]

            def native(src: bytes, dst: bytes) -> int:
                return int(renamex(src, dst, _RENAME_EXCL))

        else:
            renameat2 = libc.renameat2
            renameat2.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]

            def native(src: bytes, dst: bytes) -> int:
                return int(renameat2(_AT_FDCWD, src, _AT_FDCWD, dst, _RENAME_NOREPLACE))

    except (OSError, AttributeError):
        return None
    return native


def _native_rename() -> _NativeRename | None:
    if not _native:
        _native.append(_load_native())
    return _native[0]


def rename_noreplace(src: Path, dst: Path) -> None:
    """Rename src to dst, failing with FileExistsError if dst exists, atomically.

    `rename` replaces silently, so a file that appears at dst between a check
    and the rename would be lost. renameat2(RENAME_NOREPLACE) (renamex_np on
    macOS) refuses in the kernel; where a filesystem lacks it, link + unlink
    refuses the same way (link fails on an existing name). A kill between the
    two leaves both names on one file: recovery sees the same bytes at both
    and removes the source.
    """
    source, target = os.fsencode(src), os.fsencode(dst)
    native = _native_rename()
    if native is not None:
        import ctypes

        if native(source, target) == 0:
            return
        code = ctypes.get_errno()
        if code not in _UNSUPPORTED:
            raise OSError(code, os.strerror(code), os.fspath(dst) if code == errno.EEXIST else src)
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError as error:
        if error.errno not in _NO_HARD_LINKS:
            raise
        # No hard links here (FAT, some network shares): the last resort checks,
        # then renames. A writer racing this exact instant could still lose.
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fspath(dst)) from None
        src.rename(dst)
        return
    src.unlink()


def move_aside(path: Path, suffix: str, most: int = 1000) -> Path:
    """Rename path to the first free name of `name<suffix>`, `name<suffix>.2`, ...: an
    earlier one (a backup of the user's text, a damaged journal) is never replaced."""
    for number in range(1, most + 1):
        aside = path.with_name(path.name + suffix + ("" if number == 1 else f".{number}"))
        try:
            rename_noreplace(path, aside)
        except FileExistsError:
            continue
        return aside
    raise FileExistsError(
        errno.EEXIST, f"{most} files named {path.name}{suffix}... are there already", str(path)
    )
