"""One plans folder's scan pipeline: every entry point scans a folder through it.

`clarity scan`, `apply` (and `--rescan`), `archive`, the session-start hook, the MCP
server and browse each want the same thing of a plans folder: its plans classified as
of a moment, with what the folder's state knows (the facts of unchanged plans, the
sessions read so far, the approval ledger, the plans a person restored lately) and,
where the person turned it on, the agent's advice. `PlanFolder` holds that state and
builds the scan once; the use cases differ only in what they ask of it:

- `scan(request, review=...)`: the report. `review` says when the agent is asked
  (`Review.TO_REPORT`: a report a person reads; `Review.TO_DECIDE`: a run that moves
  plans, where only verdicts that decide are worth the tokens; `Review.NEVER`: the
  hook and `clarity archive`, which no one waits on the agent for).
- `scan_and_propose(...)`: the report and the moves apply may make, with what the
  scan read remembered for the next one.
- `must_stay(request)`: the plans that must stay where they are right now, and why
  (the classifier's rule 1, asked at the moment of a move).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING

from clarity.state import DirState

if TYPE_CHECKING:
    from clarity.agent.advisor import Advisor
    from clarity.judge.proposal import Proposal
    from clarity.judge.scan import Review as Reviewer
    from clarity.model import ScanReport, ScanRequest
    from clarity.plans.facts_cache import FactsCache
    from clarity.progress import Progress
    from clarity.settings.config import Settings


class Review(Enum):
    """When the agent reviews a scan's dormant plans (it runs only where it is on)."""

    NEVER = "never"
    TO_REPORT = "to report"  # advice a person reads beside the report
    TO_DECIDE = "to decide"  # only where its verdicts decide (agent_archives)


class PlanFolder:
    """A plans folder as its scans see it: the settings that chose it, its state, and
    the agent (one for a run: what it spends on reviews and summaries is counted once)."""

    def __init__(self, settings: Settings, state: DirState | None = None) -> None:
        self.settings = settings
        self.state = state or DirState.for_plans_dir(settings.plans_dir)

    @functools.cached_property
    def advisor(self) -> Advisor | None:
        """The agent, when it is on, made at the first need (its SDK is imported only when
        a request is made)."""
        if not self.settings.agent.enabled:
            return None
        from clarity.agent.factory import make_advisor

        return make_advisor(self.settings.agent, os.environ)

    def restored(self, request: ScanRequest) -> Mapping[str, float]:
        """The plans a person put back from the archive within dormant_days of the
        request's moment, and when (SPEC 4.5 rule 1), as the runs' journals say."""
        from clarity.executor.history import restored_plans

        return restored_plans(self.state, request.now, self.settings.thresholds.dormant_days)

    def reviewer(self, review: Review) -> Reviewer | None:
        """The agent's review of dormant plans, when this scan asks for it and it is on."""
        agent = self.settings.agent
        if review is Review.NEVER or (review is Review.TO_DECIDE and not agent.archives):
            return None
        advisor = self.advisor
        if advisor is None:
            return None
        from clarity.agent.review import dormant_reviewer

        return dormant_reviewer(advisor, agent.plan_bytes)

    def scan(
        self,
        request: ScanRequest,
        *,
        review: Review = Review.NEVER,
        progress: Progress | None = None,
        go_on: bool = False,
        cache: FactsCache | None = None,
    ) -> ScanReport:
        """The folder's plans classified as of the request. cache: what an earlier scan
        read of unchanged plans (the caller saves it). go_on: the transcripts are read
        from where a scan cut short stopped (the hook's way, further each time)."""
        from clarity.judge.scan import Gathering, scan

        gathering = Gathering(
            progress=progress,
            cache=cache,
            review=self.reviewer(review),
            go_on=go_on,
            restored=self.restored(request),
        )
        return scan(self.settings, request, gathering)

    def scan_and_propose(
        self, request: ScanRequest, *, review: Review, progress: Progress | None = None
    ) -> tuple[ScanReport, Proposal]:
        """The scan, with what the last scan of this folder read, and the moves it
        proposes; what it read and hashed is remembered for the next one, and its
        verdicts are what search says of each plan. The proposal is the caller's to
        record."""
        from clarity.judge.proposal import build_proposal
        from clarity.plans.facts_cache import FactsCache

        cache = FactsCache.load(self.state.facts_cache_file)
        report = self.scan(request, review=review, progress=progress, cache=cache)
        proposal = build_proposal(report, progress)
        cache.learn_hashes((f.name, f.stamp, f.sha256) for g in proposal.groups for f in g.files)
        cache.save(self.state.facts_cache_file)
        if request.project is None:  # a project's report leaves the others out
            from clarity.search import remember_scan

            remember_scan(self.state, report)
        return report, proposal

    def must_stay(self, request: ScanRequest) -> dict[str, str]:
        """The plans that must stay where they are now, and why: those Claude Code
        sessions use, the current ones, and those a person restored lately. A recorded
        scan may be hours old: a session that took up one of its plans since must not
        have it pulled away, nor a plan put back since be archived again."""
        from clarity.judge.classifier import must_stay
        from clarity.judge.scan import current_plan_names, live_sessions

        sessions = live_sessions(self.settings, request.now, request.session)
        current = current_plan_names(request.current, self.settings.plans_dir)
        restored = self.restored(request)
        names = {*sessions.in_use, *sessions.current, *current, *restored}
        held = {}
        for name in sorted(names):
            reason = must_stay(
                name,
                request.now,
                current=sessions.current | current,
                in_use=sessions.in_use,
                restored=restored,
                thresholds=self.settings.thresholds,
            )
            if reason is not None:
                held[name] = reason
        return held
