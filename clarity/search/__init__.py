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
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.errors import ClarityError
from clarity.model import Place, SearchRequest
from clarity.search.where import INDEX_NAME, index_file
from clarity.state import DirState

if TYPE_CHECKING:
    from clarity.model import ScanReport
    from clarity.search.index import Hit
    from clarity.settings.config import Settings

PLACES = (Place.LIVE, Place.ARCHIVE)  # where a search may be narrowed to (MCP's `where`)
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


# A long-lived reader (the MCP server) searches in bursts: a refresh (a stat of every
# plan) stays good this long while neither folder changed (a plan added, removed or
# renamed changes its folder; an archive run, its index). An edit in place may wait this
# long to be found; a process that searches once (the CLI) always refreshes.
_REFRESHED: dict[tuple[Path, Path], tuple[tuple[int, ...], float, dict[str, int]]] = {}
REFRESHED_MOST = 256  # roots remembered at once


def _folders_stamp(plans_dir: Path, archive_dir: Path) -> tuple[int, ...]:
    stamp: list[int] = []
    for path in (plans_dir, archive_dir / "index.jsonl", archive_dir / "versions"):
        try:
            info = path.stat()
            stamp += [info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_size]
        except OSError:
            stamp += [-1]
    return tuple(stamp)


def _fresh(settings: Settings, reuse_within: float) -> dict[str, int] | None:
    """The index's counts as of the last refresh of this root, if that refresh still
    holds (see _REFRESHED); None: refresh."""
    import time

    known = _REFRESHED.get((settings.plans_dir, settings.archive_dir))
    if (
        known is not None
        and time.monotonic() - known[1] < reuse_within
        and known[0] == _folders_stamp(settings.plans_dir, settings.archive_dir)
    ):
        return known[2]
    return None


def _refreshed(settings: Settings, stamp: tuple[int, ...], counts: dict[str, int]) -> None:
    import time

    # One entry a root: a search of every root refreshes each in turn, and a memo of one
    # entry (as it was) made every root refresh at every search. Bounded all the same.
    if len(_REFRESHED) >= REFRESHED_MOST:
        _REFRESHED.pop(next(iter(_REFRESHED)))  # the oldest
    _REFRESHED.pop((settings.plans_dir, settings.archive_dir), None)
    _REFRESHED[(settings.plans_dir, settings.archive_dir)] = (stamp, time.monotonic(), counts)


def _is_plan(settings: Settings) -> Callable[[str], bool]:
    """Which files of the folder are plans: its agent's rule (sources/)."""
    from clarity.sources import source_of

    return source_of(settings).is_plan


def run_search(settings: Settings, request: SearchRequest, reuse_within: float = 0.0) -> Found:
    """The hits, best first. reuse_within: seconds a refresh of the index stays good while
    neither the plans folder nor the archive changed (0: refresh first, always)."""
    import sqlite3

    from filelock import Timeout

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
            with SearchIndex.open(state, keep=bool(reuse_within)) as index:
                known = _fresh(settings, reuse_within) if reuse_within else None
                if known is None:
                    stamp = _folders_stamp(settings.plans_dir, settings.archive_dir)
                    index.refresh(settings.plans_dir, settings.archive_dir, _is_plan(settings))
                    counts = index.count()
                    _refreshed(settings, stamp, counts)
                else:
                    counts = known
                hits = index.search(
                    words,
                    settings.plans_dir,
                    settings.archive_dir,
                    place=request.place,
                    project=request.project,
                    plan_class=request.plan_class,
                    since=None if request.since is None else request.since.timestamp(),
                    limit=limit,
                    kept=counts[Place.KEPT] > 0,
                )
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
        counts[Place.LIVE],
        counts[Place.ARCHIVE],
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
