"""Text that came from outside (a plan, a transcript, the agent) as a terminal can show it."""

from __future__ import annotations


def printable(text: str) -> str:
    """Control characters (ESC, CR, newline, ...) shown as escapes: they can move a
    terminal's cursor, recolour it, or split one line of a report in two."""
    if text.isprintable():
        return text  # almost always: one C-level check
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
