"""The proposal a scan records so that apply does exactly what was reviewed (SPEC 6).

A proposal lists each group that apply would move: a plan whose action is
archive or trash, with the sub-plans that follow it. Each file carries its
stamp and sha256 as the scan saw them; apply skips any file that no longer
matches.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from clarity import validate
from clarity.errors import ClarityError
from clarity.fsio import write_atomic
from clarity.model import (
    MOVING_ACTIONS,
    Action,
    FileStamp,
    PlanClass,
    PlanFacts,
    ScanReport,
    Verdict,
)
from clarity.plans.reader import Fingerprint, NotARegularFile, fingerprint
from clarity.progress import Progress, Tick
from clarity.state import DirState

PROPOSAL_VERSION = 1


class ProposedFile(NamedTuple):
    name: str
    stamp: FileStamp
    sha256: str
    title: str | None
    plan_class: PlanClass
    reason: str
    project: str | None = None  # the working directory of the plan's session, if known

    def to_json(self) -> dict[str, Any]:
        stamp = self.stamp
        return {
            "name": self.name,
            "size": stamp.size,
            "mtime_ns": stamp.mtime_ns,
            "inode": stamp.inode,
            "ctime_ns": stamp.ctime_ns,
            "sha256": self.sha256,
            "title": self.title,
            "class": self.plan_class.value,
            "reason": self.reason,
            "project": self.project,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProposedFile:
        """Raises validate.Damaged naming the field that is not what clarity wrote."""
        data = validate.record(data)
        stamp = FileStamp(
            validate.count(data, "size"),
            validate.count(data, "mtime_ns"),
            validate.count(data, "inode"),
            validate.count(data, "ctime_ns"),
        )
        name = validate.text(data, "name")
        if not name or "/" in name or name in (".", ".."):
            raise validate.Damaged(f"name {name!r} is not a file name")
        return cls(
            name,
            stamp,
            validate.sha256(data),
            validate.optional_text(data, "title"),
            validate.choice(data, "class", PlanClass),
            validate.text(data, "reason"),
            # absent from proposals recorded before it was kept
            project if isinstance(project := data.get("project"), str) else None,
        )


class ProposedGroup(NamedTuple):
    """A plan to archive or trash, and the sub-plans that go with it."""

    action: Action
    plan: ProposedFile
    subplans: tuple[ProposedFile, ...] = ()

    @property
    def files(self) -> tuple[ProposedFile, ...]:
        return (self.plan, *self.subplans)


class Proposal(NamedTuple):
    id: str
    plans_dir: Path
    archive_dir: Path
    scanned_at: datetime
    groups: tuple[ProposedGroup, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": PROPOSAL_VERSION,
            "id": self.id,
            "plans_dir": os.fsdecode(self.plans_dir),
            "archive_dir": os.fsdecode(self.archive_dir),
            "scanned_at": self.scanned_at.isoformat(),
            "groups": [
                {
                    "action": group.action.value,
                    "plan": group.plan.to_json(),
                    "subplans": [sub.to_json() for sub in group.subplans],
                }
                for group in self.groups
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        """Raises validate.Damaged naming what is wrong."""
        data = validate.record(data)
        groups = data.get("groups")
        if not isinstance(groups, list):
            raise validate.Damaged("groups is not a list")
        return cls(
            validate.text(data, "id"),
            validate.path(data, "plans_dir"),
            validate.path(data, "archive_dir"),
            validate.moment(data, "scanned_at"),
            tuple(_group(validate.record(group)) for group in groups),
        )

    @property
    def label(self) -> str:
        """How people see it: `3fa2c1d0 (2026-11-23 10:04)`."""
        return f"{self.id} ({self.scanned_at:%Y-%m-%d %H:%M})"


def _group(data: dict[str, Any]) -> ProposedGroup:
    subplans = data.get("subplans", [])
    if not isinstance(subplans, list):
        raise validate.Damaged("subplans is not a list")
    return ProposedGroup(
        validate.choice(data, "action", Action),
        ProposedFile.from_json(validate.record(data.get("plan"))),
        tuple(ProposedFile.from_json(sub) for sub in subplans),
    )


def _fingerprint(facts: PlanFacts) -> Fingerprint | None:
    """Stamp and sha256 as the scan read them: the reader's, or one more read for a big file."""
    if facts.stamp is not None and facts.sha256 is not None:
        return Fingerprint(facts.stamp, facts.sha256)
    try:
        print_ = fingerprint(facts.path)
    except (OSError, NotARegularFile):
        return None  # gone or unreadable since it was read: nothing to propose for it
    if facts.stamp is not None and print_.stamp != facts.stamp:
        return None  # changed between reading and hashing: the verdict may be stale
    return print_


