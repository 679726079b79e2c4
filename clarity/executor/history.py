"""Which plans a person put back from the archive lately (evidence for SPEC 4.5 rule 1).

`clarity restore` journals each restore in the plans dir's state folder
(`runs/NNNNNN-restore.jsonl`); a plan it put back is kept active for
`dormant_days` from that moment, so the next apply does not archive it
again. This module only gathers the fact (which plan, restored when); the
classifier weighs it. The journals are read as they are, without the lock
and without writing anything: a scan stays read-only. A journal older than
the window is not opened at all (a restore is no later than its journal's
last write), so the cost is one listing of the runs folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from clarity.state import DirState

RESTORE_SUFFIX = "-restore.jsonl"
UNDO_SUFFIX = "-undo.jsonl"
SECONDS_PER_DAY = 86400.0


def _journals(runs_dir: Path, since: float, suffix: str = RESTORE_SUFFIX) -> list[Path]:
    """Journals of one kind written to at or after `since` (seconds), oldest first."""
    found = []
    try:
        with os.scandir(runs_dir) as entries:
            for entry in entries:
                if not entry.name.endswith(suffix):
                    continue
                try:
                    if entry.stat(follow_symlinks=False).st_mtime >= since:
                        found.append(Path(entry.path))
                except OSError:
                    continue
    except OSError:
        return []  # no state folder yet: nothing was ever restored here
    return sorted(found)


def restored_plans(state: DirState, now: datetime, window_days: float) -> Mapping[str, float]:
    """Plan name -> when (seconds since the epoch) a restore put it back in the plans dir,
    for restores that may still be within `window_days` of now; the latest one wins."""
    since = now.timestamp() - window_days * SECONDS_PER_DAY
    paths = _journals(state.runs_dir, since)
    if not paths:
        return {}
    from clarity.executor.journal import read_run  # only when something was restored
    from clarity.executor.records import Move, RunKind

    undone = _undone(state, since)
    restored: dict[str, float] = {}
    for path in paths:
        try:
            log = read_run(path)
        except OSError:
            continue
        if log.begin is None or log.kind is not RunKind.RESTORE:
            continue
        try:
            moment = datetime.fromisoformat(log.begin.started_at).timestamp()
        except ValueError:
            continue
        for intent, _ in log.done():
            if intent.move is Move.RESTORE and (log.name, intent.seq) not in undone:
                restored[intent.name] = moment
    return restored


def _undone(state: DirState, since: float) -> set[tuple[str, int]]:
    """The restores (run, move) an undo took back since: the plan went back to the archive,
    and the protection its restore gave goes with it."""
    from clarity.executor.journal import read_run

    taken_back: set[tuple[str, int]] = set()
    for path in _journals(state.runs_dir, since, UNDO_SUFFIX):
        try:
            log = read_run(path)
        except OSError:
            continue
        for intent, _ in log.done():
            if intent.from_run is not None and intent.from_seq is not None:
                taken_back.add((intent.from_run, intent.from_seq))
    return taken_back
