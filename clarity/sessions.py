"""Which Claude Code sessions use which plans (SPEC 9): evidence from transcripts.

Claude Code keeps one JSON-lines transcript per session under
`<claude config dir>/projects/<project>/<session id>.jsonl` (a sub-agent's
under `<session id>/subagents/`). A session uses a plan when its transcript
names the plan's file: a plan-mode attachment's `planFilePath`, or the
`file_path` of a Write or Edit tool call into the plans directory.

Transcripts can be large, and there can be thousands of them, so only those
modified within the protection window are read (plus the named current
session's), each through a memory map: a line is parsed only when it holds
one of the byte strings that evidence must contain. A line that is not JSON
(a torn write, a foreign tool) is skipped.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

PLAN_PATH_KEY = "planFilePath"
EDITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})


class PlanSessions(NamedTuple):
    """What the transcripts say about the plans of one plans directory."""

    in_use: Mapping[str, str]  # plan name -> the session that used it most recently
    current: frozenset[str]  # plan names the --session session used
    transcripts_read: int = 0
    notes: tuple[str, ...] = ()


class _Transcript(NamedTuple):
    path: Path
    mtime: float
    session: str  # the session the file belongs to, from its place in the tree


def _session_of(path: Path) -> str:
    if path.parent.name == "subagents":
        return path.parent.parent.name  # <session>/subagents/agent-<id>.jsonl
    return path.stem


def _transcripts(projects_dir: Path) -> Iterator[_Transcript]:
    """Every `*.jsonl` file under projects_dir; links are not followed."""
    stack = [projects_dir]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable or gone: Claude Code's tree, not ours to fail on
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                    path = Path(entry.path)
                    yield _Transcript(path, entry.stat().st_mtime, _session_of(path))
            except OSError:
                continue


class _PlanPaths:
    """Tells whether a path a transcript names is a plan in the plans directory."""

    def __init__(self, plans_dir: Path) -> None:
        self.real_dir = os.path.realpath(plans_dir)
        spellings = {os.path.abspath(plans_dir), self.real_dir}  # noqa: PTH100 (no resolve)
        # As the directory appears inside a JSON string, with a separator after it.
        self.needles = tuple(
            json.dumps(spelling + os.sep, ensure_ascii=False)[1:-1].encode()
            for spelling in sorted(spellings)
        )
        self._parents: dict[str, bool] = {}

    def plan_name(self, value: object) -> str | None:
        if not isinstance(value, str) or not value.endswith(".md"):
            return None
        path = Path(value).expanduser()
        if not path.is_absolute():
            return None
        parent = str(path.parent)
        inside = self._parents.get(parent)
        if inside is None:
            inside = self._parents[parent] = os.path.realpath(parent) == self.real_dir
        return path.name if inside else None


def _references(record: Any, plan_paths: _PlanPaths) -> Iterator[str]:
    """Plan names a parsed transcript record refers to, wherever they are nested."""
    stack = [record]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        name = plan_paths.plan_name(item.get(PLAN_PATH_KEY))
        if name is not None:
            yield name
        tool_input = item.get("input")
        if (
            item.get("type") == "tool_use"
            and item.get("name") in EDITING_TOOLS
            and isinstance(tool_input, dict)
        ):
            name = plan_paths.plan_name(tool_input.get("file_path"))
            if name is not None:
                yield name
        stack.extend(value for value in item.values() if isinstance(value, dict | list))


def _candidate_lines(data: mmap.mmap, needles: tuple[bytes, ...]) -> Iterator[bytes]:
    """Each line that holds any needle, once, in file order."""
    starts: set[int] = set()
    for needle in needles:
        position = data.find(needle)
        while position != -1:
            start = data.rfind(b"\n", 0, position) + 1
            end = data.find(b"\n", position)
            end = len(data) if end == -1 else end
            starts.add(start)
            position = data.find(needle, end)
    for start in sorted(starts):
        end = data.find(b"\n", start)
        yield data[start : len(data) if end == -1 else end]


def _read(transcript: _Transcript, plan_paths: _PlanPaths) -> Iterator[tuple[str, str]]:
    """(session id, plan name) for every plan reference in one transcript."""
    needles = (f'"{PLAN_PATH_KEY}"'.encode(), *plan_paths.needles)
    try:
        with transcript.path.open("rb") as stream:
            if os.fstat(stream.fileno()).st_size == 0:
                return
            with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
                lines = list(_candidate_lines(data, needles))
    except (OSError, ValueError):
        return  # vanished, unreadable or unmappable: no evidence from it
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn or foreign line
        session = record.get("sessionId") if isinstance(record, dict) else None
        session = session if isinstance(session, str) and session else transcript.session
        for name in _references(record, plan_paths):
            yield session, name


def find_plan_sessions(
    projects_dir: Path,
    plans_dir: Path,
    now: float,
    protect_hours: float,
    current_session: str | None = None,
) -> PlanSessions:
    """Plans used by sessions active within protect_hours of now, and by current_session."""
    if not projects_dir.is_dir():
        note = f"session {current_session}: no transcripts in {projects_dir}"
        return PlanSessions({}, frozenset(), notes=(note,) if current_session else ())
    since = now - protect_hours * 3600
    plan_paths = _PlanPaths(plans_dir)
    last_used: dict[str, tuple[float, str]] = {}
    current: set[str] = set()
    read = 0
    found_current = False
    for transcript in _transcripts(projects_dir):
        is_current = current_session is not None and transcript.session == current_session
        recent = protect_hours > 0 and since <= transcript.mtime
        if not (recent or is_current):
            continue
        read += 1
        found_current = found_current or is_current
        for session, name in _read(transcript, plan_paths):
            if session == current_session:
                current.add(name)
                found_current = True
            if recent and last_used.get(name, (-1.0, ""))[0] < transcript.mtime:
                last_used[name] = (transcript.mtime, session)
    notes: tuple[str, ...] = ()
    if current_session and not found_current:
        notes = (f"session {current_session}: no transcript found under {projects_dir}",)
    in_use = {name: session for name, (_, session) in last_used.items()}
    return PlanSessions(in_use, frozenset(current), read, notes)