def _proposed(
    verdict: Verdict, tick: Tick | None = None, project: str | None = None
) -> ProposedFile | None:
    if tick is not None and verdict.facts.sha256 is None:
        tick(1)
    print_ = _fingerprint(verdict.facts)
    if print_ is None:
        return None
    return ProposedFile(
        verdict.name,
        print_.stamp,
        print_.sha256,
        verdict.facts.title,
        verdict.plan_class,
        verdict.reason,
        project,
    )


def proposed_group(
    verdict: Verdict,
    by_name: Mapping[str, Verdict],
    action: Action,
    tick: Tick | None = None,
    project: str | None = None,
) -> ProposedGroup | None:
    """A plan and the sub-plans that follow it, fingerprinted; None if the plan is gone.

    tick counts each file hashed here (the big ones the reader did not hash).
    project: the plan's, for its archive record.
    """
    plan = _proposed(verdict, tick, project)
    if plan is None:
        return None
    followers = (by_name[name] for name in verdict.subplans)
    subplans = tuple(
        proposed
        for sub in followers
        if sub.plan_class is verdict.plan_class and (proposed := _proposed(sub, tick)) is not None
    )
    return ProposedGroup(action, plan, subplans)


def proposal_of(report: ScanReport, groups: Iterable[ProposedGroup]) -> Proposal:
    proposal = Proposal(
        id="",
        plans_dir=report.plans_dir,
        archive_dir=report.archive_dir,
        scanned_at=report.now,
        groups=tuple(groups),
    )
    return proposal._replace(id=_identity(proposal))


def _identity(proposal: Proposal) -> str:
    """A short id named by what the proposal would do: every move, each file's stamp
    and hash. Two scans that propose the same moves of the same bytes are one
    proposal (a report scan in between does not void the one reviewed); any change
    to a file or a verdict's action makes another. Hashed from a plain join, not a
    second JSON encoding of the proposal: every scan builds one."""
    digest = hashlib.sha256(os.fsencode(proposal.plans_dir) + b"\0")
    digest.update(os.fsencode(proposal.archive_dir))
    for group in proposal.groups:
        digest.update(f"\0{group.action.value}".encode())
        for file in group.files:
            line = f"\0{file.name}\0{file.sha256}\0{tuple(file.stamp)}"
            digest.update(line.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:8]


def build_proposal(report: ScanReport, progress: Progress | None = None) -> Proposal:
    """Hash every file that apply would move; everything else needs no record.

    The reader hashed the small ones; a big one is read in full here.
    """
    by_name = {verdict.name: verdict for verdict in report.verdicts}
    moving = [v for v in report.verdicts if v.parent is None and v.action in MOVING_ACTIONS]
    tick = None
    if progress is not None:
        files = (by_name[name] for v in moving for name in (v.name, *v.subplans))
        tick = progress("Hashing plans to move", sum(f.facts.sha256 is None for f in files))
    groups = (
        proposed_group(verdict, by_name, verdict.action, tick, report.project(verdict))
        for verdict in moving
    )
    return proposal_of(report, (group for group in groups if group is not None))


def save_proposal(state: DirState, proposal: Proposal) -> None:
    state.ensure()
    # Not indented: indentation switches json to its pure-Python encoder,
    # a third of a 10k-plan scan's time.
    text = json.dumps(proposal.to_json(), ensure_ascii=True)
    write_atomic(state.proposal_file, text.encode("ascii") + b"\n")


def load_proposal(state: DirState) -> Proposal | None:
    try:
        text = state.proposal_file.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ClarityError(
            f"cannot read the recorded scan {state.proposal_file}: {error}; run clarity scan again"
        ) from None
    try:
        return Proposal.from_json(json.loads(text))
    except (ValueError, RecursionError) as error:  # validate.Damaged is a ValueError
        raise ClarityError(
            f"the recorded scan {state.proposal_file} is damaged ({error}); run clarity scan again"
        ) from None
