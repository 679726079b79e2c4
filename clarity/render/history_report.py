"""`clarity history` and `clarity diff` as text and JSON (SPEC 6.1)."""

from __future__ import annotations

import os
from typing import Any

from clarity.printable import display_name, format_size, printable, printable_lines
from clarity.render.json_report import envelope
from clarity.workflows.versions import History, PlanText


def history_lines(history: History) -> list[str]:
    count = len(history.texts)
    where = {"live": "in the plans dir", "archived": "archived", "gone": "gone from the plans dir"}
    lines = [
        f"{display_name(history.name)}: {count} version{'s' if count != 1 else ''}, "
        f"{where[history.where]}"
    ]
    for text in history.texts:
        now = "  <- the file now" if text.current else ""
        lines.append(
            f"  {text.number:>3}  {text.when[:16].replace('T', ' ')}  "
            f"{format_size(text.size):>8}  {text.sha256[:12]}  {printable(text.source)}{now}"
        )
    return lines


def _text_document(text: PlanText) -> dict[str, Any]:
    return {
        "number": text.number,
        "when": text.when,
        "size": text.size,
        "sha256": text.sha256,
        "source": text.source,
        "path": os.fsdecode(text.path),
        "current": text.current,
    }


def history_document(history: History) -> dict[str, Any]:
    return envelope(
        {
            "name": history.name,
            "where": history.where,
            "versions": [_text_document(text) for text in history.texts],
        }
    )


def diff_text(diff: str) -> str:
    """A diff as a terminal may show it: the plans' control characters escaped."""
    return printable_lines(line.expandtabs(4) for line in diff.splitlines())


# As git colours a diff: the headers bold, hunk lines cyan, lines taken out red, put in green.
_DIFF_COLOURS = (("+++", "\x1b[1m"), ("---", "\x1b[1m"), ("@@", "\x1b[36m"), ("+", "\x1b[32m"))
_RED, _RESET = "\x1b[31m", "\x1b[m"


def coloured_diff(diff: str) -> str:
    """diff_text in colour, for a terminal (each line's own characters escaped first, so
    the colours are the only escape codes in it)."""
    lines = []
    for line in diff_text(diff).splitlines():
        colour = next((c for start, c in _DIFF_COLOURS if line.startswith(start)), None)
        if colour is None and line.startswith("-"):
            colour = _RED
        lines.append(f"{colour}{line}{_RESET}" if colour else line)
    return "\n".join(lines) + "\n"
