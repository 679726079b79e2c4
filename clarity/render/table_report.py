"""The scan report for a terminal (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarity.model import PlanClass, ScanReport
from clarity.render.layout import (
    URGENT_DAYS,
    Row,
    advice_text,
    agent_lines,
    cleanup_lines,
    cleanup_text,
    days_at_risk,
    decided_by_line,
    display_name,
    format_age,
    format_size,
    header_line,
    project_text,
    proposal_line,
    reason_text,
    sections,
    summary_line,
    warning_lines,
)

if TYPE_CHECKING:
    from rich.console import Console

_STYLES = {
    PlanClass.COMPLETED: "green",
    PlanClass.STALE: "yellow",
    PlanClass.DORMANT: "magenta",
    PlanClass.ACTIVE: "cyan",
}


def _indent(row: Row) -> str:
    return "  └ " if row.nested else ""


def _name(row: Row) -> str:
    """A sub-plan under its parent drops the parent's slug: it is right above."""
    name = display_name(row.verdict.name)
    parent = row.verdict.parent
    if row.nested and parent is not None and name.startswith(parent.removesuffix(".md")):
        return "…" + name[len(parent.removesuffix(".md")) :]
    return name


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def print_scan(report: ScanReport, console: Console) -> None:
    from rich import box
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    # soft_wrap: a path in these lines is never broken, so it can be copied
    console.print(escape(header_line(report)), style="bold", soft_wrap=True)
    console.print(escape(summary_line(report)), soft_wrap=True)
    for plan_class, title, rows in sections(report):
        table = Table(
            title=f"{title} ({len(rows)})",
            title_justify="left",
            title_style=f"bold {_STYLES[plan_class]}",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
        )
        # Names are what a user acts on: never wrapped. The title sits under the name.
        table.add_column("plan", no_wrap=True, overflow="ellipsis")
        table.add_column("age", justify="right", no_wrap=True)
        table.add_column("size", justify="right", no_wrap=True)
        table.add_column("reason", overflow="fold", min_width=20)
        name_width = max(24, *(len(_indent(row)) + len(_name(row)) for row in rows))
        for row in rows:
            indent = _indent(row)
            plan = Text(indent + _name(row))
            project = project_text(report.project(row.verdict)) if not row.nested else ""
            about = " · ".join(
                part for part in (display_name(row.verdict.facts.title or ""), project) if part
            )
            if about:
                plan.append("\n" + " " * len(indent) + _shorten(about, name_width - len(indent)))
                plan.stylize("dim", len(indent) + len(_name(row)))
            size = format_size(row.verdict.facts.size)
            reason = Text(reason_text(row))
            advice = report.advice.get(row.verdict.name)
            if advice is not None:
                reason.append("\n" + display_name(advice_text(advice)), "italic")
            left = days_at_risk(report, row.verdict)
            if left is not None:
                style = "bold red" if left < URGENT_DAYS else "dim"
                reason.append("\n" + cleanup_text(left), style)
            table.add_row(plan, format_age(row.age_days), size, reason)
        console.print()
        console.print(table)
    if report.skipped:
        console.print()
        console.print(f"Skipped ({len(report.skipped)})", style="bold")
        for item in report.skipped:
            line = f"  {display_name(str(item.path))}: {item.reason}"
            console.print(line, markup=False, soft_wrap=True)
    evidence = decided_by_line(report)
    notes = [
        *([evidence] if evidence else []),
        proposal_line(report),
        *cleanup_lines(report),
        *report.notes,
        *agent_lines(report.agent),
    ]
    if notes:
        console.print()
        for line in notes:
            console.print(line, markup=False, soft_wrap=True)
    warnings = warning_lines(report)
    if warnings:
        console.print()
        console.print(f"Warnings ({len(warnings)})", style="bold")
        for line in warnings:
            console.print(f"  {line}", markup=False, soft_wrap=True)
