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
    from clarity.search.index import Hit, SearchIndex
    from clarity.search.query import Terms
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
BEHIND_WAIT = 60.0  # seconds a refresh behind a server's callers waits on another clarity


def _folders_stamp(plans_dir: Path, archive_dir: Path) -> tuple[int, ...]:
    stamp: list[int] = []
    for path in (plans_dir, archive_dir / "index.jsonl", archive_dir / "versions"):
        try:
            info = path.stat()
            stamp += [info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_size]
        except OSError:
            stamp += [-1]
    return tuple(stamp)


def _fresh(settings: Settings, reuse_within: float) -> tuple[dict[str, int], bool] | None:
    """The index's counts as of the last refresh of this root while neither folder changed
    since (see _REFRESHED), and whether that refresh is older than reuse_within (done again
    behind the caller: an edit in place is found by the next call but one); None: refresh
    before answering (a plan added, removed or archived is found by this very call)."""
    import time

    known = _REFRESHED.get((settings.plans_dir, settings.archive_dir))
    if known is None or known[0] != _folders_stamp(settings.plans_dir, settings.archive_dir):
        return None
    return known[2], time.monotonic() - known[1] >= reuse_within


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

    from clarity.search.query import QueryError, terms

    query = request.query
    try:
        words = terms(query)
    except QueryError as error:
        raise ClarityError(str(error)) from None
    from clarity.judge.scan import check_plans_dir

    check_plans_dir(settings)  # a mistyped folder is said, not searched and found empty
    state = DirState.for_plans_dir(settings.plans_dir)
    # A second attempt (the index was damaged) refreshes first, under the index's lock, and
    # removes it if it finds it damaged; a third makes it anew. A server's first attempt
    # reads its kept connection without the lock, and leaves the damage to the second.
    attempts = (1, 2, 3) if reuse_within else (1, 2)
    for attempt in attempts:
        try:
            hits, counts = _answer(
                settings,
                state,
                request,
                words,
                reuse_within if attempt == 1 else 0.0,
                keep=bool(reuse_within),
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
            if attempt == attempts[-1]:
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


def _answer(
    settings: Settings,
    state: DirState,
    request: SearchRequest,
    words: Terms,
    reuse_within: float,
    *,
    keep: bool,
) -> tuple[list[Hit], dict[str, int]]:
    """The hits and the index's counts. A long-lived reader (reuse_within) whose last
    refresh still holds asks the connection it kept, without waiting on the index's lock,
    and an old refresh is done again behind it (_refresh_behind); else the index is
    brought up to date first, under its lock."""
    from clarity.search.index import SearchIndex

    known = _fresh(settings, reuse_within) if reuse_within else None
    if known is not None:
        counts, old = known
        with SearchIndex.kept_only(state) as kept:
            if kept is not None:  # else: made anew since, or never kept: opened below
                hits = _ask(kept, settings, request, words, counts)
                if old:
                    _refresh_behind(settings, state)
                return hits, counts
    with SearchIndex.open(state, keep=keep) as index:
        counts = _refresh(index, settings)
        return _ask(index, settings, request, words, counts), counts


def _refresh(index: SearchIndex, settings: Settings) -> dict[str, int]:
    """The index brought up to date with the root; its counts, remembered (_REFRESHED)."""
    stamp = _folders_stamp(settings.plans_dir, settings.archive_dir)
    index.refresh(settings.plans_dir, settings.archive_dir, _is_plan(settings))
    counts = index.count()
    _refreshed(settings, stamp, counts)
    return counts


def _refresh_behind(settings: Settings, state: DirState) -> None:
    """The root's index brought up to date in a thread of its own, on a connection of its
    own under the index's lock, while calls go on asking the kept one (SQLite lets them
    read until its commit)."""
    from clarity.behind import run_behind

    def refresh() -> None:
        from filelock import Timeout

        from clarity.search.index import SearchIndex

        try:
            with SearchIndex.open(state, wait=BEHIND_WAIT) as index:
                _refresh(index, settings)
        except Timeout:
            return  # another clarity holds the index (a build): answered as it is meanwhile
        except Exception:  # noqa: BLE001 - a cache's: the next call refreshes itself and says why
            _REFRESHED.pop((settings.plans_dir, settings.archive_dir), None)

    run_behind(("search", settings.plans_dir, settings.archive_dir), refresh)


def _ask(
    index: SearchIndex,
    settings: Settings,
    request: SearchRequest,
    words: Terms,
    counts: dict[str, int],
) -> list[Hit]:
    return index.search(
        words,
        settings.plans_dir,
        settings.archive_dir,
        place=request.place,
        project=request.project,
        plan_class=request.plan_class,
        since=None if request.since is None else request.since.timestamp(),
        limit=request.limit,
        kept=counts[Place.KEPT] > 0,
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
