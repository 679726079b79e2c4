"""Gather plan facts from disk (SPEC 2 and 3): the only code that reads plans.

Each plan is opened once, without following links and without blocking on
special files, and only its head and tail are read: the cost of a plan does
not depend on its size.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from clarity.model import FileStamp, PlanFacts, Skipped
from clarity.plantext import FrontmatterUnclosed, HeadFacts, parse_head, parse_head_unclosed
from clarity.plantext import last_nonblank_line as _last_line

HEAD_BYTES = 4096
TAIL_BYTES = 4096
# A frontmatter block that does not close in the first chunk, or a last line
# longer than one chunk, is read further, up to these bounds and no more.
MAX_HEAD_BYTES = 64 * 1024
MAX_TAIL_BYTES = 64 * 1024
MAX_BYTES_READ = MAX_HEAD_BYTES + MAX_TAIL_BYTES

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)  # a link swapped in after listing is not followed
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO named *.md must not hang the scan
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotARegularFile(Exception):
    pass


@dataclass(frozen=True, slots=True)
class DirectoryListing:
    plans: tuple[PlanFacts, ...]
    skipped: tuple[Skipped, ...]


def is_plan_name(name: str) -> bool:
    return name.endswith(".md") and not name.startswith(".")


def _read_at(fd: int, offset: int, length: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    chunks: list[bytes] = []
    while length > 0:
        chunk = os.read(fd, length)
        if not chunk:
            break
        chunks.append(chunk)
        length -= len(chunk)
    return b"".join(chunks)


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def _decode(data: bytes, *, cut_start: bool = False, cut_end: bool = False) -> tuple[str, bool]:
    """Text, and whether the bytes were clean (valid UTF-8, no NUL).

    A chunk may cut a character where it starts or ends: that is not a fault.
    Valid text, the usual case, is decoded once; only invalid bytes are
    decoded a second time, with replacement characters.
    """
    if cut_start:
        data = data[:3].lstrip(_CONTINUATION_BYTES) + data[3:]
    decoder = codecs.getincrementaldecoder("utf-8")
    try:
        text, clean = decoder("strict").decode(data, final=not cut_end), b"\0" not in data
    except UnicodeDecodeError:
        text, clean = decoder("replace").decode(data, final=not cut_end), False
    return text.removeprefix("\ufeff"), clean


def _tail_is_cut(tail: str) -> bool:
    """True when the last non-blank line may start before the tail chunk."""
    stripped = tail.rstrip()
    return bool(stripped) and "\n" not in stripped


class _PlanFile:
    """One open plan file: reads its head and tail, counting every byte."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.size = size
        self.bytes_read = 0
        self.sha256: str | None = None  # known when the whole file was read anyway

    def read(self, offset: int, length: int) -> bytes:
        data = _read_at(self.fd, offset, length)
        self.bytes_read += len(data)
        return data

    def head_and_tail(self) -> tuple[HeadFacts, str | None, bool]:
        """Head facts, last line, and whether the bytes were valid UTF-8 with no NUL."""
        if self.size <= HEAD_BYTES + TAIL_BYTES:
            data = self.read(0, self.size)
            if len(data) == self.size:
                self.sha256 = hashlib.sha256(data).hexdigest()  # spares apply's proposal a read
            text, clean = _decode(data)
            return self._head(text, data, whole=True), _last_line(text), clean
        head = self.read(0, HEAD_BYTES)
        head_text, head_clean = _decode(head, cut_end=True)
        head_facts = self._head(head_text, head, whole=False)
        tail_text, tail_clean = _decode(
            self.read(self.size - TAIL_BYTES, TAIL_BYTES), cut_start=True
        )
        if _tail_is_cut(tail_text):
            start = max(0, self.size - MAX_TAIL_BYTES)
            tail_text, tail_clean = _decode(self.read(start, self.size - start), cut_start=True)
        return head_facts, _last_line(tail_text), head_clean and tail_clean

    def _head(self, text: str, data: bytes, whole: bool) -> HeadFacts:
        try:
            return parse_head(text)
        except FrontmatterUnclosed:
            pass
        if whole:
            return parse_head_unclosed(text, "frontmatter block never closes; ignored")
        more = self.read(len(data), min(self.size, MAX_HEAD_BYTES) - len(data))
        whole = len(data) + len(more) >= self.size
        text, _ = _decode(data + more, cut_end=not whole)
        try:
            return parse_head(text)
        except FrontmatterUnclosed:
            where = "" if whole else f" in the first {MAX_HEAD_BYTES // 1024} KiB"
            return parse_head_unclosed(text, f"frontmatter block never closes{where}; ignored")


