"""The archive for people and scripts: `clarity archived`, `show` and `restore`'s question.

Every name, title and summary here came from a plan, so each is shown
escaped (the writers of clarity/render/output.py escape each line; the console of
render/console.py each string); JSON keeps them exact.
"""

from __future__ import annotations

import os
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.dates import iso_moment
from clarity.hints import clarity_command
from clarity.printable import (
    code,
    counted,
    display_name,
    format_size,
    markdown_text,
    one_paragraph,
    printable,
    printable_lines,
)
from clarity.render.json_report import envelope

if TYPE_CHECKING:
    from clarity.render.console import PlainConsole
    from clarity.workflows.archived import ArchiveListing
    from clarity.workflows.plan_by_name import NamedPlan
    from clarity.workflows.reports import ArchivedPlan, KeptPlan, RestoreGroup, Shelf

SUMMARY_CHARS = 110  # of a summary in a listing's line


def _short(text: str | None, most: int = SUMMARY_CHARS) -> str:
    flat = one_paragraph(display_name(text or ""))
    return flat if len(flat) <= most else flat[: most - 1].rstrip() + "…"


def _day(plan: ArchivedPlan) -> str:
    try:
        return plan.modified.astimezone().date().isoformat()
    except ValueError:
        return "?"


def _heading(shelf: Shelf) -> str:
    where = display_name(os.fsdecode(shelf.archive_dir))
    count = len(shelf.plans)
    if shelf.query and shelf.query.strip():
        return (
            f"{count} of {shelf.total} archived plan{'s' if shelf.total != 1 else ''} in "
            f"{where} match{'es' if count == 1 else ''} {shelf.query.strip()!r}, newest first"
        )
    return f"{count} archived plan{'s' if count != 1 else ''} in {where}, newest first"


def _by_quarter(shelf: Shelf) -> list[tuple[str, list[ArchivedPlan]]]:
    """Quarters newest first; within one, its plans newest first (the shelf's order)."""
    groups = [(q, list(plans)) for q, plans in groupby(shelf.plans, key=lambda p: p.quarter)]
    merged: dict[str, list[ArchivedPlan]] = {}
    for quarter, plans in groups:
        merged.setdefault(quarter, []).extend(plans)
    return sorted(merged.items(), key=lambda item: item[0], reverse=True)


def _kept_day(plan: KeptPlan) -> str:
    return (iso_moment(plan.version.mtime_ns) or "?")[:10]


KEPT_HEADING = "Gone from the plans dir near Claude Code's cleanup, their text kept by clarity"


def kept_lines(shelf: Shelf) -> list[str]:
    """The plans Claude Code deleted whose text clarity kept: name, date, size, title."""
    if not shelf.kept:
        return []
    lines = ["", f"{KEPT_HEADING} ({len(shelf.kept)}):"]
    for plan in shelf.kept:
        title = f"  {display_name(plan.title)}" if plan.title else ""
        size = format_size(plan.version.size)
        lines.append(f"  {display_name(plan.name)}  {_kept_day(plan)}  {size}{title}")
        if plan.matched_in:
            lines.append(f"      matched in: {', '.join(plan.matched_in)}")
    return lines


def kept_document(plan: KeptPlan) -> dict[str, Any]:
    version = plan.version
    return {
        "name": plan.name,
        "title": plan.title,
        "path": os.fsdecode(version.path),
        "mtime": iso_moment(version.mtime_ns),
        "size": version.size,
        "sha256": version.sha256,
        "kept_at": version.kept_at,
        "matched_in": list(plan.matched_in),
    }


def shelf_lines(shelf: Shelf) -> list[str]:
    """The listing for a terminal: by quarter, each plan's name, date, title and summary;
    then the plans Claude Code deleted whose text clarity kept."""
    if not shelf.plans and shelf.total == 0:
        return kept_lines(shelf)[1:]  # no archive, or an empty one: the note says so
    lines = [_heading(shelf)]
    for quarter, plans in _by_quarter(shelf):
        lines += ["", quarter]
        for plan in plans:
            title = f"  {display_name(plan.title)}" if plan.title else ""
            file_name = plan.relative.rsplit("/", 1)[-1]  # under its quarter's heading
            lines.append(f"  {display_name(file_name)}  {_day(plan)}{title}")
            if plan.summary:
                lines.append(f"      {_short(plan.summary)}")
            subs = [display_name(str(sub.get("name"))) for sub in plan.subplans]
            if subs:
                lines.append(f"      sub-plans: {', '.join(subs)}")
            if plan.matched_in:
                lines.append(f"      matched in: {', '.join(plan.matched_in)}")
    return lines + kept_lines(shelf)


