"""`clarity search`'s hits for a person (terminal or Markdown) and for scripts (JSON).

Every name, title and snippet came from a plan: each is escaped before it is
shown (printable); JSON keeps them exact, the match marked by offsets.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from clarity.printable import (
    code,
    display_name,
    markdown_text,
    printable,
    printable_lines,
    project_text,
)
from clarity.render.json_report import envelope

if TYPE_CHECKING:
    from rich.text import Text

    from clarity.render.console import PlainConsole
    from clarity.workflows.reports import Found, Hit

HIT, END = "\x02", "\x03"  # as clarity.search.index marks a match


def _heading(found: Found) -> str:
    count = len(found.hits)
    plans = "plan matches" if count == 1 else "plans match"
    return (
        f"{count} {plans} {found.query.strip()!r} ({found.live:,} live and "
        f"{found.archived:,} archived plan{'s' if found.archived != 1 else ''} indexed"
        + (f" in {len(found.roots)} plans folders" if len(found.roots) > 1 else "")
        + "), best first"
    )


def _where(hit: Hit, several: bool = False) -> str:
    if hit.place == "live":
        return f"plans dir {hit.path.parent}" if several else "plans dir"
    if hit.place == "kept":  # a text clarity kept: which version says where it is
        return f"kept text, {hit.reason}" if hit.reason else "kept text"
    archive = f"archive {hit.path.parent.parent}" if several else "archive"  # whose, of several
    return f"{archive} {hit.quarter}" if hit.quarter else archive


def _facts(hit: Hit, several: bool = False) -> str:
    parts = [_where(hit, several)]
    if hit.place != "kept":
        parts.append(hit.plan_class or "no scan since it changed")
    if hit.project:
        parts.append(project_text(hit.project))
    parts.append(hit.modified.astimezone().date().isoformat())
    return " · ".join(parts)


def _pieces(snippet: str) -> list[tuple[str, bool]]:
    """The snippet as (text, matched) pieces."""
    pieces: list[tuple[str, bool]] = []
    rest = snippet
    while HIT in rest:
        before, _, after = rest.partition(HIT)
        matched, _, rest = after.partition(END)
        pieces += [(before, False), (matched, True)]
    pieces.append((rest, False))
    return [(text, matched) for text, matched in pieces if text]


def _line(*pieces: tuple[str, str]) -> Text:
    from rich.text import Text

    return Text.assemble(*((printable(text), style) for text, style in pieces))


def print_hits(found: Found, console: PlainConsole) -> None:
    """The hits on the console: name and where it lives, its title, the match in bold. A
    pipe or a file gets whole lines (a path is never broken for a script to mend)."""
    whole = not console.is_terminal
    console.print(_line((_heading(found), "bold")), soft_wrap=whole)
    for hit in found.hits:
        console.print()
        console.print(
            _line(
                (display_name(hit.name), "bold"), ("  " + _facts(hit, len(found.roots) > 1), "dim")
            ),
            soft_wrap=whole,
        )
        if hit.title:
            console.print(_line(("  " + display_name(hit.title), "")), soft_wrap=whole)
        snippet = [("  ", "")] + [
            (display_name(text), "bold yellow" if matched else "")
            for text, matched in _pieces(hit.snippet)
        ]
        console.print(_line(*snippet), soft_wrap=whole)


def hits_markdown(found: Found) -> str:
    lines = [f"## clarity search: {printable(found.query.strip())}", "", _heading(found)]
    for hit in found.hits:
        snippet = "".join(
            f"**{markdown_text(text)}**" if matched else markdown_text(text)
            for text, matched in _pieces(hit.snippet)
        )
        title = f": {markdown_text(display_name(hit.title))}" if hit.title else ""
        lines += [
            "",
            f"- {code(display_name(hit.name))}{title} ({_facts(hit, len(found.roots) > 1)})",
            f"  > {display_name(snippet)}",
        ]
    return printable_lines(lines)


def hits_document(found: Found) -> dict[str, Any]:
    def snippet(hit: Hit) -> tuple[str, list[list[int]]]:
        text, marks, at = "", [], 0
        for piece, matched in _pieces(hit.snippet):
            if matched:
                marks.append([at, at + len(piece)])
            text += piece
            at += len(piece)
        return text, marks

    hits = []
    for hit in found.hits:
        text, marks = snippet(hit)
        hits.append(
            {
                "name": hit.name,
                "where": hit.place,
                "path": os.fsdecode(hit.path),
                "quarter": hit.quarter,
                "class": hit.plan_class,
                "reason": hit.reason,
                "project": hit.project,
                "modified": hit.modified.isoformat(),
                "title": hit.title,
                "snippet": text,
                "matches": marks,
                "score": hit.score,
            }
        )
    return envelope(
        {
            "query": found.query,
            "plans_dir": os.fsdecode(found.plans_dir),
            "archive_dir": os.fsdecode(found.archive_dir),
            "indexed": {"live": found.live, "archived": found.archived},
            "roots": list(found.roots),
            "hits": hits,
        }
    )
