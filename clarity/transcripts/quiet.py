"""How far each transcript that said nothing was read: one short line each, in walk order.

Most transcripts never name a plan of this plans directory. Of those, clarity
keeps only what reading what they append needs: their size, where reading
stopped, a short check of the bytes before that point (a file rewritten in
place differs there), and their mtime and inode (a file replaced by another of
the same size differs there). The lines lie in the order `walk` visits the
projects folder, so a scan merges the file with the walk one transcript at a
time: memory does not grow with their number, however many there are.

The file (`quiet.txt` in the state folder) is plain text: a header naming the
projects folder, then `<size> <offset> <check> <mtime.inode> <path>` per
transcript, the path relative to the projects folder, with `\\` and newlines
escaped. Beside it, `quiet.txt.stop` says where a scan cut short stopped. Both
are a cache, opened only as regular files (never through a link, never a FIFO):
a damaged or missing one only means those transcripts are read again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from clarity.fsio import NEW_FLAGS, READ_FLAGS, read_regular, sweep_temps, write_atomic
from clarity.transcripts.walk import Stop, walk_key

if TYPE_CHECKING:
    from clarity.transcripts.store import TranscriptFacts

QUIET_CHECK = 16  # hex digits of the check a quiet transcript keeps

MAGIC = b"clarity quiet transcripts 2 "
_STOP_LIMIT = 64 * 1024  # a stop file is one short line


class QuietCursor(NamedTuple):
    """A transcript that said nothing: how big it was and how far it was read."""

    size: int
    offset: int  # every complete line before this byte has been read
    check: str  # a short hash of the bytes just before offset
    stamp: str = ""  # its mtime and inode, as the line keeps them


def quiet_cursor(facts: TranscriptFacts) -> QuietCursor:
    """How a transcript that said nothing is kept: its facts' cursor, the check cut short."""
    cursor = facts.cursor
    stamp = stamp_of(cursor.mtime_ns, cursor.inode)
    return QuietCursor(cursor.size, cursor.offset, cursor.check[:QUIET_CHECK], stamp)


def stamp_of(mtime_ns: int, inode: int) -> str:
    """A transcript's mtime and inode as its line keeps them."""
    return f"{mtime_ns:x}.{inode:x}"


def _escape(relative: str) -> bytes:
    raw = relative.encode("utf-8", "surrogateescape")
    if b"\\" in raw or b"\n" in raw:
        raw = raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")
    return raw


_ESCAPED = re.compile(rb"\\(.)", re.DOTALL)


def _unescape(raw: bytes) -> str:
    if b"\\" in raw:
        raw = _ESCAPED.sub(lambda m: b"\n" if m.group(1) == b"n" else m.group(1), raw)
    return raw.decode("utf-8", "surrogateescape")


def _header(projects_dir: str) -> bytes:
    return MAGIC + _escape(projects_dir) + b"\n"


def _open_regular(path: Path) -> BinaryIO | None:
    """path to read, if it is a regular file: never through a link, a FIFO never waited
    on, a device never read without end."""
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


def _relative_of(line: bytes) -> str | None:
    parts = line.rstrip(b"\n").split(b" ", 4)
    return _unescape(parts[4]) if len(parts) == 5 else None


