"""What each MCP tool answers, as types: the SDK makes each tool's `outputSchema` from
them, and sends the answer as `structuredContent` beside the same JSON as text
(MCP 2025-06-18). Fields may be added, never renamed."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic reads these on Python 3.11 only from here

# "class" is a keyword: these are spelt in the functional form.
Hit = TypedDict(
    "Hit",
    {
        "name": str,
        "where": str,  # live, archive or kept
        "path": str,
        "quarter": str | None,
        "class": str | None,
        "reason": str | None,
        "project": str | None,
        "modified": str,
        "title": str | None,
        "snippet": str,
        "matches": list[list[int]],
    },
)


class Indexed(TypedDict):
    live: int
    archived: int


class Found(TypedDict):
    """search_plans: the best hits first."""

    schema_version: int
    query: str
    plans_dir: str
    archive_dir: str
    indexed: Indexed
    roots: list[str]  # the plans folders searched, when there were several
    hits: list[Hit]


class PlanText(TypedDict):
    """get_plan: one plan's text (at most TEXT_CHARS of it), and the archive's record."""

    name: str
    where: str  # live, archive or kept
    path: str
    record: dict[str, Any] | None
    text: str
    truncated: bool


Listed = TypedDict(
    "Listed",
    {
        "name": str,
        "class": str,
        "action": str,
        "reason": str,
        "title": str | None,
        "project": str | None,
        "mtime": str,
        "age_days": float,
        "agent": str,  # whose plan: claude-code, cursor, ...
    },
)


class PlanList(TypedDict):
    """list_plans: one page of the live plans, newest first; nextCursor asks for the next."""

    plans_dir: str
    total: int
    plans: list[Listed]
    notes: list[str]
    nextCursor: str | None
