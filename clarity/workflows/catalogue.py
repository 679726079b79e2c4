"""`clarity browse`'s catalogue: every plan clarity knows, gathered from every plans folder
(SPEC 9.3). browsing.py reads one plan, its versions and the search for the page.

Read-only, as `scan` without recording is: every root is scanned as `clarity scan`
would (record=False, settle=False: nothing is written for apply, no killed run is
settled), its archive listed, its kept texts found. A `Catalogue` is that, at one
moment; a `Browser` keeps the latest one for a long-lived server and makes the next
in the background when a folder changed or it has aged, so no page waits on a scan
but the first.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.errors import ClarityError
from clarity.model import Place
from clarity.workflows.rows import ARCHIVED, PlanRow, live_rows

if TYPE_CHECKING:
    from clarity.model import SessionEvidence
    from clarity.settings.config import Settings

STALE_AFTER = 30.0  # seconds a catalogue is shown before the next is made in the background


@dataclass(frozen=True, slots=True)
class RootView:
    """One plans folder as the page names it."""

    id: str  # 8 hex of its path: stable across runs, carries no name into a URL
    settings: Settings  # its own: its folders, the Claude config dir that tells about it
    error: str | None = None  # why its plans could not be read (it vanished, ...)
    notes: tuple[str, ...] = ()

    @property
    def plans_dir(self) -> Path:
        return self.settings.plans_dir

    @property
    def archive_dir(self) -> Path:
        return self.settings.archive_dir

    @property
    def agent(self) -> str:
        """The coding agent whose plans these are (sources/: its name)."""
        return self.settings.plan_source or "claude-code"


@dataclass(frozen=True, slots=True)
class Catalogue:
    roots: tuple[RootView, ...]
    plans: tuple[PlanRow, ...]
    made_at: float  # seconds since the epoch
    sessions: dict[tuple[str, str], SessionEvidence] = field(default_factory=dict)

    def root(self, root_id: str) -> RootView | None:
        return next((root for root in self.roots if root.id == root_id), None)

    def listed(self, root_id: str, place: str, value: str) -> PlanRow | None:
        for plan in self.plans:
            if plan.root == root_id and plan.place == place and plan.value == value:
                return plan
        return None


def root_id(plans_dir: Path) -> str:
    return hashlib.sha256(os.fsencode(plans_dir)).hexdigest()[:8]


def _roots(settings: Settings) -> list[Settings]:
    """Each root's settings: the one folder the person named, else every one found."""
    from clarity.workflows.roots import find_roots, settings_for
    from clarity.workflows.searching import one_root_named

    if one_root_named(settings):
        return [settings]
    found = find_roots(settings).roots
    return [settings_for(settings, root) for root in found] or [settings]


def _shelved(settings: Settings, rid: str) -> tuple[list[PlanRow], list[str]]:
    """The archive's plans and sub-plans, and the kept texts of plans Claude Code deleted."""
    from clarity.archive.shelf import list_archived
    from clarity.sources import source_of

    shelf = list_archived(settings.archive_dir, plans_dir=settings.plans_dir)
    agent = source_of(settings).name  # whose plans the folder holds, its archive's too
    rows = []
    for plan in shelf.plans:
        record = plan.record
        rows.append(
            PlanRow(
                root=rid,
                place=Place.ARCHIVE,
                value=plan.relative,
                name=plan.name,
                path=str(plan.path),
                title=plan.title,
                plan_class=ARCHIVED,
                action=None,
                reason=str(record.get("reason") or "archived"),
                project=record.get("project"),
                mtime=plan.modified.timestamp(),
                size=int(record.get("size") or 0),
                cleanup_in_days=None,
                parent=record.get("parent"),
                subplans=tuple(str(sub.get("name")) for sub in plan.subplans),
                archived_at=record.get("archived_at"),
                plan_source=agent,
            )
        )
    for kept in shelf.kept:
        rows.append(
            PlanRow(
                root=rid,
                place=Place.KEPT,
                value=kept.name,
                name=kept.name,
                path=str(kept.version.path),
                title=kept.title,
                plan_class=Place.KEPT,
                action=None,
                reason="deleted by Claude Code; clarity kept its text",
                project=None,
                mtime=kept.version.mtime_ns / 1e9,
                size=kept.version.size,
                cleanup_in_days=None,
                plan_source=agent,
            )
        )
    notes = list(shelf.notes) if shelf.exists else []  # no archive yet: nothing to say
    return rows, notes


