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
from clarity.transcripts.quiet import QUIET_CHECK, QuietCursor, quiet_cursor
from clarity.transcripts.store import Cursor, TranscriptFacts
from clarity.transcripts.survey import CURRENT

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
CHUNK = 32 * 1024 * 1024  # read at a time; a line longer than this is read whole, up to:
MAX_LINE = 64 * 1024 * 1024  # a longer line is passed over unread (no record is this big)
_CHECK_BYTES = 64
_HEAD = 64 * 1024  # read first, for the session's id; a smaller transcript is read whole


def is_sidechain(path: str) -> bool:
    """Whether path is a sub-agent's transcript: in its session's `subagents/` folder, or
    `agent-<id>.jsonl` beside it (older versions), whose session its first record names."""
    folder, name = os.path.split(path)
    return os.path.basename(folder) == "subagents" or name.startswith("agent-")  # noqa: PTH119


def session_of(path: str, first_line: bytes) -> tuple[str, bool]:
    """The session a transcript belongs to, and whether it is a sub-agent's (strings, not
    pathlib: this runs once for each of possibly a million transcripts)."""
    folder, name = os.path.split(path)
    stem = name.removesuffix(".jsonl")
    if os.path.basename(folder) == "subagents":  # noqa: PTH119 - see above
        return os.path.basename(os.path.dirname(folder)), True  # noqa: PTH119, PTH120
    if name.startswith("agent-"):  # beside the session, in older versions: ask it
        record = parse(first_line)
        session = record.get("sessionId") if record is not None else None
        return (session if isinstance(session, str) and session else stem), True
    return stem, False


def _checked(before: bytes) -> str:
    # sha1: a check that the bytes read are still there, not a defence against anyone
    return hashlib.sha1(before[-_CHECK_BYTES:]).hexdigest()


class Read(NamedTuple):
    facts: TranscriptFacts
    bytes_read: int
    rewritten: bool = False  # not what was read before: read again from its start


def read_transcript(
    path: Path | str,
    known: TranscriptFacts | QuietCursor | None,
    plans: PlanPaths,
    plan_sessions: set[str],
) -> Read | None:
    """The transcript's facts with what it appended since `known` was read (a
    transcript that said nothing is known by its cursor alone).

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
        return _Reading(fd, info, os.fspath(path), plans).read(known, plan_sessions)
    except OSError:
        return None  # it went away or became unreadable while it was read
    finally:
        os.close(fd)


class _Reading:
    """One open transcript."""

    def __init__(self, fd: int, info: os.stat_result, path: str, plans: PlanPaths) -> None:
        self.fd, self.info, self.path, self.plans = fd, info, path, plans

    def pread(self, length: int, offset: int) -> bytes:
        if hasattr(os, "pread"):
            return os.pread(self.fd, length, offset)
        os.lseek(self.fd, offset, os.SEEK_SET)  # Windows
        return os.read(self.fd, length)

    def check(self, offset: int) -> str:
        start = max(0, offset - _CHECK_BYTES)
        return _checked(self.pread(offset - start, start))

    def still(self, offset: int, check: str) -> bool:
        """Whether the bytes before offset are still the ones read (a check may be
        shortened, as quiet transcripts keep it)."""
        return offset == 0 or (len(check) >= QUIET_CHECK and self.check(offset).startswith(check))

    def read(self, known: TranscriptFacts | QuietCursor | None, plan_sessions: set[str]) -> Read:
        size = self.info.st_size
        facts: TranscriptFacts | None = None
        start, rewritten = 0, False
        if isinstance(known, TranscriptFacts):
            cursor = known.cursor
            if (
                cursor.inode == self.info.st_ino
                and cursor.offset <= size
                and self.still(cursor.offset, cursor.check)
            ):
                facts, start = (
                    known.copy(),
                    cursor.offset,
                )  # a copy: a read cut short changes nothing
            else:
                rewritten = True  # replaced or rewritten: read it all again
        elif known is not None:
            if known.offset <= size and self.still(known.offset, known.check):
                start = known.offset
            else:
                rewritten = True
        head = b""
        if facts is None:
            head = self.pread(_HEAD, 0)
            session, sidechain = session_of(self.path, head.split(b"\n", 1)[0])
            facts = TranscriptFacts(session, sidechain, Cursor(0, 0, 0, 0, ""), self.info.st_mtime)
        offset = start
        survey = CURRENT.get() if start == 0 else None  # a whole read tells every folder
        mentioned = False
        # A small transcript read from its start is all in the head already.
        whole = start == 0 and len(head) == size and size < _HEAD
        for base, data in (
            [(0, head[: head.rfind(b"\n") + 1])] if whole else self.chunks(start, size)
        ):
            lines = Lines(data, base, facts, self.plans)
            lines.read_plan_lines()
            if facts.refs or facts.events:
                plan_sessions.add(facts.session)
            if facts.session in plan_sessions:
                lines.read_tool_calls()
            if survey is not None and not mentioned:
                mentioned = survey.mentions(data)  # whole lines: a name is never cut in two
            offset = base + len(data)
        check = _checked(head[:offset]) if whole else self.check(offset)
        facts.cursor = Cursor(size, self.info.st_mtime_ns, self.info.st_ino, offset, check)
        facts.mtime = self.info.st_mtime
        if survey is not None and not mentioned and not facts.says_anything:
            survey.found_quiet(self.path, self.info, quiet_cursor(facts))  # quiet for all
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
