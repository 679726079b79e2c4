"""The scan report as Markdown: for the slash command and for logs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from clarity.hints import Again
from clarity.model import ScanReport
from clarity.printable import (
    code,
    display_name,
    format_size,
    markdown_text,
    printable,
    printable_lines,
    project_text,
)
from clarity.render.folding import FOLD_OVER, WARNINGS_SHOWN, all_command, fold_line, visible_rows
from clarity.render.layout import (
    advice_text,
    agent_lines,
    cleanup_text,
    days_at_risk,
    decided_by_line,
    decision_lines,
    format_age,
    header_line,
    proposal_line,
    reason_text,
    sections,
    summary_line,
    warning_lines,
)


def cell(text: str) -> str:
    """Text for a table cell: control characters escaped, `\\` and `|` as Markdown
    escapes (in a code span a backslash is itself: code_cell keeps it single)."""
    return markdown_text(printable(text).replace("\\", "\\\\").replace("|", "\\|"))


def code_cell(text: str) -> str:
    """A name as a code span in a table cell: escaped, a `|` kept from ending the cell."""
    return code(printable(text).replace("|", "\\|"))


def scan_markdown(report: ScanReport, again: Again, *, show_all: bool = False) -> str:
    """The report in Markdown, folded as the table is (render/folding.py) unless show_all:
    bounded whatever the number of plans, for the /clarity skill hands it to Claude."""
    lines = [f"## clarity: {cell(header_line(report))}", "", f"**{summary_line(report)}**"]
    for plan_class, title, rows in sections(report):
        visible, folded = visible_rows(report, plan_class, rows, show_all)
        lines += ["", f"### {title} ({len(rows)})", ""]
        lines += [
            "| plan | age | size | title | project | reason |",
            "|---|---:|---:|---|---|---|",
        ]
        for row in visible:
            name = code_cell(display_name(row.verdict.name))
            reason = reason_text(row)
            advice = report.advice.get(row.verdict.name)
            if advice is not None:
                reason += f" — {display_name(advice_text(advice))}"
            left = days_at_risk(report, row.verdict)
            if left is not None:
                reason += f" — {cleanup_text(left, report)}"
            lines.append(
                f"| {'↳ ' if row.nested else ''}{name} | {format_age(row.age_days)} | "
                f"{format_size(row.verdict.facts.size)} | "
                f"{cell(display_name(row.verdict.facts.title or ''))} | "
                f"{cell(project_text(report.project(row.verdict)))} | {cell(reason)} |"
            )
        if folded:
            line = fold_line(again, plan_class, folded, *_MARKDOWN, shown=code_cell)
            lines += ["", f"_{line}_"]
    if report.skipped:
        lines += ["", f"### Skipped ({len(report.skipped)})", ""]
        lines += [
            f"- {code(printable(display_name(str(s.path))))}: {cell(s.reason)}"
            for s in _some(report.skipped, show_all)
        ]
        lines += _rest(again, len(report.skipped), show_all)
    evidence = decided_by_line(report)
    notes = [
        *([evidence] if evidence else []),
        proposal_line(report, again),
        *decision_lines(report, again),
        *report.notes,
        *agent_lines(report.agent),
    ]
    if notes:
        lines += ["", *(f"_{cell(line)}_" for line in notes)]
    warnings = warning_lines(report)
    if warnings:
        lines += ["", f"### Warnings ({len(warnings)})", ""]
        lines += [f"- {cell(line)}" for line in _some(warnings, show_all)]
        lines += _rest(again, len(warnings), show_all)
    return printable_lines(lines)


_MARKDOWN = ("--format", "markdown")
T = TypeVar("T")


def _some(items: Sequence[T], show_all: bool) -> Sequence[T]:
    return items if show_all or len(items) <= FOLD_OVER else items[:WARNINGS_SHOWN]


def _rest(again: Again, count: int, show_all: bool) -> list[str]:
    left = count - len(_some(range(count), show_all))
    if not left:
        return []
    return [f"- ... and {left:,} more; {code(all_command(again, *_MARKDOWN))} lists them"]