def shelf_markdown(shelf: Shelf) -> str:
    lines = [f"# Archived plans in {code(display_name(os.fsdecode(shelf.archive_dir)))}", ""]
    lines += [f"_{line}_" for line in shelf.notes]
    if shelf.plans or shelf.total:
        lines += [_heading(shelf) + ".", ""]
    for quarter, plans in _by_quarter(shelf):
        lines += [f"## {quarter}", ""]
        for plan in plans:
            title = markdown_text(printable(display_name(plan.title or plan.name)))
            facts = [code(printable(display_name(plan.relative))), f"modified {_day(plan)}"]
            if isinstance(plan.record.get("size"), int):
                facts.append(format_size(plan.record["size"]))
            if plan.matched_in:
                facts.append(f"matched in {', '.join(plan.matched_in)}")
            summary = f": {markdown_text(_short(plan.summary, 300))}" if plan.summary else ""
            lines.append(f"- **{title}** ({', '.join(facts)}){summary}")
        lines.append("")
    if shelf.kept:
        lines += [f"## {KEPT_HEADING}", ""]
        for kept in shelf.kept:
            title = markdown_text(printable(display_name(kept.title or kept.name)))
            facts = [code(printable(display_name(kept.name))), f"modified {_kept_day(kept)}"]
            facts.append(format_size(kept.version.size))
            lines.append(f"- **{title}** ({', '.join(facts)})")
        lines.append("")
    return printable_lines(lines)


def plan_document(plan: ArchivedPlan) -> dict[str, Any]:
    record = plan.record
    return {
        "name": plan.name,
        "title": plan.title,
        "quarter": plan.quarter,
        "path": os.fsdecode(plan.path),
        "relative_path": plan.relative,
        "archived_at": record.get("archived_at"),
        "mtime": record.get("mtime"),
        "size": record.get("size"),
        "sha256": record.get("sha256"),
        "summary": plan.summary,
        "subplans": [str(sub.get("name")) for sub in plan.subplans],
        "project": record.get("project"),
        "matched_in": list(plan.matched_in),
    }


def shelf_document(shelf: Shelf) -> dict[str, Any]:
    return envelope(
        {
            "archive_dir": os.fsdecode(shelf.archive_dir),
            "query": shelf.query,
            "total": shelf.total,
            "plans": [plan_document(plan) for plan in shelf.plans],
            "kept": [kept_document(plan) for plan in shelf.kept],
            "notes": list(shelf.notes),
        }
    )


def listing_document(listed: ArchiveListing) -> dict[str, Any]:
    """`clarity archived --json`: the shelf, and what the kept versions take."""
    document = shelf_document(listed.shelf)
    document["versions"] = dict(zip(("plans", "texts", "bytes"), listed.versions, strict=True))
    return document


def show_document(found: NamedPlan, archive_dir: Path) -> dict[str, Any]:
    archived = found.archived
    return envelope(
        {
            "archive_dir": os.fsdecode(archive_dir),
            "name": found.name,
            "where": found.where,
            "path": os.fsdecode(found.path),
            "plan": None if archived is None else plan_document(archived.plan),
            "text": found.data.decode("utf-8", "replace"),
        }
    )


def print_plan(data: bytes, console: PlainConsole) -> None:
    """A plan rendered as markdown, its control characters escaped first (rich is handed
    only printable text, so the plan cannot move the cursor or recolour the terminal)."""
    from rich.markdown import Markdown

    from clarity.render.pager import page

    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = [printable(line.rstrip("\r").expandtabs(4)) for line in text.split("\n")]
    with console.capture() as drawn:  # drawn in full first: a long plan goes to a pager
        console.print(Markdown("\n".join(lines), hyperlinks=False))
    page(drawn.get())


def restore_preview_lines(group: RestoreGroup, plans_dir: Path, days: float) -> list[str]:
    plan, *subs = group.files
    lines = [f"clarity restore: put back into {display_name(os.fsdecode(plans_dir))}"]
    lines.append(f"  {display_name(plan.name)}  from {display_name(os.fsdecode(plan.src))}")
    lines += [f"    └ {display_name(sub.name)}" for sub in subs]
    if group.record.get("kept"):
        lines.append("  (the text clarity kept before Claude Code's cleanup deleted it)")
    return [
        *lines,
        "",
        f"It stays active for {days:g} days (restored by you): apply leaves it in place.",
    ]


def versions_line(archive_dir: Path, plans: int, texts: int, size: int) -> str:
    """What the kept versions take (SPEC 6.1: storage is shown)."""
    return (
        f"{counted(texts, 'kept text')} of {counted(plans, 'plan')} "
        f"take{'s' if texts == 1 else ''} {format_size(size)} in "
        f"{archive_dir / 'versions'} ({clarity_command('history', 'NAME')} lists a plan's)"
    )
