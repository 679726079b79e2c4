"""One run over several plans folders reads a transcript that names none of them once
(issue 45: `scan --all` over 20 roots read 5,000 sessions 20 times, 3.8x a scan of the
same plans in one folder).

Each plans folder reads the transcripts for itself: what a transcript says is said of
one folder's plans. But most transcripts name no plan at all. While a run over several
folders is surveyed (`surveyed`), the first folder to read a transcript whole also
looks, in the same bytes, for every folder's name and for the words that begin a
"clear context" chain; when none is there and the transcript said nothing to it, the
transcript is quiet for every folder of the run, and the others keep its quiet line
(`quiet.txt`) without opening it. A folder for which the transcript's session is known
to use a plan (its tool calls are the work), or one the approval ledger names, reads
it as before. A transcript that changed since is read again by whoever meets it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path

from clarity.transcripts.quiet import QuietCursor

Walked = tuple[str, str, os.stat_result]  # as walk.py yields: relative path, path, stat
WALK_MOST = 200_000


class Survey:
    """The names of every plans folder of the run, and the transcripts found quiet for
    all of them (path -> its quiet cursor, which carries its size, mtime and inode)."""

    def __init__(self, needles: Iterable[bytes]) -> None:
        from clarity.transcripts.lines import IMPLEMENT_NEEDLE

        self.needles = (*sorted(set(needles)), IMPLEMENT_NEEDLE)
        # path -> (size, mtime_ns, inode) as read, and its quiet cursor
        self._quiet: dict[str, tuple[tuple[int, int, int], QuietCursor]] = {}
        self._walks: dict[str, list[tuple[str, str]] | None] = {}

    def mentions(self, data: bytes) -> bool:
        """Whether these bytes (whole lines) may say anything to any folder of the run."""
        return any(needle in data for needle in self.needles)

    def found_quiet(self, path: str, info: os.stat_result, cursor: QuietCursor) -> None:
        self._quiet[path] = ((info.st_size, info.st_mtime_ns, info.st_ino), cursor)

    def quiet(self, path: str, info: os.stat_result) -> QuietCursor | None:
        """The quiet cursor another folder's read found, if the transcript is still the
        file it read (same size, mtime and inode)."""
        known = self._quiet.get(path)
        if known is None or known[0] != (info.st_size, info.st_mtime_ns, info.st_ino):
            return None
        return known[1]

    def walk(self, projects_dir: str) -> Iterator[Walked]:
        """The whole walk of projects_dir (walk.py), listed once for every folder of the
        run (past WALK_MOST transcripts, walked by each: memory before time). Each
        transcript is stat'ed anew as it comes: one that changed since the first folder
        listed it is seen as it is now, and read again by whoever meets it."""
        from clarity.transcripts.walk import walk

        if projects_dir not in self._walks:
            listed: list[tuple[str, str]] | None = []
            for relative, path, info in walk(projects_dir):
                if listed is not None:
                    listed.append((relative, path))
                    if len(listed) > WALK_MOST:
                        listed = None
                yield relative, path, info
            self._walks[projects_dir] = listed
            return
        known = self._walks[projects_dir]
        if known is None:
            yield from walk(projects_dir)
            return
        for relative, path in known:
            try:
                info = os.stat(path, follow_symlinks=False)  # noqa: PTH116 - strings, as walk.py
            except OSError:
                continue  # gone since: as a walk that no longer finds it
            if stat.S_ISREG(info.st_mode):
                yield relative, path, info


CURRENT: ContextVar[Survey | None] = ContextVar("clarity_transcript_survey", default=None)


@contextlib.contextmanager
def surveyed(plans_dirs: Iterable[Path]) -> Iterator[None]:
    """While it lasts, the reads of the transcripts share what they found quiet for every
    one of plans_dirs (a run over several folders: scan --all, apply --all --rescan)."""
    from clarity.transcripts.lines import PlanPaths

    needles = [needle for folder in plans_dirs for needle in PlanPaths(folder).needles]
    token = CURRENT.set(Survey(needles))
    try:
        yield
    finally:
        CURRENT.reset(token)
