"""What Claude Code's sessions did with the plans of one plans directory (SPEC 4.3 and 9).

Every transcript under `<claude config dir>/projects/` is read from where the
last scan stopped (`transcripts/reader.py`), what was learned is kept in the
state folder (`transcripts/store.py` for transcripts that named a plan,
`transcripts/quiet.py`, a short line each, for the many that did not) and
weighed (`transcripts/evidence.py`): which plans live sessions use, which
session a `--session` id names, the project of each plan, and each plan's
latest approval.

A scan cut short (the SessionStart hook's deadline, an interrupt) keeps what
it read so far, so the next one goes on from there.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from clarity.fsio import read_regular, sweep_folder_temps, write_atomic
from clarity.model import PlanSessions
from clarity.transcripts.evidence import weigh
from clarity.transcripts.ledger import TEXTS as LEDGER_TEXTS
from clarity.transcripts.ledger_facts import LedgerEnd, ledger_facts
from clarity.transcripts.lines import PlanPaths
from clarity.transcripts.quiet import QuietCursor, QuietFile, parse, quiet_cursor, unchanged
from clarity.transcripts.reader import is_sidechain, read_transcript
from clarity.transcripts.store import TranscriptFacts, load_store, save_store
from clarity.transcripts.survey import CURRENT
from clarity.transcripts.texts_seen import FOLDER as TEXTS_FOLDER
from clarity.transcripts.texts_seen import TextsSeen
from clarity.transcripts.walk import Stop, walk

QUIET_FILE = "quiet.txt"


def _unchanged(known: TranscriptFacts, info: os.stat_result) -> bool:
    cursor = known.cursor
    return (cursor.size, cursor.mtime_ns, cursor.inode) == (
        info.st_size,
        info.st_mtime_ns,
        info.st_ino,
    )


def _session_of(relative: str) -> str:
    """The session a transcript's path names: `<project>/<session>.jsonl`."""
    return os.path.basename(relative).removesuffix(".jsonl")  # noqa: PTH119


class _Reading:
    """One scan of the projects folder, merged with what earlier scans kept."""

    def __init__(
        self,
        projects_dir: Path,
        plans_dir: Path,
        store_file: Path | None,
        session: str | None,
        go_on: bool,
    ) -> None:
        self.projects_dir = os.fspath(projects_dir)
        self.session = f"{session}.jsonl" if session else None  # the --session id's transcript
        self.session_found = False
        self.plans_dir, self.store_file = plans_dir, store_file
        store = load_store(store_file, plans_dir) if store_file is not None else None
        # Transcripts that said something; a store of older versions kept the quiet
        # ones here too: they are read again once, and kept apart from then on.
        kept = store.transcripts if store else {}
        self.known = {key: facts for key, facts in kept.items() if facts.says_anything}
        self.changed = len(self.known) != len(kept)
        self.notes = list(store.notes) if store else []
        self.plans = PlanPaths(plans_dir, Path(projects_dir).parent)
        if store_file is not None:  # the texts it reads are set aside beside what it learns
            self.plans.texts = TextsSeen()
        self.plan_sessions = {facts.session for facts in self.known.values()}
        self.ledger_sessions: set[str] = set()  # the sessions the approval ledger names
        self.read = self.bytes_read = 0
        quiet = None if store_file is None else store_file.with_name(QUIET_FILE)
        self.quiet = QuietFile(quiet, self.projects_dir, go_on=go_on)
        # Where the walk is: a scan cut short stopped there (None: it went through). Before
        # the first transcript it is where this walk began: cut short that early (listing
        # a big folder), nothing is taken for gone.
        self.at: Stop | None = self.quiet.start or Stop("")

    def run(self) -> None:
        survey = CURRENT.get()
        start = self.quiet.start
        walked = (
            survey.walk(self.projects_dir)  # every folder of the run walks it once
            if survey is not None and start is None
            else walk(self.projects_dir, start)
        )
        for relative, path, info in walked:
            self.at = Stop(relative)
            self._one(relative, path, info)
            self.at = Stop(relative, after=True)  # a scan that goes on starts just after it
        self.at = None

    def _one(self, relative: str, path: str, info: os.stat_result) -> None:
        if self.session and relative.endswith(f"/{self.session}"):
            self.session_found = True
        facts = self.known.get(path)
        if facts is not None:
            if not _unchanged(facts, info):
                self._read(path, facts)
            return
        line = self.quiet.take(relative)
        named = self.ledger_sessions and _session_of(relative) in self.ledger_sessions
        if line is not None and unchanged(line, info) and not named:
            self.quiet.keep(line)  # the common case, kept as it was written
            return
        if line is None and not named and self._quiet_everywhere(relative, path, info):
            return
        # A transcript that said nothing of the plans, of a session the ledger names (one
        # "clear context" started), is read again from its start: its edits are the work.
        after = self._read(path, None if line is None or named else parse(line))
        if isinstance(after, QuietCursor):
            self.quiet.put(relative, after)
        elif line is not None:
            self.quiet.drop()  # it says something now: kept with those that do

    def _quiet_everywhere(self, relative: str, path: str, info: os.stat_result) -> bool:
        """Whether another folder of a surveyed run (survey.py) read this transcript whole
        and found it names no folder of the run: its quiet line kept, unread. Not for a
        sub-agent's transcript (its session is in its first record), nor one whose session
        uses a plan here (its tool calls are the work)."""
        survey = CURRENT.get()
        if survey is None or is_sidechain(path):
            return False
        cursor = survey.quiet(path, info)
        if cursor is None or _session_of(relative) in self.plan_sessions:
            return False
        self.quiet.put(relative, cursor)
        return True

    def _read(
        self, path: str, before: TranscriptFacts | QuietCursor | None
    ) -> TranscriptFacts | QuietCursor | None:
        """Read what path appended; what is known of it now (a quiet one by its cursor)."""
        result = read_transcript(path, before, self.plans, self.plan_sessions)
        if result is None:
            return before  # unreadable now: what was known stays
        if result.bytes_read:
            self.read += 1
            self.bytes_read += result.bytes_read
        facts = result.facts
        if isinstance(before, TranscriptFacts) and result.rewritten:
            # What the old content said is kept, as for a deleted transcript.
            self.known[f"{path}\0was-{before.cursor.inode}-{before.cursor.offset}"] = before
        if not facts.says_anything:
            return quiet_cursor(facts)
        self.known[path] = facts
        self.changed = True
        return facts

    def keep(self) -> None:
        """Save what was learned; a scan cut short keeps the old lines of what it did not
        reach, and says where it stopped."""
        texts, store = self.plans.texts, self.store_file
        if (
            texts is not None
            and store is not None
            and not texts.set_aside(store.with_name(TEXTS_FOLDER))
        ):
            return  # nothing moves on: the next scan reads these texts again
        self.quiet.finish(stopped=self.at)
        if self.store_file is not None and self.changed:
            # Not kept: the next scan reads again what this one read; its evidence is used.
            with contextlib.suppress(OSError):
                save_store(self.store_file, self.plans_dir, self.known)


