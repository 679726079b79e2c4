"""What the SessionStart hook says, worked out by a scan (the hook calls it on a miss): the
session summary, a use case as any other.

The scan is `clarity scan`'s own, with the settings the CLI would resolve in
the session's folder and the facts cache of that plans directory, so a plan
unchanged since the last scan is not read again. It records no proposal.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from clarity.model import PlanClass, ScanReport, ScanRequest, Verdict
from clarity.plans.facts_cache import FactsCache
from clarity.settings.config import Settings, load_settings
from clarity.state import DirState
from clarity.workflows.pipeline import PlanFolder
from clarity.workflows.session_watch import HORIZON_DAYS, listing, stamp, watched


def cleanup_left(report: ScanReport, verdict: Verdict) -> float | None:
    """Days until Claude Code deletes a plan that stays where it is, if it does.

    The report leaves out the plans apply would move (report.cleanup_in_days);
    until someone applies, Claude Code deletes a completed plan just the same,
    and it is the one worth keeping. A stale stub, bound for the trash, is not.
    """
    if verdict.plan_class is PlanClass.STALE or report.retention is None:
        return None
    if verdict.plan_class is PlanClass.COMPLETED or report.cleanup_in_days(verdict) is not None:
        return report.retention.left(verdict.facts.mtime, report.now.timestamp())
    return None


def keep_near_cleanup(
    settings: Settings, state: DirState, now: datetime, stop_at: float
) -> tuple[set[str], int]:
    """The text of each plan near Claude Code's cleanup kept (SPEC 6.1), until stop_at (a
    time.monotonic()): (the plans near it whose text is kept, how many are left for the
    next start)."""
    from clarity.workflows.keeping import keep_live_plans

    if settings.retention is None:
        return set(), 0  # Claude Code's cleanup does not reach this plans dir
    kept = keep_live_plans(
        state,
        settings.plans_dir,
        settings.archive_dir,
        now,
        retention=settings.retention,
        keep_days=settings.keep_days,
        only_near_cleanup=True,
        deadline=stop_at,
    )
    return {*kept.near_cleanup, *kept.near_before}, kept.left + len(kept.problems)


def summarize(
    cwd: str, env: Mapping[str, str], now: float, stop_at: float | None = None
) -> dict[str, Any]:
    """The memo entry for this project: what to check next time, and what was found.
    stop_at: a time.monotonic() past which keeping texts is left for the next start."""
    settings = load_settings({}, env, Path(cwd))
    plans_dir = str(settings.plans_dir)
    entry: dict[str, Any] = {
        "plans_dir": plans_dir,
        # Taken before the scan: a plan that changes while it runs is seen next time.
        "listing": listing(plans_dir),
        "watch": [],
        "made": now,
        "done": 0,
        "deadlines": [],
        "kept": 0,  # plans near Claude Code's cleanup whose text clarity kept
        "keep_left": 0,  # plans not kept in time: the next start keeps them
    }
    paths = watched(cwd, str(settings.claude_dir), str(settings.config_path))
    entry["watch"] = [[path, stamp(path)] for path in paths]
    default = users_default(settings, Path(cwd))
    if default is not None:
        entry["also"] = [[str(default.plans_dir), listing(str(default.plans_dir))]]
    chosen_dirs = [] if entry["listing"] is None else [settings]  # none: nothing to say of it
    chosen_dirs += [] if default is None else [default]
    moment = datetime.fromtimestamp(now).astimezone()
    # First what Claude Code is about to delete: its text, kept, before anything is said.
    stop_at = time.monotonic() + 1.0 if stop_at is None else stop_at
    for chosen in chosen_dirs:
        found = _found(chosen, moment, stop_at)
        entry["done"] += found["done"]
        entry["deadlines"] += found["deadlines"]
        entry["kept"] += found["kept"]
        entry["keep_left"] += found["keep_left"]
    return entry


def due_by_age(cwd: str, env: Mapping[str, str], now: float) -> list[float]:
    """What a session start cut short by its deadline knows at once: when Claude Code's
    cleanup deletes each plan of the session's plans folders that it deletes within the
    horizon, from the plan's age alone (a stat each, no plan read: a stale stub that apply
    would trash is counted too, and Claude Code does delete it)."""
    settings = load_settings({}, env, Path(cwd))
    default = users_default(settings, Path(cwd))
    deadlines = []
    for chosen in [settings] if default is None else [settings, default]:
        if chosen.retention is not None:
            lefts = (chosen.retention.left(mtime, now) for mtime in _plan_mtimes(chosen))
            deadlines += [now + left * 86400 for left in lefts if left < HORIZON_DAYS + 1]
    return deadlines


def _plan_mtimes(settings: Settings) -> list[float]:
    """The mtime of each plan in the plans folder (none if it cannot be listed)."""
    import os

    from clarity.plans.reader import is_plan_name

    mtimes = []
    try:
        with os.scandir(settings.plans_dir) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):  # gone meanwhile: no plan to count
                    if is_plan_name(entry.name):
                        mtimes.append(entry.stat(follow_symlinks=False).st_mtime)
    except OSError:
        return []
    return mtimes


def users_default(settings: Settings, cwd: Path) -> Settings | None:
    """The user's own `<config dir>/plans` when the project keeps its plans elsewhere (its
    plansDirectory): the hook speaks for both, and for no other project (SPEC 2)."""
    from clarity.settings.locations import (
        DEFAULT,
        ClaudeSettings,
        Origin,
        archive_dir_for,
        claude_retention,
    )

    if settings.sources["plans_dir"].origin is not Origin.CLAUDE:
        return None
    plans_dir = settings.claude_dir / "plans"
    if not plans_dir.is_dir() or plans_dir.resolve() == settings.plans_dir.resolve():
        return None

    chosen = settings.sources["archive_dir"].origin in (Origin.CONFIG, Origin.ENV)
    archive = archive_dir_for(
        plans_dir, settings.claude_dirs, settings.archive_dir if chosen else None
    )
    claude = ClaudeSettings(
        cwd, settings.claude_dir
    )  # cleanupPeriodDays as Claude Code reads it there
    return settings._replace(
        plans_dir=plans_dir,
        archive_dir=archive.path,
        retention=claude_retention(claude, settings.claude_dir, plans_dir),
        sources={**settings.sources, "plans_dir": DEFAULT, "archive_dir": archive.source},
    )


def _found(settings: Settings, moment: datetime, stop_at: float) -> dict[str, Any]:
    """What one plans dir has to say: plans done, cleanup deadlines, texts kept."""
    now = moment.timestamp()
    state = DirState.for_plans_dir(settings.plans_dir)
    kept, keep_left = keep_near_cleanup(settings, state, moment, stop_at)
    cache = FactsCache.load(state.facts_cache_file)
    whole = False
    try:
        # go_on: a hook cut short by its deadline goes on next time where it stopped.
        report = PlanFolder(settings, state).scan(ScanRequest(moment), go_on=True, cache=cache)
        whole = True
    finally:  # cut short too: the plans read are not read again next start (issue 45)
        cache.save(state.facts_cache_file, whole=whole)
    plans = report.verdicts  # counted as the scan counts them: each file, sub-plans too
    lefts = ((v.name, cleanup_left(report, v)) for v in plans)
    # Kept a day past the horizon: the memo is said again for some hours.
    due = [(name, left) for name, left in lefts if left is not None and left < HORIZON_DAYS + 1]
    return {
        "done": sum(1 for v in plans if v.plan_class is PlanClass.COMPLETED),
        "deadlines": [now + left * 86400 for _, left in due],
        "kept": sum(1 for name, left in due if left < HORIZON_DAYS and name in kept),
        "keep_left": keep_left,
    }
