"""The page's HTML: Jinja2 templates with every value escaped (autoescape), filled from
what workflows/catalogue.py and browsing.py gathered. Only two things go in unescaped: a plan's
Markdown as markdown.py rendered it (raw HTML off) and the SVG pictures.py drew
(its labels escaped), both marked so here."""

from __future__ import annotations

import math
import os
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from clarity.hints import Again
from clarity.model import Place
from clarity.printable import format_size
from clarity.workflows.rows import ROW_CLASSES

if TYPE_CHECKING:
    from clarity.workflows.browsing import SearchHit
    from clarity.workflows.catalogue import Catalogue
    from clarity.workflows.rows import PlanRow

PAGE_ROWS = 200  # plans one page of the list shows
CLASSES = ROW_CLASSES
PLACES = tuple(Place)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def shown(value: Any) -> Any:
    """Every value a template writes, before it is escaped: a path as text, a name's
    bytes that are not UTF-8 as \\xNN, a control character (ESC...) as its escape,
    so the page is valid UTF-8 and no terminal that prints it is steered."""
    if isinstance(value, PurePath):
        value = os.fspath(value)
    if not isinstance(value, str):
        return value
    text = str(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if _CONTROL.search(text):
        text = _CONTROL.sub(lambda found: ascii(found.group())[1:-1], text)
    return Markup(text) if isinstance(value, Markup) else text


_ENV = Environment(
    loader=PackageLoader("clarity.browse", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    finalize=shown,
)


def when(value: object) -> str:
    """An ISO moment as a person reads it: `2026-11-28 07:25` (its own offset kept)."""
    text = str(value or "")
    try:
        return f"{datetime.fromisoformat(text.replace('Z', '+00:00')):%Y-%m-%d %H:%M}"
    except ValueError:
        return text


_CODE_SPAN = re.compile(r"`([^`]+)`")


def inline(value: object) -> Markup:
    """A title's `code` spans as code, as the rendered plan shows them; everything else
    escaped (a title is the plan's, untrusted)."""
    text = str(shown(value) or "")
    pieces = _CODE_SPAN.split(text)  # text, code, text, code, ...
    return Markup("").join(
        Markup("<code>{}</code>").format(piece) if odd else Markup.escape(piece)
        for odd, piece in ((index % 2 == 1, piece) for index, piece in enumerate(pieces))
    )


_ENV.filters["when"] = when
_ENV.filters["inline"] = inline


@dataclass(frozen=True, slots=True)
class Filters:
    """What the list is narrowed to and how it is sorted: the list page's query."""

    plan_class: str = ""
    place: str = ""
    project: str = ""
    root: str = ""
    agent: str = ""
    sort: str = "new"
    page: int = 1

    def query(self, **changed: Any) -> str:
        """The list's address with these changed; a new filter starts at page 1."""
        chosen = replace(self, **changed)
        if "page" not in changed:
            chosen = replace(chosen, page=1)
        pairs = {
            "class": chosen.plan_class,
            "place": chosen.place,
            "project": chosen.project,
            "root": chosen.root,
            "agent": chosen.agent,
            "sort": "" if chosen.sort == "new" else chosen.sort,
            "page": "" if chosen.page == 1 else str(chosen.page),
        }
        words = urlencode({k: v for k, v in pairs.items() if v}, errors="surrogateescape")
        return "./" + ("?" + words if words else "")


def encoded(value: str) -> str:
    return quote(os.fsencode(value), safe="")


def plan_url(root: str, place: str, value: str) -> str:
    """The plan page's address: a name's bytes exactly, whatever they are."""
    return f"plan?r={root}&p={place}&v={encoded(value)}"


def _age(mtime: float) -> str:
    days = (time.time() - mtime) / 86400
    if days < 1:
        return f"{max(days * 24, 0):.0f} h"
    return f"{days:.1f} d" if days < 10 else f"{days:.0f} d"


def _cleanup(days: int | None) -> str:
    if days is None:
        return ""
    return "due now" if days <= 0 else f"{days} d"


_ENV.globals.update(age=_age, size=format_size, cleanup=_cleanup)


def render(template: str, catalogue: Catalogue | None, **values: Any) -> str:
    broken = [] if catalogue is None else [root for root in catalogue.roots if root.error]
    noted = [] if catalogue is None else [root for root in catalogue.roots if root.notes]
    made = ""
    if catalogue is not None:
        made = f"As of {datetime.fromtimestamp(catalogue.made_at):%Y-%m-%d %H:%M:%S}."
    return _ENV.get_template(template).render(broken=broken, noted=noted, made=made, **values)


def chosen(catalogue: Catalogue, filters: Filters) -> list[PlanRow]:
    """The catalogue's plans the filters leave, in the order asked."""
    agents = {root.id: root.agent for root in catalogue.roots}
    plans = [
        plan
        for plan in catalogue.plans
        if (not filters.plan_class or plan.plan_class == filters.plan_class)
        and (not filters.place or plan.place == filters.place)
        and (not filters.project or plan.project == filters.project)
        and (not filters.root or plan.root == filters.root)
        and (not filters.agent or agents.get(plan.root) == filters.agent)
    ]
    if filters.sort == "old":
        plans.reverse()  # the catalogue is newest first
    return plans


def _list_commands(catalogue: Catalogue) -> list[tuple[str, str]]:
    many = len(catalogue.roots) > 1
    again = Again() if many else Again.of(catalogue.roots[0].settings)
    every = ("--all",) if many else ()
    return [
        ("Review what clarity would do", again.command("scan", *every)),
        (
            "Then carry it out (archive completed, trash stale stubs)",
            again.command("apply", *every),
        ),
    ]


def one_page(listed: list[PlanRow], asked: int) -> tuple[int, int, list[PlanRow]]:
    """The page asked for (within those there are), how many there are, and its rows."""
    pages = max(1, math.ceil(len(listed) / PAGE_ROWS))
    page = min(max(asked, 1), pages)
    return page, pages, listed[(page - 1) * PAGE_ROWS : page * PAGE_ROWS]


def list_page(catalogue: Catalogue, filters: Filters) -> str:
    listed = chosen(catalogue, filters)
    page, pages, rows = one_page(listed, filters.page)
    counted = Counter(plan.plan_class for plan in catalogue.plans)
    roots = {root.id: root for root in catalogue.roots}
    shown = [
        f"{label} {value}"
        for label, value in (
            ("class", filters.plan_class),
            ("place", filters.place),
            ("project", filters.project),
            ("folder", roots[filters.root].plans_dir if filters.root in roots else ""),
            ("agent", filters.agent),
        )
        if value
    ]
    return render(
        "list.html",
        catalogue,
        title="Plans",
        total=len(listed),
        total_all=len(catalogue.plans),
        shown_filters=", ".join(str(item) for item in shown),
        counts=[(name, counted[name]) for name in CLASSES if counted[name]],
        classes=CLASSES,
        places=PLACES,
        projects=sorted({plan.project for plan in catalogue.plans if plan.project}),
        roots=catalogue.roots,
        many_roots=len(catalogue.roots) > 1,
        agents=sorted({root.agent for root in catalogue.roots}),
        chosen=filters,
        rows=rows,
        page=page,
        pages=pages,
        link=filters.query,
        plan_url=lambda plan: plan_url(plan.root, plan.place, plan.value),
        root_of=lambda plan: roots[plan.root],
        commands=_list_commands(catalogue) if catalogue.roots else [],
    )


@dataclass(frozen=True, slots=True)
class ShownHit:
    place: str
    name: str
    title: str | None
    plan_class: str | None
    project: str | None
    modified: str
    url: str | None
    snippet: tuple[tuple[str, bool], ...]  # (text, marked)


def _snippet(text: str) -> tuple[tuple[str, bool], ...]:
    """The index's snippet, its matches (between \\x02 and \\x03) marked."""
    parts: list[tuple[str, bool]] = []
    for number, piece in enumerate(text.split("\x02")):
        if number == 0:
            parts.append((piece, False))
            continue
        marked, _, rest = piece.partition("\x03")
        parts += [(marked, True), (rest, False)]
    return tuple((part, marked) for part, marked in parts if part)


def shown_hits(found: Sequence[SearchHit]) -> list[ShownHit]:
    return [
        ShownHit(
            hit.place,
            hit.name,
            hit.title,
            hit.plan_class,
            hit.project,
            f"{hit.modified:%Y-%m-%d}",
            None
            if hit.root is None or hit.value is None
            else plan_url(hit.root, hit.place, hit.value),
            _snippet(hit.snippet),
        )
        for hit in found
    ]


def hits_fragment(query: str, hits: Sequence[ShownHit], error: str | None) -> str:
    return _ENV.get_template("hits.html").render(query=query, hits=hits, error=error)


def search_page(
    catalogue: Catalogue | None,
    query: str,
    place: str,
    hits: Sequence[ShownHit],
    error: str | None,
) -> str:
    return render(
        "search.html",
        catalogue,
        title=f"Search: {query}" if query else "Search",
        query=query,
        place=place,
        places=PLACES,
        hits=hits,
        error=error,
    )


def pictures_page(catalogue: Catalogue) -> str:
    from clarity.browse import pictures

    now = time.time()
    return render(
        "pictures.html",
        catalogue,
        title="Pictures",
        classes=CLASSES,
        weeks=pictures.WEEKS,
        # drawn by pictures.py, which escapes every label: markup, not text
        weeks_svg=Markup(pictures.weeks_svg(pictures.weeks_by_class(catalogue.plans, now))),
        quarters_svg=Markup(pictures.quarters_svg(pictures.archive_by_quarter(catalogue.plans))),
        projects_svg=Markup(pictures.projects_svg(pictures.per_project(catalogue.plans))),
    )


def missing_page(catalogue: Catalogue | None, title: str, message: str) -> str:
    return render("missing.html", catalogue, title=title, message=message)
