"""Prose fitted to the terminal's width: broken between words, never inside one, and never
inside a command clarity prints for the person to paste.

Widths are terminal cells (a CJK character takes two), not characters. A
word or a command wider than the whole line keeps a line of its own, unbroken:
the terminal folds it for the eye, and copying it still gives the command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from rich.cells import cell_len

from clarity.hints import commands_given

# Commands written into a text by hand rather than by hints.clarity_command: the verb and
# the options that follow it (never an argument: a word after them may be prose).
_LITERAL_COMMAND = re.compile(r"clarity [a-z][-a-z]*(?: --?[a-z][-a-z]*)*")
CONTINUED = 2  # a line's continuation is indented this much more than the line


def _pieces(text: str) -> Iterator[tuple[str, str]]:
    """The text's unbreakable pieces (words, and commands), each with the spaces before it
    in the text: a line keeps its own spacing (aligned columns) wherever it is not broken."""
    spans: list[tuple[int, int]] = []
    for command in sorted(commands_given(), key=len, reverse=True):
        start = text.find(command)
        while start >= 0:
            end = start + len(command)
            if all(end <= s or start >= e for s, e in spans):
                spans.append((start, end))
            start = text.find(command, end)
    for match in _LITERAL_COMMAND.finditer(text):
        if all(match.end() <= s or match.start() >= e for s, e in spans):
            spans.append(match.span())
    position = 0
    for start, end in [*sorted(spans), (len(text), len(text))]:
        for word in _WORD.finditer(text, position, start):
            yield text[position : word.start()], word.group()
            position = word.end()
        if start < end:
            yield text[position:start], text[start:end]
            position = end


_WORD = re.compile(r"\S+")


def fit(text: str, width: int) -> list[str]:
    """One line of prose as lines of at most `width` cells (where a piece allows): the
    line's own indent kept, its continuations indented a little more."""
    if cell_len(text) <= width:
        return [text]
    body = text.lstrip(" ")
    indent = text[: len(text) - len(body)]
    more = indent + " " * CONTINUED
    lines: list[str] = []
    line = ""
    for gap, piece in _pieces(body):
        if not line:
            line = indent + piece
        elif cell_len(line) + cell_len(gap) + cell_len(piece) <= width:
            line += gap + piece
        else:
            lines.append(line)
            line = more + piece
    lines.append(line)
    return lines


def fit_lines(lines: Iterable[str], width: int) -> list[str]:
    return [part for line in lines for part in fit(line, width)]


def _chopped(pieces: Iterable[tuple[str, str]], width: int) -> Iterator[str]:
    """Pieces wider than the column cut into column-wide runs of cells (text written without
    spaces, as CJK is, breaks anywhere), commands aside."""
    given = commands_given()
    for _, piece in pieces:
        if cell_len(piece) <= width or piece in given or width < 1:
            yield piece
            continue
        run = ""
        for char in piece:
            if run and cell_len(run + char) > width:
                yield run
                run = ""
            run += char
        yield run


def wrap(text: str, width: int) -> list[str]:
    """Text for a column `width` cells wide: broken between words, a word wider than the
    column (CJK text) between its characters; each line at most `width` cells."""
    if cell_len(text) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for piece in _chopped(_pieces(text), width):
        if line and cell_len(line) + 1 + cell_len(piece) <= width:
            line += " " + piece
        else:
            if line:
                lines.append(line)
            line = piece
    lines.append(line)
    return lines
