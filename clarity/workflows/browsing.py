"""`clarity browse`: one plan as its page shows it, two of its versions, and the search
as you type (SPEC 9.3); catalogue.py holds every plan the list shows. Read-only."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.errors import ClarityError
from clarity.model import Place
from clarity.workflows.catalogue import Browser, Catalogue, RootView
from clarity.workflows.rows import PlanRow

if TYPE_CHECKING:
    from clarity.model import SessionEvidence
    from clarity.search import Found
    from clarity.workflows.versions import History

TEXT_SHOWN = 256 * 1024  # of a plan the page renders, at most (the rest: clarity show NAME)


@dataclass(frozen=True, slots=True)
class PlanView:
    """One plan, as its page shows it."""

    root: RootView
    place: str
    name: str
    path: Path
    text: str  # at most TEXT_SHOWN of it
    cut: bool
    size: int
    frontmatter: str | None  # the YAML between its --- lines, as written
    body: str
    listed: PlanRow | None
    session: SessionEvidence | None
    record: dict[str, Any] | None  # the archive's record of it (None for a sub-plan)
    history: History | None
    history_error: str | None
    parent: tuple[str, str] | None = None  # an archived sub-plan's plan: (name, its path)
    subplans: tuple[tuple[str, str | None], ...] = ()  # (name, its path in the archive)


def _split(text: str) -> tuple[str | None, str]:
    """(its frontmatter as written, or None; the rest)."""
    from clarity.plans.plantext import FrontmatterUnclosed, opens_frontmatter, split_frontmatter

    if not opens_frontmatter(text):
        return None, text
    try:
        return split_frontmatter(text)
    except FrontmatterUnclosed:  # never closed: it is all body, as Claude Code shows it
        return None, text


def plan_view(catalogue: Catalogue, rid: str, value: str) -> PlanView:
    """The plan `value` names in root `rid`: ClarityError (one line) if it is not there."""
    from clarity.workflows.plan_by_name import plan_by_name
    from clarity.workflows.versions import plan_history

    root = catalogue.root(rid)
    if root is None:
        raise ClarityError("no such plans folder on this page; go back to the list")
    settings = root.settings
    found = plan_by_name(settings, value, most=TEXT_SHOWN, reuse=True)
    text = found.data.decode("utf-8", "replace")
    try:
        size = found.path.stat().st_size
    except OSError:
        size = len(found.data)
    frontmatter, body = _split(text)
    listed = catalogue.listed(rid, found.where, value) or catalogue.listed(
        rid, found.where, found.name
    )
    history, history_error = None, None
    try:
        history = plan_history(settings, found.name)
    except ClarityError as error:
        history_error = error.message
    record: dict[str, Any] | None = None
    parent: tuple[str, str] | None = None
    subplans: tuple[tuple[str, str | None], ...] = ()
    if found.archived is not None:
        archived = found.archived.plan
        if found.archived.is_subplan:  # its record is its plan's: named, not shown as its own
            parent = (archived.name, archived.relative)
        else:
            record = archived.record
            subplans = tuple(
                (str(sub.get("name")), str(sub["path"]) if sub.get("path") else None)
                for sub in archived.subplans
            )
    return PlanView(
        root=root,
        place=found.where,
        name=found.name,
        path=found.path,
        text=text,
        cut=found.cut,
        size=size,
        frontmatter=frontmatter,
        body=body,
        listed=listed,
        session=catalogue.sessions.get((rid, found.name)) if found.where == Place.LIVE else None,
        record=record,
        history=history,
        history_error=history_error,
        parent=parent,
        subplans=subplans,
    )


def version_texts(root: RootView, name: str, first: int, second: int) -> tuple[History, str, str]:
    """The texts of versions `first` and `second` of a plan (1 = oldest), for a diff."""
    from clarity.workflows.versions import plan_history, text_of

    history = plan_history(root.settings, name)
    old = text_of(history, first)[1][: 4 * TEXT_SHOWN]
    new = text_of(history, second)[1][: 4 * TEXT_SHOWN]
    return history, old.decode("utf-8", "replace"), new.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A hit of `clarity search`, and where its plan's page is (None: no root holds it)."""

    place: str
    name: str
    title: str | None
    plan_class: str | None
    project: str | None
    modified: datetime
    snippet: str  # the match between \x02 and \x03 (search.index.HIT, END)
    root: str | None
    value: str | None


def found_for(browser: Browser, query: str, place: str | None, limit: int = 50) -> Found:
    """`clarity search` as the page asks it: the same index, ranking and snippets."""
    from clarity.model import SearchRequest
    from clarity.workflows.searching import search_plans

    request = SearchRequest(query, place=place, limit=limit)
    return search_plans(browser.settings, request, reuse_within=2.0)


def search(browser: Browser, query: str, place: str | None, limit: int = 50) -> list[SearchHit]:
    """The search's hits as the page shows them, each with its plan's page if listed."""
    found = found_for(browser, query, place, limit)
    catalogue = browser.catalogue()
    hits = []
    for hit in found.hits:
        where = _where_found(catalogue, hit.place, hit.name, hit.path)
        hits.append(
            SearchHit(
                hit.place,
                hit.name,
                hit.title,
                hit.plan_class,
                hit.project,
                hit.modified,
                hit.snippet,
                None if where is None else where[0],
                None if where is None else where[1],
            )
        )
    return hits


def _where_found(catalogue: Catalogue, place: str, name: str, path: Path) -> tuple[str, str] | None:
    """(root id, value) of a search hit's file, for its link; None if no root holds it."""
    text = os.fsdecode(path)
    for root in catalogue.roots:
        if place == Place.LIVE and os.fsdecode(path.parent) == os.fsdecode(root.plans_dir):
            return root.id, path.name
        folder = os.path.join(root.archive_dir, "")  # noqa: PTH118 - the separator is wanted
        if place != Place.LIVE and text.startswith(folder):
            relative = text[len(folder) :]
            return root.id, relative if place == Place.ARCHIVE else name
    return None
