"""The journal of one run: JSON lines written before and after every move (SPEC 7).

A run's journal is `runs/NNNNNN-<kind>.jsonl` in the plans dir's state
folder. Records, in the order they are written:

    begin    {run, kind, plans_dir, archive_dir, proposal, undoes, started_at}
    group    {group, action, folder, planned: [file...]}   before a group moves (apply)
    intent   {seq, op, name, src, dst, sha256, size, group, ...}  before a move (synced
             a batch at a time, before the batch's first move)
    done     {seq, dst, info}      after it; `failed` {seq, error}; `rolled_back` {seq, error}
    skip     {name, action, reason}
    end      {interrupted, at}

An intent with no outcome is a move a kill interrupted (or one announced in
the same batch that had not started): recovery looks at the files to learn
whether it happened, and writes the outcome itself. `rolled_back` also
closes an announced move that was called off: its file changed, or its plan
stayed. A torn last line (killed mid-write) is ignored: its move had not
started.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

from clarity.fsio import fsync_dir
from clarity.state import DirState

MOVING_RUNS = ("apply", "archive")  # run kinds that move plans out; undo reverses them
BATCH_MOVES = 128  # moves announced under one fsync of the journal (apply and undo)

T = TypeVar("T")


def _path(value: str | None) -> Path | None:
    return Path(value) if value is not None else None


@dataclass(frozen=True, slots=True)
class Intent:
    """One file the run was about to move (archive, trash or restore)."""

    seq: int
    op: str  # "archive" | "trash" | "restore"
    name: str
    src: Path
    dst: Path | None  # None for trash: the trash names it
    sha256: str
    size: int
    group: str  # the name of the group's plan (itself, for the plan)
    extra: dict[str, Any] = field(default_factory=dict)  # op-specific facts

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Intent:
        known = {"op", "seq", "kind", "name", "src", "dst", "sha256", "size", "group"}
        return cls(
            data["seq"],
            data["kind"],
            data["name"],
            Path(data["src"]),
            _path(data.get("dst")),
            data["sha256"],
            data["size"],
            data["group"],
            {key: value for key, value in data.items() if key not in known},
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    status: str  # "done" | "failed" | "rolled_back"
    dst: Path | None = None  # where the file is now (done)
    info: Path | None = None  # the trash's .trashinfo record (trash, done)
    error: str | None = None


@dataclass(slots=True)
class RunLog:
    """What a journal says a run did."""

    path: Path
    begin: dict[str, Any]
    groups: list[dict[str, Any]] = field(default_factory=list)
    intents: dict[int, Intent] = field(default_factory=dict)
    outcomes: dict[int, Outcome] = field(default_factory=dict)
    skips: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def kind(self) -> str:
        return str(self.begin.get("kind", ""))

    @property
    def proposal(self) -> str | None:
        value = self.begin.get("proposal")
        return str(value) if value is not None else None

    @property
    def interrupted(self) -> bool:
        return self.end is None or bool(self.end.get("interrupted"))

    def done(self) -> list[tuple[Intent, Outcome]]:
        return [
            (intent, outcome)
            for seq, intent in self.intents.items()
            if (outcome := self.outcomes.get(seq)) is not None and outcome.status == "done"
        ]

    def in_flight(self) -> list[Intent]:
        return [intent for seq, intent in self.intents.items() if seq not in self.outcomes]


def read_run(path: Path) -> RunLog:
    """Parse a journal; lines that are not whole JSON records (a torn write) are skipped."""
    log: RunLog | None = None
    with path.open("rb") as stream:
        for raw in stream:
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            op = record.get("op")
            if op == "begin":
                log = RunLog(path, record)
            elif log is None:
                continue
            elif op == "group":
                log.groups.append(record)
            elif op == "intent":
                log.intents[record["seq"]] = Intent.from_json(record)
            elif op in ("done", "failed", "rolled_back"):
                log.outcomes[record["seq"]] = Outcome(
                    op, _path(record.get("dst")), _path(record.get("info")), record.get("error")
                )
            elif op == "skip":
                log.skips.append(record)
            elif op == "end":
                log.end = record
    return log if log is not None else RunLog(path, {"kind": "unknown"}, end={"empty": True})


def read_runs(state: DirState) -> list[RunLog]:
    return [read_run(path) for path in state.run_files()]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Journal:
    """Appends records to one run's journal, each on disk before the call returns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(path, flags, 0o600)
        self._seq = 0
        fsync_dir(path.parent)

    @classmethod
    def start(cls, state: DirState, kind: str, **begin: Any) -> Journal:
        """Open the next run's journal, mark it running, and write its `begin`."""
        state.ensure()
        path = state.new_run_file(kind)
        journal = cls(path)
        state.mark_running(path)
        journal.write(
            "begin", run=path.name, kind=kind, pid=os.getpid(), started_at=now_iso(), **begin
        )
        return journal

    @classmethod
    def resume(cls, log: RunLog) -> Journal:
        """Reopen an interrupted run's journal to record how recovery settled it."""
        journal = cls(log.path)
        journal._seq = max(log.intents, default=0)
        _terminate_torn_line(log.path, journal._fd)
        return journal

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def write(self, op: str, *, sync: bool = True, **fields: Any) -> None:
        """Append one record; with sync, it and every record before it are on disk.

        A record written without sync survives a kill (it is in the page
        cache) and reaches the disk with the next synced one; only what comes
        before a move must be on disk before it: an intent, and its group.
        """
        line = json.dumps({"op": op, **fields}, ensure_ascii=True, default=os.fsdecode)
        data = (line + "\n").encode("ascii")
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        if sync:
            os.fsync(self._fd)

    def sync(self) -> None:
        """Every record written so far is on disk."""
        os.fsync(self._fd)

    def intent(self, intent: Intent) -> None:
        """Announce a move. Not synced here: a `Batch` syncs its intents before
        the first of its moves starts."""
        self.write(
            "intent",
            sync=False,
            seq=intent.seq,
            kind=intent.op,
            name=intent.name,
            src=intent.src,
            dst=intent.dst,
            sha256=intent.sha256,
            size=intent.size,
            group=intent.group,
            **intent.extra,
        )

    def outcome(self, seq: int, outcome: Outcome) -> None:
        """Record how a move ended. Not synced: if a crash loses it, the intent
        without an outcome sends recovery to look at the files, as after a kill."""
        fields: dict[str, Any] = {"seq": seq}
        for key in ("dst", "info", "error"):
            value = getattr(outcome, key)
            if value is not None:
                fields[key] = value
        self.write(outcome.status, sync=False, **fields)

    def close(self, state: DirState, *, interrupted: bool = False) -> None:
        self.write("end", interrupted=interrupted, at=now_iso())
        os.close(self._fd)
        state.mark_running(None)


def _terminate_torn_line(path: Path, fd: int) -> None:
    """A kill mid-write leaves a line without its newline: end it before appending."""
    size = path.stat().st_size
    if size:
        with path.open("rb") as stream:
            stream.seek(size - 1)
            if stream.read(1) != b"\n":
                os.write(fd, b"\n")


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
