"""The journal's vocabulary: what a run is, what it moves, how each move ended, and
one typed record per journal line, each parsed by one validating reader.

A journal line is a JSON object whose `op` names its record type:

    begin    {run, kind, pid, started_at, plans_dir, archive_dir, proposal | undoes}
    group    {group, action, planned: [file..., each with its dst]}   before a group moves
    intent   {seq, move, name, src, dst, sha256, size, group, ...}  before a move
             (a restore's plan, and undo's return of it, carry its index `record`)
    done | failed | rolled_back   {seq, dst?, info?, error?}         after it
    skip     {name, action, reason}
    end      {interrupted, at}

`parse_record` turns a line into its record or raises `DamagedRecord` saying
what is wrong: nothing downstream reads a journal's dicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from clarity import validate
from clarity.archive.layout import check_record
from clarity.judge.proposal import ProposedFile
from clarity.model import Action
from clarity.validate import choice, count, optional_count, optional_path, optional_text, path, text


class RunKind(StrEnum):
    APPLY = "apply"  # carried out a scan's proposal
    ARCHIVE = "archive"  # plans a person named
    UNDO = "undo"
    RESTORE = "restore"  # an archived plan a person put back (clarity restore)


MOVING_RUNS = (RunKind.APPLY, RunKind.ARCHIVE)  # runs that move plans out of the plans dir
UNDOABLE_RUNS = (*MOVING_RUNS, RunKind.RESTORE)  # runs undo reverses, the latest first


class Move(StrEnum):
    ARCHIVE = "archive"
    TRASH = "trash"
    RESTORE = "restore"


class Ending(StrEnum):
    """How an announced move ended."""

    DONE = "done"
    FAILED = "failed"
    ROLLED_BACK = "rolled_back"  # it did not happen (interrupted before it, or called off)


DamagedRecord = validate.Damaged


@dataclass(frozen=True, slots=True)
class Begin:
    run: str  # the journal's file name
    kind: RunKind
    plans_dir: Path
    archive_dir: Path
    started_at: str
    proposal: str | None = None  # apply and archive: the proposal carried out
    undoes: tuple[str, ...] = ()  # undo: the runs it reverses

    def to_json(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "run": self.run,
            "kind": self.kind.value,
            "plans_dir": str(self.plans_dir),
            "archive_dir": str(self.archive_dir),
            "started_at": self.started_at,
        }
        if self.proposal is not None:
            fields["proposal"] = self.proposal
        if self.undoes:
            fields["undoes"] = list(self.undoes)
        return fields

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Begin:
        return cls(
            text(data, "run"),
            choice(data, "kind", RunKind),
            path(data, "plans_dir"),
            path(data, "archive_dir"),
            text(data, "started_at"),
            optional_text(data, "proposal"),
            validate.strings(data, "undoes"),
        )


@dataclass(frozen=True, slots=True)
class GroupRecord:
    """A group about to move: its plan first, each file with its destination."""

    action: Action
    planned: tuple[tuple[ProposedFile, Path | None], ...]

    @property
    def plan(self) -> ProposedFile:
        return self.planned[0][0]

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.plan.name,
            "action": self.action.value,
            "planned": [
                {**file.to_json(), "dst": None if dst is None else str(dst)}
                for file, dst in self.planned
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GroupRecord:
        action = choice(data, "action", Action)
        items = data.get("planned")
        if not isinstance(items, list) or not items:
            raise DamagedRecord("planned is not a list of files")
        planned = []
        for item in items:
            if not isinstance(item, dict):
                raise DamagedRecord("a planned file is not a record")
            planned.append((ProposedFile.from_json(item), optional_path(item, "dst")))
        return cls(action, tuple(planned))


@dataclass(frozen=True, slots=True)
class Intent:
    """One file the run was about to move (archive, trash or restore)."""

    seq: int
    move: Move
    name: str
    src: Path
    dst: Path | None  # None for trash: the trash names it
    sha256: str
    size: int
    group: str  # the name of the group's plan (itself, for the plan)
    mtime_ns: int | None = None  # the file's mtime: a trash entry with it is the one
    info: Path | None = None  # restore from the trash: its .trashinfo record
    from_run: str | None = None  # restore: the run that moved it out
    from_seq: int | None = None  # restore: that run's intent
    record_path: str | None = None  # restore of an archived plan: its index record's path
    record: dict[str, Any] | None = None  # the index record this move takes out or puts back

    @property
    def key(self) -> tuple[str, str] | None:
        """The index key (run, path) of the record a restore's move takes out."""
        if self.from_run is None or self.record_path is None:
            return None
        return (self.from_run, self.record_path)

    def to_json(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "seq": self.seq,
            "move": self.move.value,
            "name": self.name,
            "src": str(self.src),
            "dst": None if self.dst is None else str(self.dst),
            "sha256": self.sha256,
            "size": self.size,
            "group": self.group,
        }
        for key in ("mtime_ns", "info", "from_run", "from_seq", "record_path"):
            value = getattr(self, key)
            if value is not None:
                fields[key] = value if isinstance(value, int | str) else str(value)
        if self.record is not None:
            fields["record"] = self.record
        return fields

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Intent:
        if "move" not in data and "kind" in data:  # journals before the typed vocabulary
            data = {**data, "move": data["kind"]}
        return cls(
            count(data, "seq"),
            choice(data, "move", Move),
            text(data, "name"),
            path(data, "src"),
            optional_path(data, "dst"),
            validate.sha256(data),
            count(data, "size"),
            text(data, "group"),
            optional_count(data, "mtime_ns"),
            optional_path(data, "info"),
            optional_text(data, "from_run"),
            optional_count(data, "from_seq"),
            optional_text(data, "record_path"),
            None if data.get("record") is None else check_record(data["record"]),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    ending: Ending
    dst: Path | None = None  # where the file is now (done)
    info: Path | None = None  # the trash's .trashinfo record (trash, done)
    error: str | None = None

    @property
    def done(self) -> bool:
        return self.ending is Ending.DONE

    def to_json(self, seq: int) -> dict[str, Any]:
        fields: dict[str, Any] = {"seq": seq}
        for key in ("dst", "info", "error"):
            value = getattr(self, key)
            if value is not None:
                fields[key] = str(value)
        return fields

    @classmethod
    def from_json(cls, ending: Ending, data: dict[str, Any]) -> Outcome:
        return cls(
            ending,
            optional_path(data, "dst"),
            optional_path(data, "info"),
            optional_text(data, "error"),
        )


@dataclass(frozen=True, slots=True)
class Skip:
    name: str
    action: str  # what was not done: archive, trash or restore
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "action": self.action, "reason": self.reason}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Skip:
        return cls(text(data, "name"), text(data, "action"), text(data, "reason"))


