"""One plan as every reader lists it: a `PlanRow`. Scan's JSON, MCP's list_plans, the
browse page and its `.json` twins read rows, and `PlanRow.to_json` is their one wording
of a plan (SPEC 6: fields may be added, never renamed).

A row is a live plan with the scan's verdict (`live_row`), an archived plan, or the kept
text of a plan Claude Code deleted (workflows/catalogue.py makes those from the
archive's shelf). A new field goes here, once: in PlanRow, in `live_row` (or the
catalogue's shelf rows), and in `to_json`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from clarity.model import Action, Advice, Basis, Place, PlanClass, ScanReport, Verdict

ARCHIVED = "archived"  # the class a row gives an archived plan
# What a row's class may be: a live plan's class, archived, or a kept text.
ROW_CLASSES: tuple[str, ...] = (*PlanClass, ARCHIVED, Place.KEPT)

_VALUES: dict[Any, str] = {
    member: member.value for enum in (PlanClass, Action, Basis) for member in enum
}  # an enum's .value is a property lookup; a dict is a quarter of the cost


@dataclass(frozen=True, slots=True)
class PlanRow:
    """One plan: live (with the latest scan's verdict), archived, or kept."""

    place: str  # Place.LIVE, Place.ARCHIVE or Place.KEPT
    name: str
    path: str  # where its text is now: the plans folder, the archive or the versions
    title: str | None
    plan_class: str  # one of ROW_CLASSES
    action: str | None  # what apply would do with a live plan
    reason: str
    project: str | None
    mtime: float  # seconds since the epoch
    size: int
    cleanup_in_days: int | None = None  # before Claude Code's own cleanup deletes it
    parent: str | None = None
    subplans: tuple[str, ...] = ()
    archived_at: str | None = None
    root: str = ""  # the id of the plans folder it belongs to (the browse page's)
    value: str = ""  # what names it in its root: its name, or its path in the archive
    # A live plan's scan says more:
    age_days: float | None = None
    warnings: tuple[str, ...] = ()
    decided_by: str | None = None  # which rule decided (Basis)
    advice: Advice | None = None  # the agent's, for a dormant plan
    plan_source: str = ""  # whose plan: the coding agent's name (sources/), in JSON `agent`

    def to_json(self, zone: tzinfo | None) -> dict[str, Any]:
        """The row as every `--json` and MCP answer words a plan; times in zone."""
        row: dict[str, Any] = {
            "name": self.name,
            "path": self.path,
            "class": self.plan_class,
            "action": self.action,
            "reason": self.reason,
            "size": self.size,
            "mtime": datetime.fromtimestamp(self.mtime, tz=zone).isoformat(),
            "age_days": self.age_days,
            "title": self.title,
            "parent": self.parent,
            "subplans": list(self.subplans),
            "warnings": list(self.warnings),
            "project": self.project,
            "decided_by": self.decided_by,
        }
        if self.cleanup_in_days is not None:
            row["cleanup_in_days"] = self.cleanup_in_days
        if self.advice is not None:
            advice = self.advice
            row["advice"] = {
                "verdict": advice.verdict,
                "reason": advice.reason,
                "confidence": advice.confidence,
            }
        if self.plan_source:
            row["agent"] = self.plan_source
        if self.place != Place.LIVE:
            row["where"] = self.place
            row["archived_at"] = self.archived_at
        return row


def live_row(report: ScanReport, verdict: Verdict, folder: str, root: str = "") -> PlanRow:
    """A live plan's row: its facts and the scan's verdict. folder: the plans folder's
    path ending in its separator (a plan's path is folder + name, with no Path made per
    plan: a scan of 10,000 plans lists them all)."""
    facts = verdict.facts
    return PlanRow(
        place=Place.LIVE,
        name=facts.name,
        path=folder + facts.name,
        title=facts.title,
        plan_class=_VALUES[verdict.plan_class],
        action=_VALUES[verdict.action],
        reason=verdict.reason,
        project=report.project(verdict),  # the working directory of the plan's session
        mtime=facts.mtime,
        size=facts.size,
        cleanup_in_days=report.cleanup_in_days(verdict),
        parent=verdict.parent,
        subplans=verdict.subplans,
        root=root,
        value=facts.name,
        age_days=round(report.age_days(verdict), 2),
        warnings=facts.warnings,
        decided_by=_VALUES[verdict.basis],
        advice=report.advice.get(verdict.name),
        plan_source=report.plan_source,
    )


def live_rows(report: ScanReport, root: str = "") -> list[PlanRow]:
    """Every live plan of a scan, as rows, in the scan's order."""
    return list(each_live_row(report, root))


def each_live_row(report: ScanReport, root: str = "") -> Iterator[PlanRow]:
    """live_rows one at a time: a report written a plan at a time never holds them all
    (100,000 rows are some 50 MB)."""
    import os

    folder = os.path.join(report.plans_dir, "")  # noqa: PTH118 - Path drops the separator
    for verdict in report.verdicts:
        yield live_row(report, verdict, folder, root)


def rows_json(rows: list[PlanRow], like: datetime) -> list[dict[str, Any]]:
    """Rows as JSON, their times in the zone of like (the scan's now)."""
    zone = like.tzinfo
    return [row.to_json(zone) for row in rows]
