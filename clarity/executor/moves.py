"""Moving one file without ever replacing another or losing a byte.

Within one filesystem a move is a rename. Across filesystems (EXDEV) the
source is first renamed aside in its own folder (`claim_path`) and, on Linux,
held alone under a lease (alone.py); then copied into a hidden partial file
beside the destination, fsync, a re-read that must hash the same, the partial
renamed into place, the source checked once more, and only then unlinked. A
write that lands meanwhile sends the file back to its name and the copy away.
A kill at any point leaves the source (or its claim), or a verified copy, or
both (which recovery settles): never neither.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from clarity import fsio
from clarity.executor.alone import InUse, Lease, held_alone
from clarity.fsio import (
    NEW_FLAGS,
    READ_FLAGS,
    chunks,
    claim_path,
    copy_hashed,
    fsync_dir,
    hash_fd,
    hash_file,
    partial_path,
    write_all,
)

if TYPE_CHECKING:
    from clarity.executor.records import Intent


class ChangedWhileMoving(OSError):
    """The bytes copied are not the bytes the scan hashed: the copy is dropped."""


CHANGED = "changed while it was being moved; left in place (scan again to review it)"


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


def copy_file(src: Path, dst: Path, sha256: str, mtime_ns: int) -> None:
    """A verified copy of src as a new file at dst (never replacing one there), with this
    mtime; src stays as it is. Raises OSError (ChangedWhileMoving: src does not hold
    sha256; nothing is left at dst)."""
    fd = os.open(src, READ_FLAGS)
    try:
        _copy_into_place(fd, dst, sha256)
    finally:
        os.close(fd)
    keep_mtime(dst, mtime_ns)


def _copy(src_fd: int, partial: Path) -> tuple[str, os.stat_result]:
    info = os.fstat(src_fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    out = os.open(partial, NEW_FLAGS, 0o600)
    try:
        digest, _ = copy_hashed(src_fd, out)
        os.fsync(out)
    finally:
        os.close(out)
    return digest, info


def _copy_then_unlink(src: Path, dst: Path, sha256: str | None) -> None:
    """The move across filesystems. The source is first renamed aside in its own folder
    (claim_path), so a program that opens it by name from then on makes a new file there;
    it is held alone (alone.py) where the system allows, and in any case checked again
    after the copy and after the unlink: a write that landed sends it back, never away."""
    claim = claim_path(src)
    try:
        fsio.rename_noreplace(src, claim)  # one folder: atomic, never EXDEV
    except OSError as error:
        if error.errno in _REFUSED:  # a read-only plans dir: the file cannot leave it
            raise SourceKept(error.errno, error.strerror, os.fspath(src)) from None
        raise
    try:
        _copy_claimed(claim, src, dst, sha256)
    except BaseException:
        if os.path.lexists(claim):  # not if it went after all (its newer text went back)
            put_back(claim, src)
        raise
    fsync_dir(src.parent)


def _copy_claimed(claim: Path, src: Path, dst: Path, sha256: str | None) -> None:
    fd = os.open(claim, READ_FLAGS)
    try:
        with held_alone(fd) as lease:
            digest, info = _copy_into_place(fd, dst, sha256)
            try:
                _check_unchanged(fd, claim, digest, info, lease)
                claim.unlink()  # the verified copy is durable under dst
            except BaseException:
                _take_back(dst)
                raise
            if not lease.held:
                _check_after_unlink(fd, src, dst, digest, info)
    finally:
        os.close(fd)


def _copy_into_place(fd: int, dst: Path, sha256: str | None) -> tuple[str, os.stat_result]:
    partial = partial_path(dst)
    try:
        digest, info = _copy(fd, partial)
        if sha256 is not None and digest != sha256:
            raise ChangedWhileMoving(errno.EAGAIN, CHANGED)
        if hash_file(partial) != digest:
            raise OSError(errno.EIO, "the copy did not read back the same; source kept")
        partial.chmod(stat.S_IMODE(info.st_mode))
        os.utime(partial, ns=(info.st_atime_ns, info.st_mtime_ns))
        fsio.rename_noreplace(partial, dst)
    except BaseException:
        _discard(partial)
        raise
    fsync_dir(dst.parent)
    return digest, info


def _same_state(now: os.stat_result, then: os.stat_result) -> bool:
    return (now.st_size, now.st_mtime_ns, now.st_ctime_ns) == (
        then.st_size,
        then.st_mtime_ns,
        then.st_ctime_ns,
    )


def _check_unchanged(fd: int, claim: Path, digest: str, info: os.stat_result, lease: Lease) -> None:
    """Before the unlink: the file still holds what was copied, and the name still
    names it. Under a lease nothing could write; without one the bytes are read again."""
    if lease.wanted():
        raise InUse  # another program is opening it: it stays, for that program
    now = os.fstat(fd)
    if not _same_state(now, info) or (not lease.held and hash_fd(fd) != digest):
        raise ChangedWhileMoving(errno.EAGAIN, CHANGED)
    named = os.lstat(claim)
    if (named.st_dev, named.st_ino) != (now.st_dev, now.st_ino):
        raise ChangedWhileMoving(errno.EAGAIN, CHANGED)


def _check_after_unlink(fd: int, src: Path, dst: Path, digest: str, info: os.stat_result) -> None:
    """Without a lease, a program that had the file open may have written between the
    check and the unlink: its bytes are still readable through fd, and go back to the
    source's folder as a new file (the copy is taken back: it is the older text)."""
    if hash_fd(fd) == digest:
        return
    now = os.fstat(fd)
    back = _write_new(src, fd, stat.S_IMODE(info.st_mode), now.st_mtime_ns)
    _take_back(dst)
    raise ChangedWhileMoving(
        errno.EAGAIN, CHANGED + ("" if back == src else f"; its new text is in {back.name}")
    )


def _free_names(path: Path) -> Iterator[Path]:
    """path, then `stem.2.md`, `stem.3.md`...: where a file going back may land."""
    yield path
    stem, suffix = os.path.splitext(path.name)  # noqa: PTH122 - bytes-safe split of a name
    for number in range(2, 1000):
        yield path.with_name(f"{stem}.{number}{suffix}")


def _write_new(src: Path, fd: int, mode: int, mtime_ns: int) -> Path:
    """fd's bytes as a new file at src (or beside it, if src was taken meanwhile)."""
    for candidate in _free_names(src):
        try:
            out = os.open(candidate, NEW_FLAGS, mode)
        except FileExistsError:
            continue
        try:
            for chunk in chunks(fd):
                write_all(out, chunk)
            os.utime(out, ns=(mtime_ns, mtime_ns))
            os.fsync(out)
        finally:
            os.close(out)
        fsync_dir(src.parent)
        return candidate
    raise OSError(errno.EEXIST, f"no free name beside {src.name} for its new text")


def put_back(claim: Path, src: Path) -> Path:
    """A claimed file goes back to its name, or, if a new file took that name meanwhile,
    beside it (`stem.2.md`): both texts are kept. Where it went."""
    for candidate in _free_names(src):
        try:
            fsio.rename_noreplace(claim, candidate)
        except FileExistsError:
            continue
        fsync_dir(src.parent)
        return candidate
    raise OSError(errno.EEXIST, f"no free name to put {src.name} back; it is kept as {claim}")


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
