"""The page's addresses (Starlette): each reads through workflows/ (catalogue.py, browsing.py) and
answers HTML from pages.py. Nothing here writes a file.

A name rides in an address as its bytes, percent-encoded, and is read back with
surrogateescape: a plan whose name is not UTF-8 is still the same file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib.resources import files
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from clarity.browse import pages, plan_pages, twins
from clarity.errors import ClarityError
from clarity.render.json_report import dumps, envelope
from clarity.workflows import browsing
from clarity.workflows.catalogue import Browser

STATIC = {"browse.css": "text/css; charset=utf-8", "browse.js": "text/javascript; charset=utf-8"}
Endpoint = Callable[[Request], Response]


def _query(request: Request) -> dict[str, str]:
    raw = request.scope.get("query_string", b"").decode("ascii", "replace")
    found = parse_qs(raw, encoding="utf-8", errors="surrogateescape")
    return {key: values[-1] for key, values in found.items()}


def _number(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _json(document: dict[str, object], status: int = 200) -> Response:
    return Response(dumps(document), status, media_type="application/json")


def make_app(browser: Browser, note: Callable[[str], None]) -> Starlette:
    """The page's addresses; note: says on the terminal what failed."""

    def guarded(endpoint: Endpoint) -> Endpoint:
        """A page that fails says so in one line, on the page and on the terminal; the
        server goes on."""

        @functools.wraps(endpoint)
        def page(request: Request) -> Response:
            try:
                return endpoint(request)
            except ClarityError as error:
                return HTMLResponse(
                    pages.missing_page(None, "Nothing to show yet", error.message), 503
                )
            except Exception as error:  # noqa: BLE001 - one page failing stops no other
                note(f"clarity browse: {request.url.path} failed: {error!r}")
                return HTMLResponse(
                    pages.missing_page(None, "This page could not be made", f"{error}"),
                    status_code=500,
                )

        return page

    def filters(request: Request) -> pages.Filters:
        asked = _query(request)
        return pages.Filters(
            plan_class=asked.get("class", ""),
            place=asked.get("place", ""),
            project=asked.get("project", ""),
            root=asked.get("root", ""),
            agent=asked.get("agent", ""),
            sort="old" if asked.get("sort") == "old" else "new",
            page=_number(asked.get("page"), 1),
        )

    def plan_list(request: Request) -> Response:
        return HTMLResponse(pages.list_page(browser.catalogue(), filters(request)))

    def plan_list_json(request: Request) -> Response:
        asked, catalogue = filters(request), browser.catalogue()
        listed = pages.chosen(catalogue, asked)
        page, count, rows = pages.one_page(listed, asked.page)
        return _json(twins.list_document(catalogue, rows, len(listed), page, count))

    def plan_json(request: Request) -> Response:
        asked = _query(request)
        try:
            view = browsing.plan_view(browser.catalogue(), asked.get("r", ""), asked.get("v", ""))
        except ClarityError as error:
            return _json(envelope({"error": error.message}), 404)
        return _json(twins.plan_document(view))

    def plan(request: Request) -> Response:
        from clarity.browse.markdown import to_html, too_deep

        asked = _query(request)
        catalogue = browser.catalogue()
        try:
            view = browsing.plan_view(catalogue, asked.get("r", ""), asked.get("v", ""))
        except ClarityError as error:
            return HTMLResponse(
                pages.missing_page(catalogue, "This plan is not there now", error.message),
                status_code=404,
            )
        raw = asked.get("raw") == "1"
        body = None if raw else to_html(view.body)
        page = plan_pages.plan_page(view, catalogue, body, too_deep=too_deep(view.body))
        return HTMLResponse(page)

    def diff(request: Request) -> Response:
        from clarity.browse.diffs import side_by_side, unified

        asked = _query(request)
        catalogue = browser.catalogue()
        root = catalogue.root(asked.get("r", ""))
        name = asked.get("v", "")
        first, second = _number(asked.get("a"), 1), _number(asked.get("b"), 2)
        how = "unified" if asked.get("view") == "unified" else "split"
        if root is None:
            message = "no such plans folder on this page; go back to the list"
            return HTMLResponse(pages.missing_page(catalogue, "Not there", message), 404)
        try:
            history, old, new = browsing.version_texts(root, name, first, second)
        except ClarityError as error:
            return HTMLResponse(
                pages.missing_page(catalogue, "These versions are not there now", error.message),
                status_code=404,
            )
        if how == "split":
            rows: list[object] = list(side_by_side(old, new))
        else:
            labels = (f"version {first}", f"version {second}")
            rows = list(unified(old, new, *labels))
        listed = next(
            (p for p in catalogue.plans if p.root == root.id and p.name == history.name), None
        )
        back = None if listed is None else pages.plan_url(root.id, listed.place, listed.value)
        html = plan_pages.diff_page(catalogue, root, history.name, first, second, how, rows, back)
        return HTMLResponse(html)

    def found(request: Request) -> tuple[str, str, list[pages.ShownHit], str | None]:
        asked = _query(request)
        query, place = asked.get("q", "").strip(), asked.get("place", "")
        if not query:
            return query, place, [], None
        try:
            hits = browsing.search(browser, query, place if place in pages.PLACES else None)
        except ClarityError as error:
            return query, place, [], error.message
        return query, place, pages.shown_hits(hits), None

    def search(request: Request) -> Response:
        query, place, hits, error = found(request)
        catalogue = browser.catalogue() if query else None
        return HTMLResponse(pages.search_page(catalogue, query, place, hits, error))

    def search_json(request: Request) -> Response:
        asked = _query(request)
        query, place = asked.get("q", "").strip(), asked.get("place", "")
        try:
            found = browsing.found_for(browser, query, place if place in pages.PLACES else None)
        except ClarityError as error:
            return _json(twins.search_document(query, None, error.message), 400)
        return _json(twins.search_document(query, found, None))

    def search_hits(request: Request) -> Response:
        query, _, hits, error = found(request)
        return HTMLResponse(pages.hits_fragment(query, hits, error))

    def pictures(request: Request) -> Response:
        return HTMLResponse(pages.pictures_page(browser.catalogue()))

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("no such file\n", 404, media_type="text/plain")
        body = files("clarity.browse").joinpath("static", name).read_bytes()
        return Response(body, media_type=STATIC[name])

    routes = [
        Route("/", guarded(plan_list)),
        Route("/plans.json", guarded(plan_list_json)),
        Route("/plan", guarded(plan)),
        Route("/plan.json", guarded(plan_json)),
        Route("/diff", guarded(diff)),
        Route("/search", guarded(search)),
        Route("/search.json", guarded(search_json)),
        Route("/search/hits", guarded(search_hits)),
        Route("/pictures", guarded(pictures)),
        Route("/static/{name}", guarded(static)),
    ]
    return Starlette(routes=routes)
