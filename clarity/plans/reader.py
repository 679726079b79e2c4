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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from clarity.model import FileStamp, PlanFacts, Skipped, TextStatus
from clarity.plans.plantext import (
    FrontmatterUnclosed,
    HeadFacts,
    is_stub,
    parse_head,
    parse_head_unclosed,
)
from clarity.plans.plantext import last_nonblank_line as _last_line
from clarity.progress import Progress

if TYPE_CHECKING:
    from clarity.plans.facts_cache import FactsCache

HEAD_BYTES = 4096
TAIL_BYTES = 4096
# A frontmatter block that does not close in the first chunk, or a last line
# longer than one chunk, is read further, up to these bounds and no more.
MAX_HEAD_BYTES = 64 * 1024
MAX_TAIL_BYTES = 64 * 1024

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)  # a link swapped in after listing is not followed
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO named *.md must not hang the scan
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


# Dates a report can print and a quarter folder can name (datetime spans years 1 to 9999).
_EARLIEST_MTIME = -62_135_596_800.0 + 2 * 86_400  # 0001-01-03
_LATEST_MTIME = 253_402_300_799.0 - 2 * 86_400  # 9999-12-29


class NotARegularFile(Exception):
    pass


class DirectoryListing(NamedTuple):
    plans: tuple[PlanFacts, ...]
    skipped: tuple[Skipped, ...]


def is_plan_name(name: str) -> bool:
    return name.endswith(".md") and not name.startswith(".")


_HAS_PREAD = hasattr(os, "pread")  # not on Windows


