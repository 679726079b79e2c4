"""`clarity search`: every plan clarity knows, live or archived, found by its words. Imports
judge (a scan's classes), archive, plans and the shared pieces.

The index (index.py) is SQLite FTS5 in the plans dir's state folder; what a
person typed becomes a query there (query.py). A search first brings the
index up to date (only what changed is read), then asks it. A scan records
its verdicts in the index when there is one (`remember_scan`), so that a hit
on a live plan says its class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.errors import ClarityError
from clarity.search.where import INDEX_NAME, index_file
from clarity.state import DirState

if TYPE_CHECKING:
    from clarity.config import Settings
    from clarity.model import ScanReport
    from clarity.search.index import Hit

PLACES = ("live", "archive")
ARCHIVED_WAIT = 2.0  # seconds `archived QUERY` waits on the index before reading the files


@dataclass(frozen=True, slots=True)
class Found:
    """What a search found, for a renderer."""

    query: str
    hits: tuple[Hit, ...]
    live: int  # plans in the index, live and archived
    archived: int
    plans_dir: Path
    archive_dir: Path
    roots: tuple[str, ...] = ()  # the plans folders searched, when there were several


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What a person asked: the words, and what narrows them (None: everything)."""

    query: str
    place: str | None = None  # live, archive or kept
    project: str | None = None
    plan_class: str | None = None
    since: datetime | None = None
    limit: int | None = 20


def run_search(settings: Settings, request: SearchRequest) -> Found:
    import sqlite3

    from filelock import Timeout

    from clarity.search.documents import ARCHIVE, LIVE
    from clarity.search.index import SearchIndex
    from clarity.search.query import QueryError, terms

    query, limit = request.query, request.limit
    try:
        words = terms(query)
    except QueryError as error:
        raise ClarityError(str(error)) from None
    from clarity.judge.scan import check_plans_dir

    check_plans_dir(settings)  # a mistyped folder is said, not searched and found empty
    state = DirState.for_plans_dir(settings.plans_dir)
    for attempt in (1, 2):
        try:
            with SearchIndex.open(state) as index:
                index.refresh(settings.plans_dir, settings.archive_dir)
                hits = index.search(
                    words,
                    settings.plans_dir,
                    settings.archive_dir,
                    place=request.place,
                    project=request.project,
                    plan_class=request.plan_class,
                    since=None if request.since is None else request.since.timestamp(),
                    limit=limit,
                )
                counts = index.count()
            break
        except Timeout:
            raise ClarityError(
                "another clarity has been bringing the search index up to date for a "
                "minute; try again when it is done"
            ) from None
        except sqlite3.OperationalError as error:
            raise _unusable(state, error) from None
        except sqlite3.DatabaseError as error:  # damaged (and removed): made anew, once
            if attempt == 2:
                raise _unusable(state, error) from None
        except OSError as error:
            raise _unusable(state, error) from None
    return Found(
        query,
        tuple(hits),
        counts[LIVE],
        counts[ARCHIVE],
        settings.plans_dir,
        settings.archive_dir,
    )


def archived_text_matches(settings: Settings) -> Callable[[str], set[str] | None]:
    """For `clarity archived QUERY`: the archive records whose text holds the query (as one
    string), from the index; None when the index cannot answer (the caller reads the
    files instead)."""

    def matching(query: str) -> set[str] | None:
        import sqlite3

        from filelock import Timeout

        from clarity.search.index import SearchIndex
        from clarity.search.query import QueryError, terms

        state = DirState.for_plans_dir(settings.plans_dir)
        try:
            asked = terms(query, phrase=True)
            # Another clarity bringing the index up to date: the files are read instead,
            # not waited on in silence.
            with SearchIndex.open(state, wait=ARCHIVED_WAIT) as index:
                index.refresh_archive(settings.archive_dir)
                return index.archived_matching(asked)
        except (sqlite3.Error, OSError, Timeout, QueryError):
            return None

    return matching


def remember_scan(state: DirState, report: ScanReport) -> None:
    """A scan's classes and projects, kept in the search index if there is one (a person
    who never searched pays nothing). Never fails the scan: the index is a cache."""
    if not index_file(state).exists():
        return
    import sqlite3

    from filelock import Timeout

    from clarity.search.documents import stamp_of
    from clarity.search.index import SearchIndex, Verdict

    verdicts = [
        Verdict(
            v.name,
            stamp_of(*v.facts.stamp),
            v.plan_class.value,
            v.reason,
            report.project(v),
        )
        for v in report.verdicts
        if v.facts.stamp is not None
    ]
    try:
        with SearchIndex.open(state, wait=0.5) as index:  # a scan does not wait on a search
            index.remember_classes(verdicts)
    except (sqlite3.Error, OSError, Timeout):
        return


def _unusable(state: DirState, error: Exception) -> ClarityError:
    return ClarityError(
        f"the search index in {state.root} cannot be used ({error}); "
        f"remove {INDEX_NAME} there and search again: it is made anew from the plans"
    )
