"""Read what one transcript appended since the last scan: the only code that reads transcripts.

The file is read a chunk at a time with pread, never mapped: Claude Code
truncates a transcript in place to drop a failed message, and a mapped file
that shrinks kills its reader. Only complete lines are read (a line still
being written is read next time), from where the last scan stopped, unless
the file is no longer what was read (another inode, shorter, other bytes
before that point): then from its start. What the lines say is `lines.py`'s.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from clarity.transcripts.lines import Lines, PlanPaths, parse
from clarity.transcripts.store import Cursor, TranscriptFacts

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
CHUNK = 32 * 1024 * 1024  # read at a time; a line longer than this is read whole, up to:
MAX_LINE = 64 * 1024 * 1024  # a longer line is passed over unread (no record is this big)
_CHECK_BYTES = 64


def session_of(path: Path, first_line: bytes) -> tuple[str, bool]:
    """The session a transcript belongs to, and whether it is a sub-agent's."""
    if path.parent.name == "subagents":
        return path.parent.parent.name, True  # <session>/subagents/agent-<id>.jsonl
    if path.name.startswith("agent-"):  # beside the session, in older versions: ask it
        record = parse(first_line)
        session = record.get("sessionId") if record is not None else None
        return (session if isinstance(session, str) and session else path.stem), True
    return path.stem, False


class Read(NamedTuple):
    facts: TranscriptFacts
    bytes_read: int
    rewritten: bool = False  # not what was read before: read again from its start


def read_transcript(
    path: Path,
    known: TranscriptFacts | None,
    plans: PlanPaths,
    plan_sessions: set[str],
) -> Read | None:
    """The transcript's facts with what it appended since `known` was read.

    plan_sessions holds the sessions known to have used a plan here: only
    their tool calls are read. A session found using one is added to it.
    None: the transcript cannot be read now (gone, a special file); what was
    known of it stays as it was.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            return None
        return _Reading(fd, info, path, plans).read(known, plan_sessions)
    except OSError:
        return None  # it went away or became unreadable while it was read
    finally:
        os.close(fd)


class _Reading:
    """One open transcript."""

    def __init__(self, fd: int, info: os.stat_result, path: Path, plans: PlanPaths) -> None:
        self.fd, self.info, self.path, self.plans = fd, info, path, plans

    def pread(self, length: int, offset: int) -> bytes:
        if hasattr(os, "pread"):
            return os.pread(self.fd, length, offset)
        os.lseek(self.fd, offset, os.SEEK_SET)  # Windows
        return os.read(self.fd, length)

    def check(self, offset: int) -> str:
        start = max(0, offset - _CHECK_BYTES)
        # sha1: a check that the bytes read are still there, not a defence against anyone
        return hashlib.sha1(self.pread(offset - start, start)).hexdigest()

    def read(self, known: TranscriptFacts | None, plan_sessions: set[str]) -> Read:
        size = self.info.st_size
        rewritten = False
        if known is not None:
            cursor = known.cursor
            if not (
                cursor.inode == self.info.st_ino
                and cursor.offset <= size
                and self.check(cursor.offset) == cursor.check
            ):
                known, rewritten = None, True  # replaced or rewritten: read it all again
        if known is None:
            first = self.pread(64 * 1024, 0)
            session, sidechain = session_of(self.path, first.split(b"\n", 1)[0])
            facts = TranscriptFacts(session, sidechain, Cursor(0, 0, 0, 0, ""), self.info.st_mtime)
            start = 0
        else:
            facts, start = known, known.cursor.offset
        offset = start
        for base, data in self.chunks(start, size):
            lines = Lines(data, base, facts, self.plans)
            lines.read_plan_lines()
            if facts.refs or facts.events:
                plan_sessions.add(facts.session)
            if facts.session in plan_sessions:
                lines.read_tool_calls()
            offset = base + len(data)
        facts.cursor = Cursor(
            size, self.info.st_mtime_ns, self.info.st_ino, offset, self.check(offset)
        )
        facts.mtime = self.info.st_mtime
        return Read(facts, offset - start, rewritten)

    def chunks(self, start: int, size: int) -> Iterator[tuple[int, bytes]]:
        """(offset, bytes) of complete lines from start to the last newline before size."""
        offset = start
        while offset < size:
            data = self.pread(min(CHUNK, size - offset), offset)
            end = data.rfind(b"\n") + 1
            if end == 0:  # one line longer than a chunk, or a last line still being written
                line_end = self.newline_after(offset + len(data), size)
                if line_end is None:
                    return
                if line_end - offset <= MAX_LINE:
                    yield offset, self.pread(line_end - offset, offset)
                else:
                    yield line_end, b""  # passed over unread; reading goes on after it
                offset = line_end
                continue
            yield offset, data[:end] if end < len(data) else data
            offset += end

    def newline_after(self, offset: int, size: int) -> int | None:
        """The offset just past the next newline at or after offset, if the file has one."""
        while offset < size:
            data = self.pread(min(CHUNK, size - offset), offset)
            if not data:
                return None
            found = data.find(b"\n")
            if found >= 0:
                return offset + found + 1
            offset += len(data)
        return None
