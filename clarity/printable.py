"""Text that came from outside (a plan, a transcript, the agent) as a terminal can show it.

`printable` is the one escape every human-readable output goes through: the
writers of clarity/output.py apply it to each line they are given, and the
rich console of clarity/render/console.py to each string it renders. JSON
never passes here: it keeps every name exact.
"""

from __future__ import annotations

from collections.abc import Iterable


def printable(text: str) -> str:
    """Control characters (ESC, CR, newline, ...) shown as escapes: they can move a
    terminal's cursor, recolour it, or split one line of a report in two."""
    if text.isprintable():
        return text  # almost always: one C-level check
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def printable_lines(lines: Iterable[str]) -> str:
    """Lines a renderer made, as text: each escaped, then each ended by a newline.

    The renderer's own line breaks are the ends of its lines, so a control
    character inside a line (a file name's newline, say) is never one of them.
    """
    return "".join(printable(line) + "\n" for line in lines)


def one_paragraph(text: str) -> str:
    """Prose from outside (a summary) as one line: line breaks and tabs are spaces."""
    return printable(" ".join(text.split()))