_LEDGER_READ = "ledger-read"  # how far this plans dir's scans set aside the ledger's texts


def _ledger(ledger_dir: Path, reading: _Reading, store_file: Path | None) -> list[TranscriptFacts]:
    """The ledger's facts for this plans dir; its new texts set aside with the transcripts'."""
    marker = None if store_file is None else store_file.with_name(_LEDGER_READ)
    texts_from = None if marker is None else _read_to(marker)
    texts = TextsSeen() if marker is not None else None
    facts, end = ledger_facts(os.fspath(ledger_dir), reading.plans, texts, texts_from)
    if marker is not None and texts is not None and end != texts_from:
        assert store_file is not None
        sweep_folder_temps(ledger_dir / LEDGER_TEXTS)  # texts a hook killed midway began
        if not texts.set_aside(store_file.with_name(TEXTS_FOLDER)):
            return facts  # the marker stays: the next scan sets these texts aside again
        with contextlib.suppress(OSError):
            write_atomic(marker, f"{end.inode} {end.offset}".encode("ascii"), durable=False)
    return facts


def _read_to(marker: Path) -> LedgerEnd:
    """Where this plans dir's scans last read the ledger to: `<inode> <offset>` (a marker
    written before compactions says the offset alone: inode 0, the file unknown)."""
    with contextlib.suppress(OSError, ValueError):
        numbers = [int(part) for part in read_regular(marker, 64).decode("ascii").split()]
        if len(numbers) == 2:
            return LedgerEnd(numbers[0], numbers[1])
        if len(numbers) == 1:
            return LedgerEnd(0, numbers[0])
    return LedgerEnd(0, 0)


def find_plan_sessions(
    projects_dir: Path,
    plans_dir: Path,
    now: float,
    protect_hours: float,
    current_session: str | None = None,
    store_file: Path | None = None,
    *,
    go_on: bool = False,
    ledger_dir: Path | None = None,
) -> PlanSessions:
    """Read what the transcripts appended since the last time, and weigh it all.

    store_file keeps what was learned between runs (None: read every
    transcript whole and keep nothing). go_on: start where a scan cut short
    stopped, taking what was learned of the transcripts before as it is. ledger_dir: the
    folder of the plugin's approval ledger (ledger.py), weighed beside the transcripts.
    """
    reading = _Reading(projects_dir, plans_dir, store_file, current_session, go_on)
    # The ledger first: a session it names (one "clear context" started) has its edits
    # read, even when its transcript never names the plan.
    ledger = _ledger(ledger_dir, reading, store_file) if ledger_dir is not None else []
    reading.ledger_sessions = {facts.session for facts in ledger}
    reading.plan_sessions.update(reading.ledger_sessions)
    try:
        if projects_dir.is_dir():
            reading.run()
        else:
            reading.at = None  # no transcripts at all: nothing left to go on with
    finally:
        reading.keep()  # cut short (an interrupt, the hook's deadline): what was read stays
    weighed = weigh([*reading.known.values(), *ledger], now, protect_hours, current_session)
    notes = reading.notes
    if (
        current_session
        and current_session not in weighed.known_sessions
        and not reading.session_found
    ):
        where = projects_dir if projects_dir.is_dir() else f"{projects_dir} (no such folder)"
        notes.append(f"session {current_session}: no transcript found under {where}")
    return PlanSessions(
        weighed.in_use,
        weighed.current,
        reading.read,
        tuple(notes),
        weighed.evidence,
        weighed.projects,
        reading.bytes_read,
        weighed.presented,
    )
