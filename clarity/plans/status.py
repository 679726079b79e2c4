"""Status fields and status tables: a plan's own words, in a structured place (SPEC 4.2).

Real plans say they are done near the top (`## Status: IMPLEMENTED`,
`**Status:** ✅ COMPLETE`, `> **Status (2026-06-06):** Waves 1-3 DONE`) or
in a table with a Status column whose every row is done. They say they are
NOT done in the same places, often with a done word in the value
(`Phase 1-3 Complete, Phase 4 In Progress`), so a done word counts only when
nothing in the value qualifies it.

Pure functions on text already read: the reader hands over the plan's body
(after frontmatter) as far as it read it, and its tail for a big plan.
Ticked checkboxes and done words in prose or ordinary headings are never
evidence: people tick scope while planning, and `# 完了条件` is "completion
criteria".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from clarity.model import TextStatus
from clarity.plans.status_words import (
    OPEN_WORDS,
    closed_value,
    part_done,
    plain,
    says_done,
    status_value,
)
from clarity.printable import printable

# -- where a status is written -----------------------------------------------

_KEY = r"(?:status|状态|状態|ステータス|상태)"
_LINE_PREFIX = re.compile(r"^ {0,3}(?:>\s*)*(?:[-*+]\s+)?")
# `Status: X`, `**Status:** X`, `**Status**: X`, `Status (2026-06-06): X`
_FIELD = re.compile(rf"^{_KEY}\s*(?:\([^)]*\))?\s*[:\uff1a]\s*(?P<value>.*)$", re.IGNORECASE)
_HEADING = re.compile(r"^ {0,3}(?P<level>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
# `## Status`, `## Current Status`, `## Status: X`, `## Status - X`
_STATUS_HEADING = re.compile(
    rf"^(?:(?:current|overall|implementation|project|plan)\s+)?{_KEY}\s*(?:\([^)]*\))?"
    r"\s*(?:[:\uff1a\-\u2013\u2014]\s*(?P<value>.*))?$",
    re.IGNORECASE,
)
# Sections that open a plan and hold what the preamble would: its status is the plan's own.
_OPENING_SECTION = re.compile(
    r"^(?:summary|overview|tl;?\s*dr|metadata|meta|header|about|ticket|goal|概要|概述|摘要)\b",
    re.IGNORECASE,
)
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_CHECKBOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]")
_MAX_QUOTED = 60


def _quoted(value: str) -> str:
    """A status value as a reason quotes it: short, and with no raw control characters."""
    value = printable(plain(value))
    return value if len(value) <= _MAX_QUOTED else value[: _MAX_QUOTED - 1] + "…"


# Where the key may be: found by plain search ("tatus" in Status, status; "TATUS" in
# STATUS), since a case-blind search of every plan's text costs twenty times more.
_KEY_IN_TEXT = re.compile("tatus|TATUS|状态|状態|ステータス|상태")


def _may_hold_a_status(text: str) -> bool:
    return any(key in text for key in ("tatus", "TATUS", "状态", "状態", "ステータス", "상태"))


_THEMATIC_BREAK = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$", re.M)
_FOOTER_LINES = 12
_SUB_HEADING = re.compile(r"^ {0,3}#{2,6}[ \t]+(.*?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


class _Text:
    """One piece of a plan's text, looked at only around the places its status key appears.

    Most plans never write "status"; those that do, write it a few times. So
    the cost is one search of the text, and then work per occurrence, not per line.
    """

    def __init__(self, text: str, preamble: bool, ends_file: bool) -> None:
        self.text = text
        self._fenced = self._fenced_ranges()
        self.footer_start = self._footer_start() if ends_file else len(text) + 1
        # The preamble ends at the first sub-heading that is not a status heading or an
        # opening section (## Summary, ## Overview).
        self.preamble_end = 0
        if preamble:
            self.preamble_end = len(text)
            for heading in _SUB_HEADING.finditer(text):
                name = plain(heading.group(1))
                if not self.in_code(heading.start()) and not (
                    _STATUS_HEADING.match(name) or _OPENING_SECTION.match(name)
                ):
                    self.preamble_end = heading.start()
                    break

    def _footer_start(self) -> int:
        """Where the plan's closing block of `**Key**: value` lines starts (after its last
        thematic break, a few lines and no heading), or past the end when it has none."""
        breaks = [m for m in _THEMATIC_BREAK.finditer(self.text) if not self.in_code(m.start())]
        if breaks:
            footer = self.text[breaks[-1].end() :]
            lines = [line for line in footer.splitlines() if line.strip()]
            if 0 < len(lines) <= _FOOTER_LINES and not any(_HEADING.match(x) for x in lines):
                return breaks[-1].end()
        return len(self.text) + 1

    def _fenced_ranges(self) -> list[tuple[int, int]]:
        ranges: list[tuple[int, int]] = []
        opened: re.Match[str] | None = None
        for fence in _FENCE_LINE.finditer(self.text):
            if opened is None:
                opened = fence
            elif fence.group(1)[0] == opened.group(1)[0] and len(fence.group(1)) >= len(
                opened.group(1)
            ):
                ranges.append((opened.start(), fence.end()))
                opened = None
        if opened is not None:
            ranges.append((opened.start(), len(self.text)))
        return ranges

    def in_a_part_of_the_work(self, position: int) -> bool:
        """Whether position is in a section of the work (## Phase 2, ## Next steps), whose
        open status keeps a plan open whatever its head says; not one of a test run's
        results or a review's ("Overall Status"), where the head's status decides."""
        section = None
        for heading in _SUB_HEADING.finditer(self.text, 0, position):
            if not self.in_code(heading.start()):
                section = heading.group(1)
        return section is not None and _WORK_PART.search(plain(section)) is not None

    def in_code(self, position: int) -> bool:
        return any(start <= position < end for start, end in self._fenced)

    def line_at(self, position: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, position) + 1
        end = self.text.find("\n", position)
        return start, len(self.text) if end < 0 else end

    def lines_after(self, end: int, limit: int) -> Iterator[str]:
        """Up to `limit` lines after the line that ends at `end`."""
        position = end + 1
        for _ in range(limit):
            if position > len(self.text):
                return
            stop = self.text.find("\n", position)
            stop = len(self.text) if stop < 0 else stop
            yield self.text[position:stop].rstrip("\r")
            position = stop + 1

    def status_lines(self) -> Iterator[tuple[str, int, int]]:
        """Each line outside code blocks where the status key appears: (line, start, end)."""
        last = -1
        for hit in _KEY_IN_TEXT.finditer(self.text):
            start, end = self.line_at(hit.start())
            if start != last and not self.in_code(start):
                last = start
                yield self.text[start:end].rstrip("\r"), start, end


class _Field(NamedTuple):
    value: str
    plan_level: bool  # in the preamble, or under a Status heading: the plan's own status


def _fields(text: _Text, line: str, start: int, end: int) -> Iterator[_Field]:
    heading = _HEADING.match(line)
    if heading:
        status = _STATUS_HEADING.match(plain(heading.group("text")))
        if status is None or len(heading.group("level")) == 1:
            return  # `# 完了条件`, `## Status codes`: a heading, not a status
        value = status.group("value") or _first_line_under(text.lines_after(end, 4))
        if value:  # `## Status` followed by a table: the table speaks
            yield _Field(value, plan_level=True)
        return
    if _CHECKBOX.match(line):
        return  # `- [x] Status: done` is a ticked box, never evidence
    bare = _LINE_PREFIX.sub("", line).replace("*", "").replace("__", "").strip()
    match = _FIELD.match(bare)
    if match and match.group("value").strip():
        plan_level = start < text.preamble_end or start >= text.footer_start
        yield _Field(match.group("value"), plan_level)


def _first_line_under(lines: Iterable[str]) -> str | None:
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("|", "#")) or _CHECKBOX.match(stripped):
            return None
        return _LINE_PREFIX.sub("", stripped)
    return None


# -- status tables -------------------------------------------------------------


def _cells(row: str) -> list[str]:
    row = row.strip().removeprefix("|").removesuffix("|")
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


class _Table(NamedTuple):
    done: int
    rows: int


def _table(text: _Text, header: str, end: int) -> _Table | None:
    """The table whose header line this is, if it tracks work: how many of its rows are done.

    A status table has a Status column and a column naming the work (Phase,
    Task, Step, ..., or any first column that is not the status: Issue,
    Component, Fix). And every one of its status cells says done or open, or
    closed (N/A, skipped: a row that need not be done); one that says neither
    ("Audit usage", "200", "✅ ACTIF") shows the column is about something
    else, as in a table of endpoints and their HTTP status.
    """
    if "|" not in header:
        return None
    names = [plain(cell) for cell in _cells(header)]
    column = next((i for i, n in enumerate(names) if _KEY_ONLY.fullmatch(n)), None)
    if column is None or not (column > 0 or any(_WORK_COLUMN.search(n) for n in names)):
        return None
    rows = text.lines_after(end, _MAX_TABLE_ROWS + 1)
    if not _TABLE_SEPARATOR.match(next(rows, "")):
        return None
    done = count = closed = 0
    for row in rows:
        if "|" not in row or not row.strip():
            break
        cells = _cells(row)
        cell = cells[column] if column < len(cells) else ""
        said = status_value(cell)
        if said is None and closed_value(cell):
            closed += 1  # counted with the done: nothing is left to do in it
            said = True
        if said is None:
            return None
        count += 1
        done += said
    return _Table(done, count) if count > closed else None


_WORK_COLUMN = re.compile(
    r"""^\#$ | (?<![^\W_])(?:phases?|steps?|stages?|tasks?|milestones?|waves?|items?|actions?|
        changes?|tickets?|issues?|stor(?:y|ies)|features?|prs?|work|deliverables?|parts?|sprints?|
        epics?|fix(?:es)?|todos?)(?![^\W_])
      | 任务 | 计划项 | 阶段 | 步骤 | 事项 | タスク | フェーズ | 項目 | 단계 | 작업""",
    re.IGNORECASE | re.VERBOSE,
)
_KEY_ONLY = re.compile(_KEY, re.IGNORECASE)
_MAX_TABLE_ROWS = 200
_WORK_PART = re.compile(
    r"(?<![^\W_])(?:phases?|steps?|stages?|milestones?|waves?|parts?|sprints?|tasks?|todos?|"
    r"next|remaining|follow[\s-]?ups?|open|pending|backlog|阶段|步骤|フェーズ|단계)(?![^\W_])",
    re.IGNORECASE,
)


# -- the plan's status -----------------------------------------------------------


def read_status(head: str, tail: str | None = None) -> TextStatus | None:
    """What the plan's status fields and tables say, from its head (and a big plan's tail).

    head is the body after any frontmatter, as far as the reader read it;
    tail, the end of a plan too big to read whole. A plan's own status is in
    its preamble (before its first section), under a Status heading, or in
    the closing block of `**Key**: value` lines after its last `---`.
    Done when at least one says done and none says otherwise: one open phase
    in a table, or a field that is qualified, keeps the whole plan open. A
    field below the preamble never makes a plan done on its own; one that
    says it is open keeps the plan open, unless the plan's own status in its
    head said done first (the head decides over a test run's "Overall
    Status" deep in the body). A head that says done for a named part ("CORE
    IMPLEMENTATION COMPLETE") is done when a status table shows every row
    done, and open otherwise.
    """
    evidence: TextStatus | None = None
    head_done = False  # the plan's own status, first in its head, says done
    part: TextStatus | None = None  # done for a named part: a done table must show the rest
    for piece, preamble, ends_file in ((head, True, tail is None), (tail, False, True)):
        if not piece or not _may_hold_a_status(piece):
            continue  # most plans: a few plain searches, and nothing to look at
        text = _Text(piece, preamble, ends_file)
        for line, start, end in text.status_lines():
            for field in _fields(text, line, start, end):
                found = f'status field "{_quoted(field.value)}"'
                if says_done(field.value):
                    if field.plan_level and evidence is None:
                        evidence = TextStatus(found, True)
                        head_done = preamble and start < text.preamble_end
                elif field.plan_level and part is None and part_done(field.value):
                    part = TextStatus(found, False)
                elif field.plan_level or (
                    OPEN_WORDS.search(plain(field.value))
                    and (not head_done or text.in_a_part_of_the_work(start))
                ):
                    return TextStatus(found, False)
            table = _table(text, line, end)
            if table is not None:
                found = f"status table: {table.done}/{table.rows} rows done"
                if table.done < table.rows:
                    return TextStatus(found, False)
                if evidence is None or part is not None:
                    evidence = TextStatus(found, True)
    if part is not None and (evidence is None or not evidence.evidence.startswith("status table")):
        return part  # done for a part, and no table shows the rest done
    return evidence
