"""The scan report for a terminal (rich)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarity.model import PlanClass, ScanReport
from clarity.printable import printable
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
    from rich.table import Table
    from rich.text import Text

    from clarity.render.console import PlainConsole

_STYLES = {
    PlanClass.COMPLETED: "green",
    PlanClass.STALE: "yellow",
    PlanClass.DORMANT: "magenta",
    PlanClass.ACTIVE: "cyan",
}


def _indent(row: Row) -> str:
    return "  └ " if row.nested else ""


def _name(row: Row) -> str:
    """The name as shown (escaped); a sub-plan under its parent drops the parent's slug."""
    name = display_name(row.verdict.name)
    parent = row.verdict.parent
    if row.nested and parent is not None and name.startswith(parent.removesuffix(".md")):
        name = "…" + name[len(parent.removesuffix(".md")) :]
    return printable(name)


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _plan_cell(report: ScanReport, row: Row, name_width: int, console: PlainConsole) -> Text:
    """The name, and under it (dim) the title and project, cut to the name column's width."""
    indent = _indent(row)
    cell = console.render_str(indent + _name(row))
    project = project_text(report.project(row.verdict)) if not row.nested else ""
    about = " · ".join(
        part for part in (display_name(row.verdict.facts.title or ""), project) if part
    )
    if about:
        shown = _shorten(printable(about), name_width - len(indent))
        cell.append("\n")
        cell.append(console.render_str(" " * len(indent) + shown, style="dim"))
    return cell


def _reason_cell(report: ScanReport, row: Row, console: PlainConsole) -> Text:
    cell = console.render_str(reason_text(row))
    advice = report.advice.get(row.verdict.name)
    if advice is not None:
        cell.append("\n")
        cell.append(console.render_str(display_name(advice_text(advice)), style="italic"))
    left = days_at_risk(report, row.verdict)
    if left is not None:
        cell.append("\n")
        style = "bold red" if left < URGENT_DAYS else "dim"
        cell.append(console.render_str(cleanup_text(left), style=style))
    return cell


def _section(
    report: ScanReport, plan_class: PlanClass, title: str, rows: list[Row], console: PlainConsole
) -> Table:
    from rich import box
    from rich.table import Table

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
        table.add_row(
            _plan_cell(report, row, name_width, console),
            format_age(row.age_days),
            format_size(row.verdict.facts.size),
            _reason_cell(report, row, console),
        )
    return table


def print_scan(report: ScanReport, console: PlainConsole) -> None:
    """The report on the console, every string from outside escaped by it (never markup)."""
    # soft_wrap: a path in these lines is never broken, so it can be copied
    console.print(header_line(report), style="bold", soft_wrap=True)
    console.print(summary_line(report), soft_wrap=True)
    for plan_class, title, rows in sections(report):
        console.print()
        console.print(_section(report, plan_class, title, rows, console))
    if report.skipped:
        console.print()
        console.print(f"Skipped ({len(report.skipped)})", style="bold")
        for item in report.skipped:
            console.print(f"  {display_name(str(item.path))}: {item.reason}", soft_wrap=True)
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
            console.print(line, soft_wrap=True)
    warnings = warning_lines(report)
    if warnings:
        console.print()
        console.print(f"Warnings ({len(warnings)})", style="bold")
        for line in warnings:
            console.print(f"  {line}", soft_wrap=True)
