"""The scan report for a person at a terminal.

Counts first, then each class's plans in columns as wide as the terminal
allows; long lists fold as render/folding.py says (plans Claude Code's cleanup
is about to delete stay in sight), unless `--full`. Drawn as rich Segments, not a
rich Table: a table of 10,000 rows took seconds to lay out, these take milliseconds.

Every string from outside (names, titles, reasons, paths) is escaped with
`printable` here, since Segments reach the terminal as given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment, Segments

from clarity.hints import Again
from clarity.model import PlanClass, ScanReport
from clarity.printable import display_name, format_size, printable, project_text
from clarity.render.fit import fit, wrap
from clarity.render.folding import FOLD_OVER, WARNINGS_SHOWN, all_command, fold_line, visible_rows
from clarity.render.layout import (
    URGENT_DAYS,
    Row,
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

if TYPE_CHECKING:
    from rich.style import Style

    from clarity.render.console import PlainConsole

_STYLES = {
    PlanClass.COMPLETED: "green",
    PlanClass.STALE: "yellow",
    PlanClass.DORMANT: "magenta",
    PlanClass.ACTIVE: "cyan",
}
REASON_MIN = 24  # narrower than this, the reason goes under the name instead
REASON_WANTED = 60  # columns a reason may have before a title gets more
_AGE, _SIZE, _GAP, _MARGIN = 6, 8, 2, 2
_FIXED = _MARGIN + _GAP + _AGE + _GAP + _SIZE + _GAP


@dataclass(frozen=True, slots=True)
class _Widths:
    name: int
    reason: int  # 0: stacked, the reason on lines of its own under the name
    total: int


class _Drawing:
    """Segments for the console: lines of (text, style) pieces, each text already escaped."""

    def __init__(self, console: PlainConsole) -> None:
        self._console = console
        self.width = max(console.width, 40)
        # Prose is fitted to a terminal; a pipe or a file gets it whole, for scripts.
        self.prose_width = self.width if console.is_terminal else None
        self.segments: list[Segment] = []
        self._styles: dict[str, Style | None] = {}

    def style(self, name: str) -> Style | None:
        if name not in self._styles:
            self._styles[name] = self._console.get_style(name) if name else None
        return self._styles[name]

    def line(self, *pieces: tuple[str, str]) -> None:
        for text, style in pieces:
            if text:
                self.segments.append(Segment(text, self.style(style)))
        self.segments.append(Segment.line())

    def text(self, text: str, style: str = "") -> None:
        """One line of prose (a path, a note): never cut, so it can be copied; broken
        between words to fit the width, never inside a command (render.fit)."""
        text = printable(text)
        for part in fit(text, self.prose_width) if self.prose_width else [text]:
            self.line((part, style))


def _name(row: Row) -> str:
    """The name as shown (escaped); a sub-plan under its parent drops the parent's slug."""
    name = display_name(row.verdict.name)
    parent = row.verdict.parent
    if row.nested and parent is not None and name.startswith(parent.removesuffix(".md")):
        name = "…" + name[len(parent.removesuffix(".md")) :]
    return ("└ " if row.nested else "") + printable(name)


def _about(report: ScanReport, row: Row) -> str:
    """The dim line under a name: the plan's title and its project."""
    project = project_text(report.project(row.verdict)) if not row.nested else ""
    title = display_name(row.verdict.facts.title or "")
    about = " · ".join(part for part in (title, project) if part)
    return ("  " if row.nested else "") + printable(about) if about else ""


def _notes(report: ScanReport, row: Row) -> list[tuple[str, str]]:
    """Lines under a reason: the agent's verdict, the days Claude Code's cleanup leaves."""
    notes: list[tuple[str, str]] = []
    advice = report.advice.get(row.verdict.name)
    if advice is not None:
        notes.append((printable(display_name(advice_text(advice))), "italic"))
    left = days_at_risk(report, row.verdict)
    if left is not None:
        notes.append((cleanup_text(left, report), "bold red" if left < URGENT_DAYS else "dim"))
    return notes


def _cut(text: str, width: int) -> str:
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(width - 1, 0)) + "…"


def _cut_about(about: str, width: int) -> str:
    """The title and project line cut to width: the title gives way first, so that the
    project stays in sight (which repository a plan is about decides a lot)."""
    title, sep, project = about.rpartition(" · ")
    room = width - cell_len(sep + project)
    if cell_len(about) <= width or not sep or room < 8:
        return _cut(about, width)
    return _cut(title, room) + sep + project


def _widths(rows: list[tuple[Row, str, str, str]], total: int) -> _Widths:
    """Columns for these rows at this width: every name whole, titles as wide as spare room
    allows, the reason the rest; too narrow for a reason column, the reason goes under."""
    names = max(cell_len(name) for _, name, _, _ in rows)
    titles = max(cell_len(about) for _, _, about, _ in rows)
    reasons = max(cell_len(reason) for _, _, _, reason in rows)
    words = max(cell_len(word) for _, _, _, reason in rows for word in reason.split() or [""])
    if total - _FIXED - names < max(REASON_MIN, words):  # a session id would be split
        return _Widths(names, 0, total)
    spare_for_titles = total - _FIXED - min(max(reasons, REASON_MIN), REASON_WANTED)
    name = max(names, min(titles, spare_for_titles))
    return _Widths(name, total - _FIXED - name, total)


