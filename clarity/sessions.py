"""What Claude Code's sessions did with the plans of one plans directory (SPEC 4.3 and 9).

Every transcript under `<claude config dir>/projects/` is read from where the
last scan stopped (`transcripts/reader.py`), what was learned is kept in the
state folder (`transcripts/store.py`) and weighed (`transcripts/evidence.py`):
which plans live sessions use, which session a `--session` id names, the
project of each plan, and each plan's latest approval.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from clarity.model import PlanSessions
from clarity.transcripts.evidence import weigh
from clarity.transcripts.lines import PlanPaths
from clarity.transcripts.reader import read_transcript
from clarity.transcripts.store import TranscriptFacts, load_store, save_store


def _transcripts(projects_dir: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Every `*.jsonl` file under projects_dir, sessions' before sub-agents'; links not followed."""
    found: list[tuple[bool, str, os.stat_result]] = []
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
                    agent = entry.name.startswith("agent-") or folder.name == "subagents"
                    found.append((agent, entry.path, entry.stat(follow_symlinks=False)))
            except OSError:
                continue
    # A sub-agent's tool calls are read only once its session is known to use a plan.
    for _, path, info in sorted(found, key=lambda item: item[:2]):
        yield Path(path), info


def _unchanged(known: TranscriptFacts | None, info: os.stat_result) -> bool:
    if known is None:
        return False
    cursor = known.cursor
    return (cursor.size, cursor.mtime_ns, cursor.inode) == (
        info.st_size,
        info.st_mtime_ns,
        info.st_ino,
    )


def find_plan_sessions(
    projects_dir: Path,
    plans_dir: Path,
    now: float,
    protect_hours: float,
    current_session: str | None = None,
    store_file: Path | None = None,
) -> PlanSessions:
    """Read what the transcripts appended since the last time, and weigh it all.

    store_file keeps what was learned between runs (None: read every
    transcript whole and keep nothing).
    """
    store = load_store(store_file, plans_dir) if store_file is not None else None
    known: dict[str, TranscriptFacts] = dict(store.transcripts) if store else {}
    plans = PlanPaths(plans_dir)
    plan_sessions = {facts.session for facts in known.values() if facts.refs or facts.events}
    seen: set[str] = set()
    read = bytes_read = 0
    changed = False
    for path, info in _transcripts(projects_dir) if projects_dir.is_dir() else ():
        key = str(path)
        seen.add(key)
        before = known.get(key)
        if _unchanged(before, info):
            continue
        result = read_transcript(path, before, plans, plan_sessions)
        if result is None:
            continue
        if result.rewritten and before is not None and before.says_anything:
            # What the old content said is kept, as for a deleted transcript.
            known[f"{key}\0was-{before.cursor.inode}-{before.cursor.offset}"] = before
        known[key] = result.facts
        changed = True
        if result.bytes_read:
            read += 1
            bytes_read += result.bytes_read
    for key in [key for key, facts in known.items() if key not in seen]:
        if not known[key].says_anything:  # gone, and it said nothing: forget it
            del known[key]
            changed = True
    if store_file is not None and changed:
        # Not kept: the next scan reads again what this one read; its evidence is still used.
        with contextlib.suppress(OSError):
            save_store(store_file, plans_dir, known)
    weighed = weigh(known.values(), now, protect_hours, current_session)
    notes = list(store.notes) if store else []
    if current_session and current_session not in weighed.known_sessions:
        where = projects_dir if projects_dir.is_dir() else f"{projects_dir} (no such folder)"
        notes.append(f"session {current_session}: no transcript found under {where}")
    return PlanSessions(
        weighed.in_use,
        weighed.current,
        read,
        tuple(notes),
        weighed.evidence,
        weighed.projects,
        bytes_read,
    )
