"""`clarity search` and the MCP server's search: every plans folder on the machine unless
the person named one (SPEC 2, 9.1), their hits merged by rank."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from clarity.errors import ClarityError
from clarity.model import Place

if TYPE_CHECKING:
    from clarity.model import SearchRequest
    from clarity.search import Found
    from clarity.settings.config import Settings


def one_root_named(settings: Settings) -> bool:
    """Whether the person named the plans folder (an option, the environment): only it is
    searched. A folder the config file or Claude Code chose is one root among all."""
    return settings.sources["plans_dir"].given


def search_plans(
    settings: Settings,
    request: SearchRequest,
    note: Callable[[str], None] = lambda line: None,
    *,
    reuse_within: float = 0.0,
) -> Found:
    """Ranked hits over the live plans, archives and kept texts of every root (of the one
    named), best first. A root whose index cannot be used is a note; the rest answer.
    reuse_within: see run_search (the MCP server's, searching again and again)."""
    from clarity.behind import run_behind
    from clarity.search import Found, run_search
    from clarity.workflows.roots import find_roots, for_each_root

    def search_one(chosen: Settings) -> Found:
        found = run_search(chosen, request, reuse_within)
        unclassed = _unclassed(found)
        if unclassed and not unclassed <= _RESISTING.get(os.fspath(chosen.plans_dir), set()):
            # a live plan no scan has classed as it is now (no index before the scan, an
            # undo since): the folder scanned for the index, so search says each class
            if reuse_within:  # a server: scanned behind the caller, said by the next call
                run_behind(("classes", chosen.plans_dir), lambda: _class(chosen, request))
                return found
            found = _class(chosen, request)
        return found

    # a server searching again and again (reuse_within) finds the roots once a minute
    roots = None if one_root_named(settings) else find_roots(settings, reuse=reuse_within > 0)
    if roots is not None and not roots.roots and settings.only_agent:
        raise ClarityError(
            f"--from {settings.only_agent}: no plans folder of that agent on this machine "
            "(clarity roots lists them)"
        )
    if roots is None or len(roots.roots) < 2:
        if roots is not None and roots.roots:
            from clarity.workflows.roots import settings_for

            return search_one(settings_for(settings, roots.roots[0]))
        return search_one(settings)
    outcomes = for_each_root(settings, roots, search_one)
    found = [o.result for o in outcomes if o.result is not None]
    if not found:  # the query itself is at fault, or every index: said as the first root said
        raise ClarityError(outcomes[0].error or "no plans folder could be searched")
    for outcome in outcomes:
        if outcome.result is None:
            note(f"{outcome.root.plans_dir} was not searched: {outcome.error}")
    hits = sorted((hit for one in found for hit in one.hits), key=lambda hit: hit.score)
    limit = request.limit
    return Found(
        request.query,
        tuple(hits[:limit] if limit is not None else hits),
        sum(one.live for one in found),
        sum(one.archived for one in found),
        settings.plans_dir,
        settings.archive_dir,
        roots=tuple(os.fsdecode(o.root.plans_dir) for o in outcomes if o.result is not None),
    )


# plans folder -> its live plans (path, size, mtime) a scan for search's classes left
# unclassed (one the scan passes over, unreadable, say): a long-running MCP server must
# not scan the whole folder at every search because of them, only when another turns up.
_RESISTING: dict[str, set[tuple[str, int, int]]] = {}


def _class(settings: Settings, request: SearchRequest) -> Found:
    """The folder scanned for the index's classes; the search asked again, and what is still
    unclassed remembered (_RESISTING)."""
    from clarity.search import run_search

    _classes_for(settings)
    found = run_search(settings, request, 0.0)
    _RESISTING[os.fspath(settings.plans_dir)] = _unclassed(found)
    return found


def _unclassed(found: Found) -> set[tuple[str, int, int]]:
    stamps = set()
    for hit in found.hits:
        if hit.plan_class is None and hit.place == Place.LIVE:
            try:
                info = hit.path.stat()
            except OSError:
                continue
            stamps.add((os.fspath(hit.path), info.st_size, info.st_mtime_ns))
    return stamps


def _classes_for(settings: Settings) -> None:
    """The folder scanned, its classes kept in the search index (no proposal recorded:
    the scan a person reviewed stays the one apply carries out)."""
    import contextlib
    from datetime import UTC, datetime

    from clarity.model import ScanRequest
    from clarity.state import DirState
    from clarity.workflows.pipeline import PlanFolder, Review

    state = DirState.for_plans_dir(settings.plans_dir)
    with contextlib.suppress(ClarityError, OSError):
        PlanFolder(settings, state).scan_and_propose(
            ScanRequest(datetime.now(UTC)), review=Review.NEVER
        )
