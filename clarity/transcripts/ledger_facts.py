"""The approval ledger (ledger.py) read as transcript facts, for one plans dir: the scan
weighs them beside what the transcripts said (sessions.py), so an approval the plugin
saw is evidence even when Claude Code has deleted the transcript or changed its format.

Each session the ledger names for a plan of this plans dir becomes facts of its own:
the plan named at that moment, and the event (presented, approved; a `cleared` start
as the implementing session's approval of the plan its project presented last, when
the session that ended just before it presented it, in the same prompt). Its
edits and commits still come from its transcripts (kept in the store once read). The
texts the ledger holds are set aside like the transcripts' (texts_seen.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from clarity.dates import stamp_seconds
from clarity.fsio import read_regular
from clarity.transcripts import texts_seen
from clarity.transcripts.ledger import (
    APPROVED,
    CLEAR_WINDOW,
    CLEARED,
    ENDED,
    PRESENTED,
    TEXTS,
    LedgerLines,
)
from clarity.transcripts.lines import PlanPaths
from clarity.transcripts.store import APPROVED as APPROVED_EVENT
from clarity.transcripts.store import IMPLEMENTING, Cursor, Event, TranscriptFacts
from clarity.transcripts.store import PRESENTED as PRESENTED_EVENT

_NO_CURSOR = Cursor(0, 0, 0, 0, "")
_KIND = {PRESENTED: PRESENTED_EVENT, APPROVED: APPROVED_EVENT}
_HOW = {PRESENTED: texts_seen.PRESENTED, APPROVED: texts_seen.APPROVED}


def _seconds(at: object) -> float:
    return stamp_seconds(at) or 0.0


class _Facts:
    def __init__(self) -> None:
        self.by_session: dict[str, TranscriptFacts] = {}

    def add(self, line: dict[str, Any], kind: str, plan: str, sha: str) -> None:
        session, at = line["session"], line["at"]
        facts = self.by_session.get(session)
        if facts is None:
            facts = TranscriptFacts(session, False, _NO_CURSOR, _seconds(at))
            self.by_session[session] = facts
        facts.mtime = max(facts.mtime, _seconds(at))
        cwd = line.get("cwd")
        facts.cwd = cwd if isinstance(cwd, str) else facts.cwd
        facts.plan = plan
        facts.refs[plan] = max(facts.refs.get(plan, ""), at)
        facts.events.append(Event(at, kind, plan, "ledger", sha))


class LedgerEnd(NamedTuple):
    """Where a reading of the ledger ended: the file (its inode) and the offset in it."""

    inode: int
    offset: int


def ledger_facts(
    state_dir: str,
    plans: PlanPaths,
    texts: texts_seen.TextsSeen | None = None,
    texts_from: LedgerEnd | None = None,
) -> tuple[list[TranscriptFacts], LedgerEnd]:
    """What the ledger says of this plans dir's plans, as facts per session; and where
    the ledger ends. The texts of lines past texts_from (where the last scan's reading
    ended) are set aside in texts: every text, if the ledger is another file now (written
    anew by a compaction) or shorter than that."""
    lines = LedgerLines(state_dir)

    def aside(line: dict[str, Any], plan: str, sha: str, how: str, end: int) -> None:
        # Asked while the lines are read: which file, and its size, are known by then.
        if texts is not None and end > _texts_start(texts_from, lines):
            _set_aside(texts, state_dir, line, plan, sha, how)

    found, end = replay(lines, plans, aside)
    return found, LedgerEnd(lines.inode, end)


def _texts_start(texts_from: LedgerEnd | None, lines: LedgerLines) -> int:
    """Where the texts not set aside yet begin in the file being read: the last reading's
    end, if it was this file and no longer than it is; else its start."""
    if texts_from is None or texts_from.inode not in (0, lines.inode):
        return 0
    return texts_from.offset if texts_from.offset <= lines.size else 0


TextFound = Callable[[dict[str, Any], str, str, str, int], None]  # line, plan, sha, how, end


def replay(
    lines: Iterable[tuple[int, dict[str, Any]]], plans: PlanPaths, text_found: TextFound
) -> tuple[list[TranscriptFacts], int]:
    """The ledger's lines (with the offsets of their ends) read as facts per session for
    one plans dir, each text a line names told to text_found; and the last line's end."""
    found = _Facts()
    shown: dict[str, tuple[dict[str, Any], str]] = {}  # project -> its last plan shown
    ended: dict[str, dict[str, Any]] = {}  # project -> the last session cleared there
    end = 0
    for end, line in lines:
        event = line["event"]
        sha = str(line.get("sha256") or "")
        sha = sha if texts_seen.is_sha256(sha) else ""  # a name in ledger-texts/, never a path
        project = str(line.get("cwd"))
        if event == ENDED:
            ended[project] = line
            continue
        if event == CLEARED:
            approved = _approved_by_clear(line, shown.get(project), ended.pop(project, None))
            if approved is not None:
                shown.pop(project, None)
                presented, plan = approved
                found.add(line, IMPLEMENTING, plan, presented.get("sha256") or "")
            continue
        named = plans.plan_name(line.get("plan"))
        if named is None:
            continue  # another plans dir's plan (or none named)
        plan = named
        found.add(line, _KIND[event], plan, sha)
        if event == PRESENTED:
            shown[project] = (line, plan)
        else:
            shown.pop(project, None)  # answered: no "clear context" start approves it
        if sha:
            text_found(line, plan, sha, _HOW[event], end)
    return list(found.by_session.values()), end


def _approved_by_clear(
    start: dict[str, Any],
    last: tuple[dict[str, Any], str] | None,
    ending: dict[str, Any] | None,
) -> tuple[dict[str, Any], str] | None:
    """The plan shown that a "clear context" start approves: the session that ended just
    before the start presented it, and ended in the prompt that presented it. A person's
    own /clear ends in a prompt of its own: it approves nothing."""
    if last is None or ending is None:
        return None
    presented, _ = last
    prompt = presented.get("prompt")
    return (
        last
        if ending["session"] == presented["session"] != start["session"]
        and isinstance(prompt, str)
        and ending.get("prompt") == prompt
        and 0 <= _seconds(start["at"]) - _seconds(ending["at"]) <= CLEAR_WINDOW
        else None
    )


def _set_aside(
    texts: texts_seen.TextsSeen, state_dir: str, line: dict[str, Any], plan: str, sha: str, how: str
) -> None:
    path = Path(state_dir) / TEXTS / f"{sha}.md"
    try:
        data = read_regular(path, texts_seen.TEXT_MOST)  # never a link, a FIFO, a device
        text = data.decode("utf-8", "surrogatepass")
    except (OSError, UnicodeDecodeError):
        return
    if hashlib.sha256(data).hexdigest() != sha:
        return  # not the text the line names: another file put in its place
    texts.add(plan, sha, text, line["at"], how, line["session"])
