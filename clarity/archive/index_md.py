"""INDEX.md: the archive's index for people, regenerated from index.jsonl."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clarity.printable import (
    code,
    display_name,
    format_size,
    markdown_text,
    one_paragraph,
    printable,
    printable_lines,
    project_text,
)


def _when(record: dict[str, Any]) -> datetime:
    try:
        return datetime.fromisoformat(str(record.get("mtime")))
    except ValueError:
        return datetime.min.replace(tzinfo=datetime.now().astimezone().tzinfo)


def _quarter(record: dict[str, Any]) -> str:
    folder = str(record.get("path", "")).split("/", 1)[0]
    return folder if "/" in str(record.get("path", "")) else "(unfiled)"


def _shown(value: Any) -> str:
    """A name, title or path as one printable line (a newline in a title is shown as \\n,
    so it cannot end the heading)."""
    return printable(display_name(str(value)))


def _entry(record: dict[str, Any]) -> list[str]:
    name = _shown(record.get("name", "?"))
    title = markdown_text(_shown(record.get("title") or name))
    facts = [code(_shown(record.get("path")))]
    if isinstance(record.get("project"), str):
        facts.append(f"project {project_text(record['project'])}")
    if isinstance(record.get("size"), int):
        facts.append(format_size(record["size"]))
    facts.append(f"modified {_when(record).astimezone().date().isoformat()}")
    archived = str(record.get("archived_at", ""))[:10]
    if archived:
        facts.append(f"archived {archived}")
    subplans = [_shown(sub.get("name")) for sub in record.get("subplans") or []]
    if subplans:
        facts.append("sub-plans: " + ", ".join(subplans))
    lines = [f"### {title}", "", " · ".join(facts), ""]
    summary = record.get("summary")
    paragraph = markdown_text(one_paragraph(display_name(str(summary)))) if summary else ""
    lines += [paragraph or "_(no summary)_", ""]
    return lines


def index_markdown(records: list[dict[str, Any]]) -> str:
    ordered = sorted(records, key=_when, reverse=True)
    lines = [
        "# Plan archive",
        "",
        f"{len(ordered)} archived plan{'s' if len(ordered) != 1 else ''}, newest first. "
        "Written by clarity from index.jsonl. Edit it and clarity leaves it as you left "
        "it and writes it no more; delete it and clarity writes it again.",
        "",
    ]
    current = None
    for record in ordered:
        quarter = _quarter(record)
        if quarter != current:
            lines += [f"## {quarter}", ""]
            current = quarter
        lines += _entry(record)
    while lines and not lines[-1]:
        lines.pop()
    return printable_lines(lines)
