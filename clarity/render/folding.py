"""How much of a long list of plans a report shows: the table and the Markdown report (the
one the /clarity skill hands to Claude) fold the same way, so that neither grows with
the plans directory.

Lists apply handles alone (completed, stale, active) show their newest SHOWN
plans once they pass FOLD_OVER; the dormant plans, which need a decision, show
DORMANT_SHOWN once they pass DORMANT_FOLD_OVER. Past the fold, plans Claude
Code's cleanup deletes within a week are shown still, URGENT_SHOWN at most. The
rest is one line naming the command that lists them all (`--full`), with the
options that shaped this scan.
"""

from __future__ import annotations

from collections.abc import Callable

from clarity.hints import Again
from clarity.model import PlanClass, ScanReport
from clarity.render.layout import URGENT_DAYS, Row, days_at_risk

FOLDED = (PlanClass.COMPLETED, PlanClass.STALE, PlanClass.ACTIVE)  # apply decides these alone
SHOWN = 10  # plans a folded list shows (with their sub-plans) ...
FOLD_OVER = 15  # ... once it is longer than this
DORMANT_SHOWN = 30
DORMANT_FOLD_OVER = 40
URGENT_SHOWN = 30  # plans past the fold shown all the same: Claude Code deletes them soon
WARNINGS_SHOWN = 10  # warnings (and skipped files) listed before the rest is counted


def _cut(plan_class: PlanClass, rows: list[Row], show_all: bool) -> int:
    """How many rows come before the fold: all, or those of the first plans (a plan's
    sub-plans stay with it)."""
    if show_all:
        return len(rows)
    shown, over = (SHOWN, FOLD_OVER) if plan_class in FOLDED else (DORMANT_SHOWN, DORMANT_FOLD_OVER)
    if sum(1 for row in rows if not row.nested) <= over:
        return len(rows)
    seen = 0
    for index, row in enumerate(rows):
        if not row.nested:
            seen += 1
            if seen > shown:
                return index
    return len(rows)


def visible_rows(
    report: ScanReport, plan_class: PlanClass, rows: list[Row], show_all: bool
) -> tuple[list[Row], int]:
    """The rows to show, and how many were folded away (sub-plans count: the section's
    title counts them too)."""
    cut = _cut(plan_class, rows, show_all)
    rest = rows[cut:]
    urgent = [
        row
        for row in rest
        if (left := days_at_risk(report, row.verdict)) is not None and left < URGENT_DAYS
    ][:URGENT_SHOWN]
    return rows[:cut] + urgent, len(rest) - len(urgent)


def all_command(again: Again, *extra: str) -> str:
    """The scan again, every plan listed: with the options that shaped this one."""
    return again.command("scan", "--full", *extra, *again.scan)


def fold_line(
    again: Again,
    plan_class: PlanClass,
    folded: int,
    *extra: str,
    shown: Callable[[str], str] = str,
) -> str:
    """`... and N more completed; COMMAND lists them`, the command as `shown` writes it."""
    command = shown(all_command(again, *extra))
    return f"... and {folded:,} more {plan_class.value}; {command} lists them"
