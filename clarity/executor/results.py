"""What a run did, file by file: the data that apply and undo return for rendering."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.executor.records import Move, RunKind

if TYPE_CHECKING:
    from clarity.model import AgentUsage


class Status(StrEnum):
    DONE = "done"
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class ActionResult:
    name: str
    action: Move
    status: Status
    destination: Path | None = None
    error: str | None = None  # why it failed
    reason: str | None = None  # why it was skipped


@dataclass(frozen=True, slots=True)
class RunReport:
    kind: RunKind
    plans_dir: Path
    archive_dir: Path
    run: str | None  # the journal's file name; None when there was nothing to do
    results: tuple[ActionResult, ...] = ()
    notes: tuple[str, ...] = ()  # things worth a line: recovery, nothing to do, ...
    problems: tuple[str, ...] = ()  # what failed besides a file: the index, a journal
    agent: AgentUsage | None = None  # set when the agent was asked for
    proposal: str | None = None  # apply: the id of the scan it carried out

    def counts(self) -> dict[str, int]:
        counts = {status.value: 0 for status in Status}
        for result in self.results:
            counts[result.status.value] += 1
        return counts

    @property
    def failed(self) -> bool:
        return bool(self.problems) or any(r.status is Status.FAILED for r in self.results)
