"""The folders Claude Code has worked in, as one Claude config dir remembers them (SPEC 2):
the `cwd` its transcripts start in, and the projects its `.claude.json` lists.

Finding every plans folder on the machine starts here, and must cost no more
than a look at each project: a transcript is read only as far as its first
record with a `cwd` (a bounded head), and only a few of each folder.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path

HEAD_BYTES = 256 * 1024  # a transcript's first records are well within this
PIECE_BYTES = 16 * 1024
CLAUDE_JSON_LIMIT = 64 << 20  # Claude Code's own file grows with history; far past it


REUSE_SECONDS = 5.0  # one finding of every root asks twice (each plan source): read once


def worked_in(claude_dir: Path, home: Path) -> list[tuple[Path, str]]:
    """(folder, how it was found) for every folder Claude Code, run with claude_dir as its
    config dir, has worked in: the projects of its `.claude.json` first, then the start
    folder of the newest transcript of each projects sub-folder. Each folder once.
    What was found is reused for REUSE_SECONDS: every plan source that looks for plans in
    projects asks, within one finding of the roots."""
    key = (os.fspath(claude_dir), os.fspath(home))
    was = _FOUND.get(key)
    if was is not None and time.monotonic() - was[0] < REUSE_SECONDS:
        return list(was[1])
    found = _worked_in(claude_dir, home)
    _FOUND[key] = (time.monotonic(), tuple(found))
    return found


_FOUND: dict[tuple[str, str], tuple[float, tuple[tuple[Path, str], ...]]] = {}


def _worked_in(claude_dir: Path, home: Path) -> list[tuple[Path, str]]:
    found: dict[str, tuple[Path, str]] = {}
    claude_json = home / ".claude.json" if _is_home_default(claude_dir, home) else None
    for path in (claude_json, claude_dir / ".claude.json"):
        if path is not None:
            for folder in _claude_json_projects(path):
                found.setdefault(folder, (Path(folder), f"projects in {path}"))
    projects = claude_dir / "projects"
    for folder, transcript in _transcript_starts(projects):
        found.setdefault(folder, (Path(folder), f"the cwd of {transcript}"))
    return list(found.values())


def _is_home_default(claude_dir: Path, home: Path) -> bool:
    return os.path.realpath(claude_dir) == os.path.realpath(home / ".claude")


def _claude_json_projects(path: Path) -> list[str]:
    from clarity.fsio import read_regular

    try:
        document = json.loads(read_regular(path, CLAUDE_JSON_LIMIT, follow=True))
    except (OSError, ValueError, RecursionError):
        return []  # Claude Code's file: unreadable is "nothing listed", never a failure
    projects = document.get("projects") if isinstance(document, dict) else None
    if not isinstance(projects, dict):
        return []
    return [key for key in projects if isinstance(key, str) and Path(key).is_absolute()]


def _transcript_starts(projects: Path) -> Iterator[tuple[str, Path]]:
    try:
        folders = sorted(os.scandir(projects), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in folders:
        if not entry.is_dir(follow_symlinks=False):
            continue
        for transcript in _some_transcripts(Path(entry.path)):
            cwd = _first_cwd(transcript)
            if cwd is not None:
                yield cwd, transcript
                break


def _some_transcripts(folder: Path, most: int = 3) -> list[Path]:
    """A few of the folder's session transcripts, as the folder lists them: every session
    of a projects folder starts in the same folder (its name says which), so any one
    tells it; a few, in case one has no record with a cwd yet. No file is stat'ed: a
    project of thousands of sessions costs what one of three does."""
    found: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                    found.append(Path(entry.path))
                    if len(found) == most:
                        break
    except OSError:
        return []
    return found


def _first_cwd(transcript: Path) -> str | None:
    """The `cwd` of the transcript's first record that has one, from its head only (read a
    piece at a time: the first record usually has it)."""
    try:
        fd = os.open(transcript, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        rest, head, read = b"", bytearray(), 0
        while read < HEAD_BYTES:
            piece = os.read(fd, PIECE_BYTES)
            head += piece
            read += len(piece)
            lines = (rest + piece).split(b"\n")
            rest = lines.pop() if piece else b""  # a line the next piece goes on with
            for line in lines:
                found = _cwd_of(line)
                if found is not None:
                    return found
            if not piece:
                return None
        # A first record longer than the head (a long first prompt): its cwd, near its start.
        return _cwd_in(bytes(head))
    except OSError:
        return None
    finally:
        os.close(fd)


def _cwd_of(line: bytes) -> str | None:
    if b'"cwd"' not in line:
        return None
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None  # not JSON (or nested past what the parser goes)
    cwd = record.get("cwd") if isinstance(record, dict) else None
    if isinstance(cwd, str) and Path(cwd).is_absolute() and "\0" not in cwd:
        return cwd
    return None


_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')


def _cwd_in(head: bytes) -> str | None:
    """The first `"cwd": "..."` in a head that holds no whole record with one."""
    found = _CWD.search(head)
    if found is None:
        return None
    return _cwd_of(b'{"cwd": ' + found.group(1) + b"}")
