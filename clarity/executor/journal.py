"""The journal of one run: a typed record written before and after every move (SPEC 7).

A run's journal is `runs/NNNNNN-<kind>.jsonl` in the plans dir's state
folder; its records are in records.py. An intent with no outcome is a move a
kill interrupted (or one announced in the same batch that had not started):
recovery looks at the files to learn whether it happened, and writes the
outcome itself. `rolled_back` also closes an announced move that was called
off: its file changed, or its plan stayed.

A line a kill tore (the last, without its newline) is cut off when the run
is resumed: its batch had not been synced, so none of its moves had started.
Any other line that is not a record clarity writes is damage (a hand edit, a
bad disk): it is set aside in `<journal>.damaged`, reported once, and the
rest of the journal is used. A journal with no readable `begin` is set
aside whole.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from clarity.executor.records import (
    MOVING_RUNS,
    Begin,
    DamagedRecord,
    End,
    GroupRecord,
    Intent,
    Move,
    Outcome,
    OutcomeRecord,
    Record,
    RunKind,
    Skip,
    parse_record,
    to_line,
)
from clarity.fsio import APPEND_FLAGS, fsync_dir, move_aside, write_all, write_atomic
from clarity.state import DirState

__all__ = ["MOVING_RUNS", "Batch", "Intent", "Journal", "Outcome", "RunLog", "load_runs"]

BATCH_MOVES = 128  # moves announced under one fsync of the journal (apply and undo)
DAMAGED_SUFFIX = ".damaged"

T = TypeVar("T")


class Damage(NamedTuple):
    line: int  # 1-based
    reason: str
    raw: bytes


@dataclass(slots=True)
class RunLog:
    """What a journal says a run did."""

    path: Path
    begin: Begin | None  # None: no readable begin; the journal cannot be used
    groups: list[GroupRecord] = field(default_factory=list)
    intents: dict[int, Intent] = field(default_factory=dict)
    outcomes: dict[int, Outcome] = field(default_factory=dict)
    skips: list[Skip] = field(default_factory=list)
    end: End | None = None
    damaged: list[Damage] = field(default_factory=list)
    torn: int = 0  # bytes of a last line a kill tore

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def kind(self) -> RunKind | None:
        return None if self.begin is None else self.begin.kind

    @property
    def label(self) -> str:
        """The run as people name it: `the apply of 2026-11-23 10:04`, not its journal file."""
        if self.begin is None:
            return "a run whose start is unreadable"
        try:
            moment = datetime.fromisoformat(self.begin.started_at).astimezone()
        except ValueError:
            return f"an earlier {self.begin.kind}"
        return f"the {self.begin.kind} of {moment:%Y-%m-%d %H:%M}"

    @property
    def proposal(self) -> str | None:
        return None if self.begin is None else self.begin.proposal

    @property
    def interrupted(self) -> bool:
        return self.end is None or self.end.interrupted

    def done(self) -> list[tuple[Intent, Outcome]]:
        return [
            (intent, outcome)
            for seq, intent in self.intents.items()
            if (outcome := self.outcomes.get(seq)) is not None and outcome.done
        ]

    def in_flight(self) -> list[Intent]:
        return [intent for seq, intent in self.intents.items() if seq not in self.outcomes]

    def add(self, record: Record) -> None:
        if isinstance(record, GroupRecord):
            self.groups.append(record)
        elif isinstance(record, Intent):
            self.intents[record.seq] = record
        elif isinstance(record, OutcomeRecord):
            self.outcomes[record.seq] = record.outcome
        elif isinstance(record, Skip):
            self.skips.append(record)
        elif isinstance(record, End):
            self.end = record


def read_run(path: Path) -> RunLog:
    """Parse a journal, every line validated; damaged lines are listed, not used."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: empty, or a line a kill tore
    log = RunLog(path, None, torn=len(tail))
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            record = parse_record(raw)
        except DamagedRecord as error:
            log.damaged.append(Damage(number, str(error), raw))
            continue
        if isinstance(record, Begin):
            if log.begin is None:
                log.begin = record
            else:
                log.damaged.append(Damage(number, "a second begin", raw))
        elif log.begin is None:
            log.damaged.append(Damage(number, "a record before the run's begin", raw))
        elif misfit := _misfit(log, log.begin, record):
            log.damaged.append(Damage(number, misfit, raw))
        else:
            log.add(record)
    return log


def _misfit(log: RunLog, begin: Begin, record: Record) -> str | None:
    """Why a record does not fit its run (it, or the begin, damaged), or None: every path
    recovery and undo take from a journal is then where the run was working."""
    if isinstance(record, Intent):
        return _misplaced(begin, record)
    if isinstance(record, OutcomeRecord):
        intent = log.intents.get(record.seq)
        dst = record.outcome.dst
        if intent is not None and intent.dst is not None and dst not in (None, intent.dst):
            return "an outcome that does not end where its move was going"
    if isinstance(record, GroupRecord) and any(
        dst is not None and not dst.is_relative_to(begin.archive_dir) for _, dst in record.planned
    ):
        return "a group planned to go outside the run's archive"
    return None


def _misplaced(begin: Begin, intent: Intent) -> str | None:
    """Why a move does not fit its run's directories, or None."""
    if intent.move is Move.RESTORE:
        if intent.dst is None or intent.dst.parent != begin.plans_dir:
            return "a move back that does not end in the run's plans dir"
        return None
    if intent.src.parent != begin.plans_dir:
        return "a move that does not start in the run's plans dir"
    if intent.move is Move.ARCHIVE and (
        intent.dst is None or not intent.dst.is_relative_to(begin.archive_dir)
    ):
        return "an archive move that does not end in the run's archive"
    return None


