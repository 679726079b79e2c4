"""Moving one file without ever replacing another or losing a byte.

Within one filesystem a move is a rename. Across filesystems (EXDEV) it is a
copy into a hidden partial file beside the destination, fsync, a re-read that
must hash the same, the partial renamed into place, and only then the source
unlinked. A kill at any point leaves the source, or a verified copy, or both
(which recovery settles): never neither.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from clarity import fsio
from clarity.fsio import (
    NEW_FLAGS,
    READ_FLAGS,
    fsync_dir,
    hash_file,
    partial_path,
    write_all,
)

if TYPE_CHECKING:
    from clarity.executor.records import Intent

CHUNK = 1024 * 1024


class ChangedWhileMoving(OSError):
    """The bytes copied are not the bytes the scan hashed: the copy is dropped."""


class SourceKept(OSError):
    """The source's folder would not let the file go (a read-only plans dir): it stays
    where it was (a copy made across filesystems is taken back). Its filename is the
    source's, so the line names the folder that refused."""


_REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)


def error_text(error: OSError, dst: Path | None = None) -> str:
    """A failed move as a result line: what went wrong, and on which file; refused for
    permissions where it was going, the folder it could not write in (not the plan's
    fault, and the plan's own path would point at the wrong place)."""
    if isinstance(error, SourceKept):
        return f"cannot write in {Path(error.filename).parent}: {error.strerror}"
    if dst is not None and error.errno in _REFUSED:
        return f"cannot write in {dst.parent}: {error.strerror}"
    text = error.strerror or str(error)
    return f"{text}: {error.filename}" if error.filename and error.strerror else text


def move_file(src: Path, dst: Path, sha256: str | None = None) -> None:
    """Move src to dst, never replacing a file there. Raises OSError (FileExistsError
    if dst is taken); src is then untouched."""
    try:
        fsio.rename_noreplace(src, dst)  # looked up here: tests wrap the system call
        return
    except OSError as error:
        if error.errno in _REFUSED and not os.access(src.parent, os.W_OK):
            # Which folder refused is the line's news: here the source's, not dst's.
            raise SourceKept(error.errno, error.strerror, os.fspath(src)) from None
        if error.errno != errno.EXDEV:
            raise
    _copy_then_unlink(src, dst, sha256)


def _copy(src_fd: int, partial: Path) -> tuple[str, os.stat_result]:
    info = os.fstat(src_fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    digest = hashlib.sha256()
    out = os.open(partial, NEW_FLAGS, 0o600)
    try:
        while chunk := os.read(src_fd, CHUNK):
            digest.update(chunk)
            write_all(out, chunk)
        os.fsync(out)
    finally:
        os.close(out)
    return digest.hexdigest(), info


def _copy_then_unlink(src: Path, dst: Path, sha256: str | None) -> None:
    partial = partial_path(dst)
    src_fd = os.open(src, READ_FLAGS)
    try:
        digest, info = _copy(src_fd, partial)
        if sha256 is not None and digest != sha256:
            raise ChangedWhileMoving(errno.EAGAIN, "the file changed while it was being moved")
        if hash_file(partial) != digest:
            raise OSError(errno.EIO, "the copy did not read back the same; source kept")
        partial.chmod(stat.S_IMODE(info.st_mode))
        os.utime(partial, ns=(info.st_atime_ns, info.st_mtime_ns))
        fsio.rename_noreplace(partial, dst)
    except BaseException:
        _discard(partial)
        raise
    finally:
        os.close(src_fd)
    fsync_dir(dst.parent)
    try:
        src.unlink()  # the verified copy is durable under dst: the move is complete
    except OSError as error:
        _take_back(dst)  # a copy nobody knows of yet; the source stays the plan
        raise SourceKept(error.errno, error.strerror or str(error), os.fspath(src)) from None
    fsync_dir(src.parent)


def _take_back(copy: Path) -> None:
    # If this fails too, both hold the same bytes: recovery keeps one (the destination).
    with contextlib.suppress(OSError):
        copy.unlink()
        fsync_dir(copy.parent)


def _discard(partial: Path) -> None:
    # If this fails, recovery removes the leftover partial next time; the source is intact.
    with contextlib.suppress(OSError):
        partial.unlink()


def is_the_file(path: Path, intent: Intent) -> bool:
    """Whether path holds, as a regular file, the bytes a journaled move was about."""
    try:
        info = os.lstat(path)
        return (
            stat.S_ISREG(info.st_mode)
            and info.st_size == intent.size
            and hash_file(path) == intent.sha256
        )
    except OSError:
        return False


def keep_mtime(path: Path, mtime_ns: int | None) -> None:
    """A file put back has the mtime it had when it was moved (a trash copy may not)."""
    if mtime_ns is None:
        return
    info = os.lstat(path)
    if info.st_mtime_ns != mtime_ns:
        os.utime(path, ns=(info.st_atime_ns, mtime_ns), follow_symlinks=False)
