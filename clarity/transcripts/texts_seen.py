"""The texts of plans that sessions presented, approved or wrote, as a scan reads them in the
transcripts (SPEC 6.1): set aside in clarity's state folder until a run that writes keeps
them as versions (workflows/keeping.py). A scan writes nothing in the archive, and a
transcript is read once (incrementally), so what it carries is set aside when it is read.

    <state>/plan-texts/
        seen.jsonl          one line per (plan, text): plan, sha256, time, source
        <sha256>.md         the text, UTF-8, as the session carried it

The files are clarity's own cache of what a transcript said: once kept as a version, a
text's file here goes (the version is the record). A text a session carried twice, or
in several ways, is set aside once, by the most telling way (approved before presented).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from clarity.fsio import append_lines, read_regular, sweep_folder_temps

_SHA256 = re.compile(r"[0-9a-f]{64}")


def is_sha256(text: str) -> bool:
    """A text's name in a folder of texts: 64 hex digits, never a path (a line of a state
    file that says otherwise names no text of clarity's)."""
    return _SHA256.fullmatch(text) is not None


def is_plan_file(name: str) -> bool:
    """A plan's file name, as the plans reader takes one (plans.reader.is_plan_name, which
    this wing cannot import), and a name only: no folder in it."""
    return name.endswith(".md") and not name.startswith(".") and "/" not in name


FOLDER = "plan-texts"
SEEN = "seen.jsonl"
SEEN_MOST = 64 * 1024 * 1024  # a line a text: past this it is not a file clarity wrote
TEXT_MOST = 16 * 1024 * 1024  # a longer "plan" in a transcript is no plan: not set aside

# How a session carried the text, most telling first (history says it with the session).
APPROVED = "approved"
IMPLEMENTED = "approved with clear context, implemented"
PRESENTED = "presented"
WRITTEN = "written"
_RANK = {APPROVED: 0, IMPLEMENTED: 1, PRESENTED: 2, WRITTEN: 3}


class SeenText(NamedTuple):
    plan: str  # foo.md
    sha256: str
    time: str  # when the session carried it (ISO, as Claude Code stamps it)
    how: str  # APPROVED, IMPLEMENTED, PRESENTED, WRITTEN
    session: str

    @property
    def source(self) -> str:
        """As history says it: `approved in session 3f2a1b4c`."""
        return f"{self.how} in session {self.session[:8]}"


class TextsSeen:
    """What one scan's reading of the transcripts found, until it is set aside."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], tuple[SeenText, str]] = {}

    def add(self, plan: str, sha256: str, text: object, time: str, how: str, session: str) -> None:
        """A text a session carried (text None: it approved a text it presented before,
        known by its sha256 only)."""
        key = (plan, sha256)
        was = self.found.get(key)
        if was is not None and _RANK[how] < _RANK[was[0].how]:
            self.found[key] = (SeenText(plan, sha256, time, how, session), was[1])
            return
        if was is not None or not isinstance(text, str) or not text.strip():
            return
        if len(text) <= TEXT_MOST and sha256:
            self.found[key] = (SeenText(plan, sha256, time, how, session), text)

    def set_aside(self, folder: Path) -> bool:
        """Write each text found into folder (its file first, then its line); whether all
        of them are there now. Never raises. A text not set aside is found again only if
        its transcript (or the ledger) is read again: the caller moves its read position
        past it only on True."""
        if not self.found:
            return True
        temp = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            sweep_folder_temps(folder)  # texts a scan killed midway began
            lines = []
            for seen, text in self.found.values():
                path = folder / f"{seen.sha256}.md"
                if not path.exists():
                    temp = folder / f".{seen.sha256}.{os.getpid()}.tmp"
                    temp.write_bytes(text.encode("utf-8", "surrogatepass"))
                    temp.replace(path)
                    temp = None
                lines.append(json.dumps(seen._asdict(), ensure_ascii=True) + "\n")
            append_lines(folder / SEEN, "".join(lines).encode("ascii"))
        except OSError:
            if temp is not None:
                with contextlib.suppress(OSError):
                    temp.unlink()
            return False
        self.found.clear()
        return True


def read_seen(folder: Path) -> list[SeenText]:
    """The texts set aside, each (plan, sha256) once, by its most telling way; a damaged
    line is passed over."""
    try:
        data = read_regular(folder / SEEN, SEEN_MOST).decode("ascii", "replace")
    except OSError:
        return []  # none yet, or not a file clarity wrote (a FIFO, a link): passed over
    best: dict[tuple[str, str], SeenText] = {}
    for raw in data.splitlines():
        try:
            record: Any = json.loads(raw)
            seen = SeenText(*(str(record[key]) for key in SeenText._fields))
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        if seen.how not in _RANK or not is_plan_file(seen.plan) or not is_sha256(seen.sha256):
            continue
        key = (seen.plan, seen.sha256)
        was = best.get(key)
        if was is None or _RANK[seen.how] < _RANK[was.how]:
            best[key] = seen
    return list(best.values())


def forget(folder: Path, kept: set[tuple[str, str]], left: list[SeenText]) -> None:
    """After keeping: seen.jsonl holds only what is left, and the kept texts' files go."""
    from clarity.fsio import write_atomic

    data = "".join(json.dumps(seen._asdict(), ensure_ascii=True) + "\n" for seen in left)
    with contextlib.suppress(OSError):
        write_atomic(folder / SEEN, data.encode("ascii"), durable=False)
    wanted = {seen.sha256 for seen in left}
    for _, sha in kept:
        if sha not in wanted:
            with contextlib.suppress(OSError):
                (folder / f"{sha}.md").unlink()