class Runs(NamedTuple):
    logs: list[RunLog]  # usable journals, oldest first
    notes: list[str]  # damage found (and set aside) this time


def load_runs(state: DirState) -> Runs:
    """Every run's journal, damage set aside and reported once. Hold the lock."""
    logs: list[RunLog] = []
    notes: list[str] = []
    for path in state.run_files():
        try:
            log = read_run(path)
        except OSError as error:
            notes.append(f"cannot read the journal {path}: {error.strerror or error}; skipped")
            continue
        if (note := set_aside_damage(log)) is not None:
            notes.append(note)
        if log.begin is not None:
            logs.append(log)
    return Runs(logs, notes)


def set_aside_damage(log: RunLog) -> str | None:
    """Move damaged lines (or an unusable journal) into `<journal>.damaged`; say so once."""
    if log.begin is None and not log.damaged and not log.torn:
        with contextlib.suppress(OSError):
            log.path.unlink()  # empty: a run killed before its first record
        return None
    if not log.damaged and log.begin is not None:
        return None
    aside = log.path.with_name(log.path.name + DAMAGED_SUFFIX)
    where = f"the journal {log.path}"
    try:
        if log.begin is None:
            aside = move_aside(log.path, DAMAGED_SUFFIX)
            return (
                f"{where} has no readable start ({_first(log)}); set aside as {aside.name}: "
                "its run is not undone or resumed; check its plans by hand"
            )
        with open(aside, "ab") as stream:  # noqa: PTH123 - appended, like every journal
            stream.write(b"".join(damage.raw + b"\n" for damage in log.damaged))
        kept = _without(log.path.read_bytes(), {damage.line for damage in log.damaged})
        write_atomic(log.path, kept)
    except OSError as error:
        return f"{where} is damaged ({_first(log)}) and could not be set aside: {error}"
    lines = ", ".join(str(damage.line) for damage in log.damaged[:5])
    return (
        f"the journal of {log.label}: line {lines} damaged ({_first(log)}); set aside in "
        f"{aside}, the rest of the run is used"
    )


def _first(log: RunLog) -> str:
    return log.damaged[0].reason if log.damaged else "empty"


def _without(data: bytes, numbers: set[int]) -> bytes:
    lines = data.split(b"\n")
    tail = lines.pop()
    kept = [line for number, line in enumerate(lines, 1) if number not in numbers]
    return b"".join(line + b"\n" for line in kept) + tail


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Journal:
    """Appends records to one run's journal, each on disk before the call returns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, APPEND_FLAGS, 0o600)
        self._seq = 0
        fsync_dir(path.parent)

    @classmethod
    def start(
        cls,
        state: DirState,
        kind: RunKind,
        plans_dir: Path,
        archive_dir: Path,
        *,
        proposal: str | None = None,
        undoes: Iterable[str] = (),
    ) -> Journal:
        """Open the next run's journal, mark it running, and write its `begin`."""
        state.ensure()
        path = state.new_run_file(kind.value)
        journal = cls(path)
        state.mark_running(path)
        begin = Begin(path.name, kind, plans_dir, archive_dir, now_iso(), proposal, tuple(undoes))
        journal.write(begin)
        return journal

    @classmethod
    def resume(cls, log: RunLog) -> Journal:
        """Reopen an interrupted run's journal to record how recovery settled it."""
        if log.torn:  # a kill tore the last line: its batch never started; cut it off
            size = log.path.stat().st_size
            os.truncate(log.path, size - log.torn)
            log.torn = 0
        journal = cls(log.path)
        journal._seq = max(log.intents, default=0)
        return journal

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def write(self, record: Record, *, sync: bool = True) -> None:
        """Append one record; with sync, it and every record before it are on disk.

        A record written without sync survives a kill (it is in the page
        cache) and reaches the disk with the next synced one; only what comes
        before a move must be on disk before it: an intent, and its group.
        """
        write_all(self._fd, to_line(record))
        if sync:
            os.fsync(self._fd)

    def sync(self) -> None:
        """Every record written so far is on disk."""
        os.fsync(self._fd)

    def intent(self, intent: Intent) -> None:
        """Announce a move. Not synced here: a `Batch` syncs its intents before
        the first of its moves starts."""
        self.write(intent, sync=False)

    def outcome(self, seq: int, outcome: Outcome) -> None:
        """Record how a move ended. Not synced: if a crash loses it, the intent
        without an outcome sends recovery to look at the files, as after a kill."""
        self.write(OutcomeRecord(seq, outcome), sync=False)

    def close(self, state: DirState, *, interrupted: bool = False) -> None:
        self.write(End(interrupted, now_iso()))
        os.close(self._fd)
        state.mark_running(None)


class Batch(Generic[T]):
    """Moves announced in the journal and not yet made: at most BATCH_MOVES.

    The one place the journal's rule for moves is kept: every intent of a
    batch is on disk, by one fsync, before the first of its moves starts.
    """

    def __init__(self, journal: Journal, carry_out: Callable[[T], None]) -> None:
        self._journal = journal
        self._carry_out = carry_out  # makes an item's moves and records their outcomes
        self._items: list[T] = []
        self._moves = 0

    def announce(self, item: T, intents: Iterable[Intent]) -> None:
        """Write the intents of item's moves; a full batch is then carried out."""
        for intent in intents:
            self._journal.intent(intent)
            self._moves += 1
        self._items.append(item)
        if self._moves >= BATCH_MOVES:
            self.flush()

    def flush(self) -> None:
        """Make every announced intent durable with one fsync, then carry out each item."""
        if not self._items:
            return
        self._journal.sync()
        items, self._items, self._moves = self._items, [], 0
        for item in items:
            self._carry_out(item)
