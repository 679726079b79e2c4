"""Text that came from outside (a plan, a transcript, the agent) as a terminal can show it.

`printable` is the one escape every human-readable output goes through: the
writers of clarity/render/output.py apply it to each line they are given, and the
rich console of clarity/render/console.py to each string it renders. JSON
never passes here: it keeps every name exact.

Beside it, the few pieces of text every report and the archive's INDEX.md share: a file
name, a size, a project folder, a Markdown code span.
"""

from __future__ import annotations

import os
import re
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


def display_name(name: str) -> str:
    """A file name as text that any terminal can print (undecodable bytes shown as U+FFFD)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def counted(count: int, word: str, plural: str | None = None) -> str:
    """`1 plan`, `2 plans`: a count and its word, never `plan(s)`."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def project_text(project: str | None) -> str:
    """A project's folder as a person reads it: under their home as ~."""
    if project is None:
        return ""
    home = os.path.expanduser("~")  # noqa: PTH111 - a string in, a string out
    if home not in ("~", "/") and (project == home or project.startswith(home + os.sep)):
        project = "~" + project[len(home) :]
    return printable(display_name(project))  # a transcript named it: no raw escapes


def markdown_text(text: str) -> str:
    """Outside text (a plan's title, summary, snippet) as Markdown prose that shows it and
    does nothing: raw HTML is text (`<` as `&lt;`, `&` as `&amp;`), and an image is not
    one (`![` as `!\\[`), so no Markdown viewer fetches what a plan names."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace("![", "!\\[")
    return text.replace("__", "\\_\\_").replace("**", "\\*\\*")  # __init__ is no emphasis


def code(text: str) -> str:
    """An inline code span that holds any text, backticks included."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