def _pread(fd: int, length: int, offset: int) -> bytes:
    """os.pread where there is one (one call, no seek); lseek and read elsewhere."""
    if _HAS_PREAD:
        return os.pread(fd, length, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


def _read_at(fd: int, offset: int, length: int) -> bytes:
    data = _pread(fd, length, offset)
    if len(data) == length or not data:
        return data  # the usual case: one call
    chunks, got = [data], len(data)
    while got < length:
        chunk = _pread(fd, length - got, offset + got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
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
    try:
        text, clean = data.decode("utf-8"), b"\0" not in data
    except UnicodeDecodeError as error:
        cut_char = error.end == len(data) and error.reason == "unexpected end of data"
        if cut_end and cut_char:  # valid up to a character the chunk's end cut short
            text, clean = data[: error.start].decode("utf-8"), b"\0" not in data
        else:
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            text, clean = decoder.decode(data, final=not cut_end), False
    return text.removeprefix("\ufeff"), clean


def _tail_is_cut(tail: str) -> bool:
    """True when the last non-blank line may start before the tail chunk."""
    stripped = tail.rstrip()
    return bool(stripped) and "\n" not in stripped


class _PlanFile:
    """One open plan file bigger than a head and a tail: reads them, counting bytes."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.size = size
        self.bytes_read = 0

    def read(self, offset: int, length: int) -> bytes:
        data = _read_at(self.fd, offset, length)
        self.bytes_read += len(data)
        return data

    def head_and_tail(self) -> tuple[HeadFacts, str, bool]:
        """Head facts, the tail's text, and whether the bytes were valid UTF-8 with no NUL."""
        head = self.read(0, HEAD_BYTES)
        head_text, head_clean = _decode(head, cut_end=True)
        try:
            head_facts = parse_head(head_text)
        except FrontmatterUnclosed:
            head_facts = self._head_further(head)
        tail_text, tail_clean = _decode(
            self.read(self.size - TAIL_BYTES, TAIL_BYTES), cut_start=True
        )
        if _tail_is_cut(tail_text):
            start = max(0, self.size - MAX_TAIL_BYTES)
            tail_text, tail_clean = _decode(self.read(start, self.size - start), cut_start=True)
        return head_facts, tail_text, head_clean and tail_clean

    def _head_further(self, data: bytes) -> HeadFacts:
        """The head when its frontmatter does not close in the first chunk: read on."""
        more = self.read(len(data), min(self.size, MAX_HEAD_BYTES) - len(data))
        whole = len(data) + len(more) >= self.size
        text, _ = _decode(data + more, cut_end=not whole)
        return _head_facts(text, "" if whole else f" in the first {MAX_HEAD_BYTES // 1024} KiB")


def _head_facts(text: str, where: str = "") -> HeadFacts:
    """Head facts of text that is all the head there is to read (where: how far that was)."""
    try:
        return parse_head(text)
    except FrontmatterUnclosed:
        return parse_head_unclosed(text, f"frontmatter block never closes{where}; ignored")


class _TextFacts(NamedTuple):
    head: HeadFacts
    last_line: str | None
    status: TextStatus | None
    clean: bool  # valid UTF-8, no NUL
    stub: bool = False  # a plan too long to read whole is no stub


def _whole_file_facts(data: bytes) -> _TextFacts:
    from clarity.plans.status import read_status  # here: its patterns cost a start with no plans

    text, clean = _decode(data)
    head = _head_facts(text)
    return _TextFacts(head, _last_line(text), read_status(head.body), clean, is_stub(head.body))


_NOT_UTF8 = "not valid UTF-8 text (binary?): read with replacement characters"


def _read(open_path: str | Path, folder: Path, name: str) -> PlanFacts:
    fd = os.open(open_path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile
        size = info.st_size
        if size <= HEAD_BYTES + TAIL_BYTES:  # most plans: one read of the whole file
            data = _read_at(fd, 0, size)
            text = _whole_file_facts(data)
            bytes_read = len(data)
            # Hashed now, while in memory: the proposal needs it for every plan that
            # moves, and reading it again later costs more than hashing them all.
            sha256 = hashlib.sha256(data).hexdigest() if bytes_read == size else None
        else:
            from clarity.plans.status import read_status

            plan = _PlanFile(fd, size)
            head, tail, clean = plan.head_and_tail()
            text = _TextFacts(head, _last_line(tail), read_status(head.body, tail), clean)
            bytes_read, sha256 = plan.bytes_read, None
    finally:
        os.close(fd)
    head = text.head
    return PlanFacts(
        name,
        folder,
        size,
        info.st_mtime,
        head.title,
        text.last_line,
        head.frontmatter,
        head.warnings if text.clean else (*head.warnings, _NOT_UTF8),
        bytes_read,
        FileStamp.of(info),
        sha256,
        _status(head.frontmatter.todos, text.status),
        text.stub,
    )


def _status(todos: TextStatus | None, said: TextStatus | None) -> TextStatus | None:
    """The plan's status: its todo list's where it has one (the list is what the agent
    keeps up to date as the work is done), else what its text says."""
    return said if todos is None else todos


class Fingerprint(NamedTuple):
    """A plan's stamp and the sha256 of all its bytes."""

    stamp: FileStamp
    sha256: str


WHOLE_READ_LIMIT = 8 * 1024 * 1024  # bigger files are hashed a chunk at a time


def _digest(fd: int, size: int) -> str:
    if size <= WHOLE_READ_LIMIT:  # one read and one hash call: a third faster than chunks
        return hashlib.sha256(_read_at(fd, 0, size + 1)).hexdigest()
    os.lseek(fd, 0, os.SEEK_SET)
    with os.fdopen(fd, "rb", closefd=False) as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


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
            digest = _digest(fd, before.st_size)
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


def read_head_and_tail(path: Path, head: int, tail: int) -> tuple[str, str | None]:
    """The first `head` bytes of a plan as text, and its last `tail` bytes when the two do
    not meet (None: the head holds the whole plan). For the agent, which reads both ends."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile
        opening = _read_at(fd, 0, head)
        ending = None
        if info.st_size > len(opening):  # the end is not in the head: read it too
            start = max(len(opening), info.st_size - tail)
            ending = _read_at(fd, start, info.st_size - start)
    finally:
        os.close(fd)
    text = _decode(opening, cut_end=len(opening) == head)[0]
    return text, None if ending is None else _decode(ending, cut_start=True)[0]


_FILE, _LINK, _FOLDER = 0, 1, 2  # what a directory entry is, as scandir tells it


def _candidates(plans_dir: Path, is_plan: Callable[[str], bool]) -> list[tuple[str, int]]:
    """Each name that may be a plan, and what its directory entry is: names, not the
    entries themselves (100,000 entries, with the stat each caches, were some 100 MB
    held at once)."""
    found: list[tuple[str, int]] = []
    with os.scandir(plans_dir) as entries:
        for entry in entries:
            if is_plan(entry.name):
                kind = (
                    _LINK
                    if entry.is_symlink()
                    else _FOLDER
                    if entry.is_dir(follow_symlinks=False)
                    else _FILE
                )
                found.append((entry.name, kind))
    return found


def _plan_facts(name: str, path: str, plans_dir: Path, cache: FactsCache | None) -> PlanFacts:
    """What the cache recalls of an unchanged plan, else what reading it gives."""
    if cache:  # an empty cache recalls nothing: no lstat before each read
        known = cache.recall(name, plans_dir, os.lstat(path))
        if known is not None:
            return known
    facts = _read(path, plans_dir, name)
    if cache is not None:
        cache.learn(facts)
    return facts


def read_plans_dir(
    plans_dir: Path,
    progress: Progress | None = None,
    cache: FactsCache | None = None,
    is_plan: Callable[[str], bool] = is_plan_name,
) -> DirectoryListing:
    """Facts about every plan directly inside plans_dir; the rest under skipped.

    Subdirectories, hidden files and names that are no plan (is_plan: the plan source's
    rule, by default every `.md` not hidden) are passed over silently; links and
    unreadable files are listed as skipped. A plan the cache knows, unchanged since, is
    stat'ed and not read.
    """
    plans: list[PlanFacts] = []
    skipped: list[Skipped] = []
    names = _candidates(plans_dir, is_plan)
    folder = os.path.join(plans_dir, "")  # noqa: PTH118 - a path a plan: folder + name
    tick = progress("Reading plans", len(names)) if progress else None
    for name, kind in names:
        if tick is not None:
            tick(1)
        try:
            if kind == _LINK:
                skipped.append(Skipped(plans_dir / name, "symlink: not followed"))
                continue
            if kind == _FOLDER:
                continue
            facts = _plan_facts(name, folder + name, plans_dir, cache)
            if not _EARLIEST_MTIME <= facts.mtime <= _LATEST_MTIME:
                reason = "modification time out of range (past year 9999?); set it with touch"
                skipped.append(Skipped(plans_dir / name, reason))
                continue
            plans.append(facts)
        except NotARegularFile:
            skipped.append(Skipped(plans_dir / name, "not a regular file"))
        except FileNotFoundError:
            skipped.append(Skipped(plans_dir / name, "vanished during the scan"))
        except OSError as error:
            skipped.append(Skipped(plans_dir / name, f"unreadable: {error.strerror or error}"))
    plans.sort()  # by name, the first field
    skipped.sort(key=lambda item: item.path.name)
    return DirectoryListing(tuple(plans), tuple(skipped))