class QuietFile:
    """The old file merged, line by line, with a walk of the projects folder into the new
    one; written only where they differ, and only once it is known they do.

    For each transcript the walk meets, in order: `take` its old line, then `keep` it
    (unchanged), `put` a new one, or `drop` it (the transcript now says something).
    Lines of transcripts the walk did not meet are dropped (gone, and they said
    nothing), unless the walk was cut short: then `finish(stopped=...)` keeps them.
    """

    def __init__(self, path: Path | None, projects_dir: str, *, go_on: bool = False) -> None:
        """go_on: start where the last scan, cut short, stopped (`start`), taking the
        lines before that point as they are (the SessionStart hook's way, which has a
        deadline); else from the first transcript, checking them all (a scan's)."""
        self.path, self._header = path, _header(projects_dir)
        self.start: Stop | None = None  # the walk begins here (None: at the first)
        self._old: BinaryIO | None = None
        self._line = b""  # the old line not yet passed (b"": none left)
        self._relative: str | None = None
        self._clean = 0  # old bytes up to here are the new file's too, so far
        self._new: BinaryIO | None = None
        self._temp: Path | None = None
        self._broken = path is None  # nothing to keep (or the state folder refuses it)
        if path is None:
            return
        old = _open_regular(path)
        if old is None:
            return
        try:
            if old.readline(len(self._header) + 1) != self._header:
                old.close()  # another projects folder's, or not this version's: start afresh
                return
            self._old, self._clean = old, len(self._header)
            stop = _stopped_at(path, old, self._clean) if go_on else None
            if stop is not None:
                self._clean, self.start = stop
            old.seek(self._clean)
        except OSError:
            old.close()
            self._old = None
            return
        self._advance()

    def _advance(self) -> None:
        self._line, self._relative = b"", None
        while self._old is not None:
            line = self._old.readline()
            if not line:
                self._old.close()
                self._old = None
                return
            relative = _relative_of(line)
            if relative is not None and line.endswith(b"\n"):
                self._line, self._relative = line, relative
                return
            self._differ()  # a damaged line is dropped: its transcript is read again
            self._clean += len(line)

    def take(self, relative: str) -> bytes | None:
        """relative's old line, if the file has one; lines before it are dropped."""
        if self._relative is not None and self._relative != relative:
            wanted = walk_key(relative)
            while self._relative is not None and walk_key(self._relative) < wanted:
                self._differ()
                self._advance()
        if self._relative != relative:
            return None
        line = self._line
        self._advance()
        return line

    def keep(self, line: bytes) -> None:
        if self._new is not None:
            self._new.write(line)
        else:
            self._clean += len(line)

    def put(self, relative: str, cursor: QuietCursor) -> None:
        self._differ()
        if self._new is not None:
            size, offset, check = cursor.size, cursor.offset, cursor.check.encode()
            where = cursor.stamp.encode()
            self._new.write(b"%d %d %s %s %s\n" % (size, offset, check, where, _escape(relative)))

    def drop(self) -> None:
        self._differ()

    def _differ(self) -> None:
        """From here on the new file differs from the old: start it, with the old lines
        kept so far."""
        if self._new is not None or self._broken:
            return
        assert self.path is not None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            sweep_temps(self.path)  # left by a run that was killed while it wrote
            self._temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            with contextlib.suppress(FileNotFoundError):
                self._temp.unlink()
            self._new = os.fdopen(os.open(self._temp, NEW_FLAGS, 0o644), "wb")
            self._new.write(self._header)
            if self._clean > len(self._header):
                self._copy_clean()
        except OSError:
            self._broken = True  # a cache clarity cannot keep: the next scan reads again
            self._abort()
        except BaseException:
            self._abort()  # cut short while it copied: the old file stays the one to keep
            raise

    def _copy_clean(self) -> None:
        assert self.path is not None and self._new is not None
        old = _open_regular(self.path)
        if old is None:
            raise OSError(errno.EIO, "the old file went away", str(self.path))
        with old:
            old.seek(len(self._header))
            left = self._clean - len(self._header)
            while left:
                chunk = old.read(min(left, 1 << 20))
                if not chunk:
                    raise OSError(errno.EIO, "the old file shrank", str(self.path))
                self._new.write(chunk)
                left -= len(chunk)

    def finish(self, *, stopped: Stop | None = None) -> None:
        """Put the new file in place, if it differs (not fsynced: a cache, whose loss only
        costs a read). stopped: where the walk was cut short; the lines of transcripts
        it did not reach are kept as they were, and the next scan that goes on starts
        there."""
        if stopped is None and self._line:
            self._differ()  # the rest were not met: gone
        mark = self._new.tell() if self._new is not None else self._clean
        try:
            if self._new is not None and self._temp is not None:
                if stopped is not None:
                    while self._line:
                        self._new.write(self._line)
                        self._advance()
                self._new.close()
                self._new = None
                assert self.path is not None  # a file to write has a path
                self._temp.replace(self.path)
            if self.path is not None and not self._broken:
                _mark_stop(self.path, None if stopped is None else (mark, stopped))
        except OSError:
            pass  # kept as it was: the next scan reads again what this one read
        finally:
            self._abort()
            if self._old is not None:
                self._old.close()
                self._old = None

    def _abort(self) -> None:
        if self._new is not None:
            self._new.close()
            self._new = None
        if self._temp is not None:
            with contextlib.suppress(OSError):
                self._temp.unlink()
            self._temp = None


def _stop_file(path: Path) -> Path:
    return path.with_name(path.name + ".stop")


def _stopped_at(path: Path, old: BinaryIO, header_end: int) -> tuple[int, Stop] | None:
    """Where the last scan cut short stopped: the offset in the old file where the lines
    not yet reached begin, and the walk's position there. None if the scan finished,
    or the marker does not fit this file (another one since, damaged): all is checked."""
    try:
        offset_text, size_text, after, relative = read_regular(_stop_file(path), _STOP_LIMIT).split(
            b" ", 3
        )
        offset, size = int(offset_text), int(size_text)
        stop = Stop(_unescape(relative), after == b"1")
        if size != os.fstat(old.fileno()).st_size or not header_end <= offset <= size:
            return None
        # A line starts at the offset, the line before it comes before the stop, and
        # the line there (if any) does not.
        old.seek(max(header_end, offset - 65536))
        before = old.read(offset - max(header_end, offset - 65536))
        if before and not before.endswith(b"\n"):
            return None
        previous = before[before.rstrip(b"\n").rfind(b"\n") + 1 :] if before else b""
        wanted = walk_key(stop.relative)
        if previous and (
            (name := _relative_of(previous)) is None
            or walk_key(name) > wanted
            or (walk_key(name) == wanted and not stop.after)
        ):
            return None
        there = old.readline()
        if there and (
            (name := _relative_of(there)) is None
            or walk_key(name) < wanted
            or (walk_key(name) == wanted and stop.after)
        ):
            return None
    except (OSError, ValueError):
        return None
    return offset, stop


def _mark_stop(path: Path, stop: tuple[int, Stop] | None) -> None:
    """Say where a scan cut short stopped (None: it went through, next time from the top)."""
    marker = _stop_file(path)
    if stop is None:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            marker.unlink()
        return
    offset, where = stop
    size = os.lstat(path).st_size
    flag = b"1" if where.after else b"0"
    write_atomic(
        marker, b"%d %d %s %s" % (offset, size, flag, _escape(where.relative)), durable=False
    )


def parse(line: bytes) -> QuietCursor | None:
    size, offset, check, where, _ = line.split(b" ", 4)
    try:
        return QuietCursor(int(size), int(offset), check.decode("ascii"), where.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return None


def unchanged(line: bytes, info: os.stat_result) -> bool:
    """Whether the transcript a line keeps is as it was: the same size, mtime and inode
    (one replaced by another of the same size is not)."""
    size, _, _, where, _ = line.split(b" ", 4)
    return (
        size == b"%d" % info.st_size and where == stamp_of(info.st_mtime_ns, info.st_ino).encode()
    )
