"""What the SessionStart hook says, worked out by a scan (the hook calls it on a miss).

The scan is `clarity scan`'s own, with the settings the CLI would resolve in
the session's folder and the facts cache of that plans directory, so a plan
unchanged since the last scan is not read again. It records no proposal.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from clarity.claude_code.hook_watch import HORIZON_DAYS, listing, stamp, watched
from clarity.config import load_settings
from clarity.judge.scan import scan
from clarity.model import PlanClass, ScanReport, Verdict
from clarity.plans.facts_cache import FactsCache
from clarity.state import DirState


def cleanup_left(report: ScanReport, verdict: Verdict) -> float | None:
    """Days until Claude Code deletes a plan that stays where it is, if it does.

    The report leaves out the plans apply would move (report.cleanup_in_days);
    until someone applies, Claude Code deletes a completed plan just the same,
    and it is the one worth keeping. A stale stub, bound for the trash, is not.
    """
    if verdict.plan_class is PlanClass.STALE or report.retention is None:
        return None
    if verdict.plan_class is PlanClass.COMPLETED or report.cleanup_in_days(verdict) is not None:
        return report.retention.days - report.age_days(verdict)
    return None


def summarize(cwd: str, env: Mapping[str, str], now: float) -> dict[str, Any]:
    """The memo entry for this project: what to check next time, and what was found."""
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
    }
    paths = watched(cwd, str(settings.claude_dir), str(settings.config_path))
    entry["watch"] = [[path, stamp(path)] for path in paths]
    if entry["listing"] is None:
        return entry  # no plans directory: nothing to say until there is one
    state = DirState.for_plans_dir(settings.plans_dir)
    cache = FactsCache.load(state.facts_cache_file)
    # go_on: a hook cut short by its deadline goes on next time where it stopped.
    report = scan(settings, datetime.fromtimestamp(now).astimezone(), cache=cache, go_on=True)
    cache.save(state.facts_cache_file)
    plans = report.verdicts  # counted as the scan counts them: each file, sub-plans too
    entry["done"] = sum(1 for v in plans if v.plan_class is PlanClass.COMPLETED)
    lefts = (cleanup_left(report, v) for v in plans)
    # Kept a day past the horizon: the memo is said again for some hours.
    entry["deadlines"] = [
        now + left * 86400 for left in lefts if left is not None and left < HORIZON_DAYS + 1
    ]
    return entry