def read_plan(path: Path) -> PlanFacts:
    """Facts about one plan file. Raises OSError or NotARegularFile."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile
        plan = _PlanFile(fd, info.st_size)
        head, last_line, clean = plan.head_and_tail()
    finally:
        os.close(fd)
    warnings = head.warnings
    if not clean:
        warnings += ("not valid UTF-8 text (binary?): read with replacement characters",)
    return PlanFacts(
        name=path.name,
        path=path,
        size=info.st_size,
        mtime=info.st_mtime,
        title=head.title,
        last_line=last_line,
        frontmatter=head.frontmatter,
        warnings=warnings,
        bytes_read=plan.bytes_read,
        stamp=FileStamp.of(info),
        sha256=plan.sha256,
    )


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A plan's stamp and the sha256 of all its bytes."""

    stamp: FileStamp
    sha256: str


def fingerprint(path: Path) -> Fingerprint:
    """Read a plan in full (only plans an action will move) and hash it.

    Raises OSError or NotARegularFile. A file written to while it is hashed
    is hashed again, so the hash and the stamp always describe the same bytes.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        for _ in range(3):
            before = os.fstat(fd)
            if not stat.S_ISREG(before.st_mode):
                raise NotARegularFile
            os.lseek(fd, 0, os.SEEK_SET)
            with os.fdopen(fd, "rb", closefd=False) as stream:
                digest = hashlib.file_digest(stream, "sha256").hexdigest()
            stamp = FileStamp.of(before)
            if FileStamp.of(os.fstat(fd)) == stamp:
                break
    finally:
        os.close(fd)
    return Fingerprint(stamp, digest)


def read_opening(path: Path, limit: int = 4 * HEAD_BYTES) -> str:
    """The first `limit` bytes of a plan as text (for an extractive summary)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile
        data = _read_at(fd, 0, limit)
    finally:
        os.close(fd)
    return _decode(data, cut_end=len(data) == limit)[0]


def _candidates(plans_dir: Path) -> Iterator[os.DirEntry[str]]:
    with os.scandir(plans_dir) as entries:
        for entry in entries:
            if is_plan_name(entry.name):
                yield entry


def read_plans_dir(plans_dir: Path) -> DirectoryListing:
    """Facts about every plan directly inside plans_dir; the rest under skipped.

    Subdirectories, hidden files and other extensions are not plans and are
    passed over silently; links and unreadable files are listed as skipped.
    """
    plans: list[PlanFacts] = []
    skipped: list[Skipped] = []
    for entry in _candidates(plans_dir):
        path = plans_dir / entry.name
        try:
            if entry.is_symlink():
                skipped.append(Skipped(path, "symlink: not followed"))
                continue
            if entry.is_dir(follow_symlinks=False):
                continue
            plans.append(read_plan(path))
        except NotARegularFile:
            skipped.append(Skipped(path, "not a regular file"))
        except FileNotFoundError:
            skipped.append(Skipped(path, "vanished during the scan"))
        except OSError as error:
            reason = (
                "symlink: not followed"
                if entry.is_symlink()
                else (f"unreadable: {error.strerror or error}")
            )
            skipped.append(Skipped(path, reason))
    plans.sort(key=lambda facts: facts.name)
    skipped.sort(key=lambda item: item.path.name)
    return DirectoryListing(tuple(plans), tuple(skipped))
