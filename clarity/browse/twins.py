"""The page's `.json` twins, as datasette's views have them: the list, one plan and the
search, each as the JSON a program reads instead of the HTML a person does. Each row is
a `PlanRow.to_json` (workflows/rows.py), as `scan --json` and MCP word a plan; the
search answers what `clarity search --json` does. One envelope (schema_version) each."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from clarity.render.json_report import envelope

if TYPE_CHECKING:
    from clarity.workflows.browsing import PlanView
    from clarity.workflows.catalogue import Catalogue
    from clarity.workflows.reports import Found
    from clarity.workflows.rows import PlanRow

ZONE = datetime.now().astimezone().tzinfo  # the page's times, as its HTML shows them


def row_json(row: PlanRow) -> dict[str, Any]:
    """A row, and where its page is: its folder's id, and what names it there."""
    return {**row.to_json(ZONE), "where": row.place, "root": row.root, "value": row.value}


def list_document(
    catalogue: Catalogue, rows: list[PlanRow], total: int, page: int, pages: int
) -> dict[str, Any]:
    """The list page's twin: the page of rows asked for, and how many pages there are."""
    return envelope(
        {
            "roots": [
                {
                    "id": root.id,
                    "plans_dir": str(root.plans_dir),
                    "archive_dir": str(root.archive_dir),
                    "error": root.error,
                    "notes": list(root.notes),
                }
                for root in catalogue.roots
            ],
            "made_at": datetime.fromtimestamp(catalogue.made_at, ZONE).isoformat(),
            "total": total,
            "page": page,
            "pages": pages,
            "plans": [row_json(row) for row in rows],
        }
    )


def plan_document(view: PlanView) -> dict[str, Any]:
    """A plan page's twin: its row (None for a sub-plan the list does not show), its text
    (as much as the page shows) and the archive's record of it."""
    return envelope(
        {
            "name": view.name,
            "where": view.place,
            "path": str(view.path),
            "plan": None if view.listed is None else row_json(view.listed),
            "record": view.record,
            "text": view.text,
            "truncated": view.cut,
        }
    )


def search_document(query: str, found: Found | None, error: str | None) -> dict[str, Any]:
    """The search page's twin: `clarity search --json`'s answer, or the one-line error."""
    from clarity.render.search_report import hits_document

    if found is None:
        return envelope({"query": query, "hits": [], "error": error})
    return hits_document(found)