def make_catalogue(settings: Settings) -> Catalogue:
    """Every plan clarity knows, now; a root that cannot be read is named with why."""
    from clarity.model import ScanRequest
    from clarity.workflows.scanning import run_scan

    roots: list[RootView] = []
    plans: list[PlanRow] = []
    sessions: dict[tuple[str, str], SessionEvidence] = {}
    for chosen in _roots(settings):
        rid = root_id(chosen.plans_dir)
        notes: list[str] = []
        error = None
        try:
            request = ScanRequest(datetime.now().astimezone())
            # No agent: a page made again every 30 s must not spend tokens each time.
            reading = chosen._replace(agent=chosen.agent._replace(enabled=False))
            report = run_scan(reading, request, notes.append, record=False, settle=False)
            plans += live_rows(report, rid)
            sessions.update({(rid, name): found for name, found in report.sessions.items()})
            notes += report.notes
            notes += [f"{os.fsdecode(item.path)}: {item.reason}" for item in report.skipped]
        except (ClarityError, OSError) as problem:
            error = problem.message if isinstance(problem, ClarityError) else str(problem)
        try:
            shelved, shelf_notes = _shelved(chosen, rid)
            plans += shelved
            notes += shelf_notes
        except (ClarityError, OSError) as problem:
            notes.append(problem.message if isinstance(problem, ClarityError) else str(problem))
        roots.append(RootView(rid, chosen, error, tuple(notes)))
    plans.sort(key=lambda plan: (-plan.mtime, plan.name))
    return Catalogue(tuple(roots), tuple(plans), time.time(), sessions)


def _stamp(catalogue: Catalogue) -> tuple[Any, ...]:
    """What changes when a folder's plans or archive change (not an edit in place:
    STALE_AFTER covers that)."""
    parts: list[Any] = []
    for root in catalogue.roots:
        for path in (root.plans_dir, root.archive_dir, root.archive_dir / "index.jsonl"):
            try:
                info = path.stat()
                parts.append((info.st_mtime_ns, info.st_ctime_ns, info.st_ino))
            except OSError:
                parts.append(None)
    return tuple(parts)


def check_named_folder(settings: Settings) -> None:
    """The plans folder the person named (--plans-dir, the environment) is there and is a
    folder: ClarityError (one line, exit 2) before anything is served, as scan says."""
    from clarity.workflows.scanning import check_plans_folder
    from clarity.workflows.searching import one_root_named

    if one_root_named(settings):
        check_plans_folder(settings)


class Browser:
    """The latest catalogue of a long-lived page, the next made in the background."""

    def __init__(
        self, settings: Settings, make: Callable[[Settings], Catalogue] = make_catalogue
    ) -> None:
        self.settings = settings
        self._make = make
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._current: Catalogue | None = None
        self._stamp: tuple[Any, ...] = ()
        self._making = False
        self._failed: str | None = None

    def start(self) -> None:
        """Make the first catalogue in the background (the server answers meanwhile)."""
        self._begin()

    def _begin(self) -> None:
        with self._lock:
            if self._making:
                return
            self._making = True
        threading.Thread(target=self._run, name="clarity-browse-catalogue", daemon=True).start()

    def _run(self) -> None:
        try:
            made = self._make(self.settings)
            stamp = _stamp(made)
            with self._lock:
                self._current, self._stamp, self._failed = made, stamp, None
        except Exception as error:  # noqa: BLE001 - a thread's failure is said on the page
            message = error.message if isinstance(error, ClarityError) else repr(error)
            with self._lock:
                self._failed = message
        finally:
            with self._lock:
                self._making = False
            self._ready.set()

    def catalogue(self) -> Catalogue:
        """The latest catalogue (waiting for the first); a new one begins when a folder
        changed or this one has aged. ClarityError if none could be made yet."""
        if self._current is None:
            self._begin()
            self._ready.wait()
            current = self._current
            if current is None:
                self._ready.clear()  # the next page tries again
                raise ClarityError(f"clarity could not list the plans: {self._failed}")
            return current
        current = self._current
        if time.time() - current.made_at > STALE_AFTER or _stamp(current) != self._stamp:
            self._begin()
        return current
