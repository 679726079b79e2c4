"""INDEX.md: the archive's index for people, regenerated from index.jsonl."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from clarity.render.layout import display_name, format_size, project_text


def _when(record: dict[str, Any]) -> datetime:
    try:
        return datetime.fromisoformat(str(record.get("mtime")))
    except ValueError:
        return datetime.min.replace(tzinfo=datetime.now().astimezone().tzinfo)


def _quarter(record: dict[str, Any]) -> str:
    folder = str(record.get("path", "")).split("/", 1)[0]
    return folder if "/" in str(record.get("path", "")) else "(unfiled)"


def _entry(record: dict[str, Any]) -> list[str]:
    name = display_name(str(record.get("name", "?")))
    title = record.get("title") or name
    facts = [f"`{display_name(str(record.get('path')))}`"]
    if isinstance(record.get("project"), str):
        facts.append(f"project {project_text(record['project'])}")
    if isinstance(record.get("size"), int):
        facts.append(format_size(record["size"]))
    facts.append(f"modified {_when(record).astimezone().date().isoformat()}")
    archived = str(record.get("archived_at", ""))[:10]
    if archived:
        facts.append(f"archived {archived}")
    subplans = [display_name(str(sub.get("name"))) for sub in record.get("subplans") or []]
    if subplans:
        facts.append("sub-plans: " + ", ".join(subplans))
    lines = [f"### {display_name(str(title))}", "", " · ".join(facts), ""]
    summary = record.get("summary")
    lines += [display_name(str(summary)) if summary else "_(no summary)_", ""]
    return lines


def index_markdown(records: list[dict[str, Any]]) -> str:
    ordered = sorted(records, key=_when, reverse=True)
    lines = [
        "# Plan archive",
        "",
        f"{len(ordered)} archived plan{'s' if len(ordered) != 1 else ''}, newest first. "
        "Written by clarity from index.jsonl; edits here are overwritten.",
        "",
    ]
    current = None
    for record in ordered:
        quarter = _quarter(record)
        if quarter != current:
            lines += [f"## {quarter}", ""]
            current = quarter
        lines += _entry(record)
    return "\n".join(lines).rstrip("\n") + "\n"