@dataclass(frozen=True, slots=True)
class End:
    interrupted: bool
    at: str

    def to_json(self) -> dict[str, Any]:
        return {"interrupted": self.interrupted, "at": self.at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> End:
        return cls(validate.flag(data, "interrupted"), text(data, "at"))


@dataclass(frozen=True, slots=True)
class OutcomeRecord:
    """An outcome line: which intent it closes, and how."""

    seq: int
    outcome: Outcome


Record = Begin | GroupRecord | Intent | OutcomeRecord | Skip | End


def record_type(record: Record) -> str:
    """The `op` a record is written under."""
    if isinstance(record, OutcomeRecord):
        return record.outcome.ending.value
    return {
        Begin: "begin",
        GroupRecord: "group",
        Intent: "intent",
        Skip: "skip",
        End: "end",
    }[type(record)]


def to_line(record: Record) -> bytes:
    """One journal line: ASCII JSON (a file name's odd bytes escaped), newline-ended."""
    if isinstance(record, OutcomeRecord):
        fields = record.outcome.to_json(record.seq)
    else:
        fields = record.to_json()
    line = json.dumps({"op": record_type(record), **fields}, ensure_ascii=True)
    return line.encode("ascii") + b"\n"


def parse_record(line: bytes) -> Record:
    """A journal line's record; DamagedRecord says why a line is not one."""
    try:
        data = validate.record(json.loads(line))
    except (ValueError, RecursionError):
        raise DamagedRecord("not a JSON record") from None
    op = data.get("op")
    if op == "begin":
        return Begin.from_json(data)
    if op == "group":
        return GroupRecord.from_json(data)
    if op == "intent":
        return Intent.from_json(data)
    if op in tuple(Ending):
        return OutcomeRecord(count(data, "seq"), Outcome.from_json(Ending(op), data))
    if op == "skip":
        return Skip.from_json(data)
    if op == "end":
        return End.from_json(data)
    raise DamagedRecord(f"unknown record type {op!r}")