def _row(draw: _Drawing, report: ScanReport, item: tuple[Row, str, str, str], w: _Widths) -> None:
    row, name, about, reason = item
    margin = " " * _MARGIN
    figures = (
        " " * _GAP + format_age(row.age_days).rjust(_AGE) + " " * _GAP,
        format_size(row.verdict.facts.size).rjust(_SIZE),
    )
    notes = _notes(report, row)
    if w.reason == 0:  # stacked: a narrow terminal
        fits = w.name + _FIXED - _GAP <= w.total
        shown = set_cell_size(name, w.name) if fits else name
        draw.line((margin + shown, ""), (figures[0], ""), (figures[1], "dim"))
        indent = margin + "  "
        width = max(w.total - len(indent), 20)
        if about:
            draw.line((indent + _cut_about(about.strip(), width), "dim"))
        for line in wrap(reason, width):
            draw.line((indent + line, ""))
        for text, style in notes:
            for line in wrap(text, width):
                draw.line((indent + line, style))
        return
    lines = [(line, "") for line in wrap(reason, w.reason)]
    lines += [(line, style) for text, style in notes for line in wrap(text, w.reason)]
    left = [(set_cell_size(name, w.name), "")]
    if about:
        left.append((set_cell_size(_cut_about(about, w.name), w.name), "dim"))
    blank = " " * (w.name + len(figures[0]) + _SIZE + _GAP)
    for index in range(max(len(left), len(lines))):
        reason_text_, style = lines[index] if index < len(lines) else ("", "")
        if index < len(left) and not reason_text_:
            text, left_style = left[index]
            draw.line((margin + text.rstrip(), left_style))
        elif index < len(left):
            text, left_style = left[index]
            draw.line(
                (margin + text, left_style),
                (figures[0] if index == 0 else " " * len(figures[0]), ""),
                (figures[1] if index == 0 else " " * _SIZE, "dim"),
                (" " * _GAP + reason_text_, style),
            )
        else:
            draw.line((margin + blank + reason_text_, style))


def _section(
    draw: _Drawing,
    report: ScanReport,
    again: Again,
    plan_class: PlanClass,
    title: str,
    rows: list[Row],
    show_all: bool,
) -> None:
    visible, folded = visible_rows(report, plan_class, rows, show_all)
    items = [(row, _name(row), _about(report, row), printable(reason_text(row))) for row in visible]
    widths = _widths(items, draw.width)
    draw.line((f"{title} ({len(rows):,})", f"bold {_STYLES[plan_class]}"))
    header = " " * _MARGIN + "plan".ljust(widths.name) + " " * _GAP + "age".rjust(_AGE)
    header += " " * _GAP + "size".rjust(_SIZE)
    draw.line((header + (" " * _GAP + "reason" if widths.reason else ""), "dim"))
    for item in items:
        _row(draw, report, item, widths)
    if folded:
        draw.line((" " * _MARGIN + fold_line(again, plan_class, folded), "dim"))


def print_scan(
    report: ScanReport, console: PlainConsole, again: Again, *, show_all: bool = False
) -> None:
    """The report on the console: counts, what stays and what apply moves, what to know,
    and last the plans that need a decision, then the commands that act."""
    draw = _Drawing(console)
    draw.text(header_line(report), "bold")
    draw.text(summary_line(report))
    evidence = decided_by_line(report)
    if evidence:
        draw.text(evidence)  # under the counts it adds up to
    listed = list(sections(report))
    for plan_class, title, rows in listed:
        if plan_class is not PlanClass.DORMANT:
            draw.line()
            _section(draw, report, again, plan_class, title, rows, show_all)
    if report.skipped:
        draw.line()
        draw.text(f"Skipped ({len(report.skipped):,})", "bold")
        for item in report.skipped:
            draw.text(f"  {display_name(str(item.path))}: {item.reason}")
    _warnings(draw, report, again, show_all)
    notes = [*report.notes, *agent_lines(report.agent)]
    if notes:
        draw.line()
    for line in notes:
        draw.text(line)
    for plan_class, title, rows in listed:
        if plan_class is PlanClass.DORMANT:
            draw.line()
            _section(draw, report, again, plan_class, title, rows, show_all)
    draw.line()
    for line in [*decision_lines(report, again), proposal_line(report, again)]:
        draw.text(line)
    console.print(Segments(draw.segments), soft_wrap=True)


def _warnings(draw: _Drawing, report: ScanReport, again: Again, show_all: bool) -> None:
    warnings = warning_lines(report)
    if not warnings:
        return
    draw.line()
    draw.text(f"Warnings ({len(warnings):,})", "bold")
    shown = warnings if show_all or len(warnings) <= FOLD_OVER else warnings[:WARNINGS_SHOWN]
    for line in shown:
        draw.text(f"  {line}")
    if len(shown) < len(warnings):
        rest = len(warnings) - len(shown)
        draw.text(f"  ... and {rest:,} more; {all_command(again)} lists them", "dim")
