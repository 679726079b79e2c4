"""What an advisor is: summaries for the archive, verdicts on dormant plans (SPEC 8).

Two implementations: Claude (`claude.py`, the SDK) and the extractive
fallback here, which needs no network; `factory.py` picks one. Advice never
changes a class or an action: the rules decide, a person reviews.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from clarity.model import Advice, AgentUsage, Summary
from clarity.plans.summary import extract_summary

VERDICTS = ("finished", "abandoned", "live")


@dataclass(frozen=True, slots=True)
class PlanText:
    """What an advisor reads of a plan: what a person would look at.

    Its head and, for a plan too big to send whole, its tail (plans say where
    they stand at the top and at the end), how old it is, and what clarity's
    rules found short of deciding (a qualified status, an approval without edits).
    """

    name: str
    text: str  # the head, or the whole plan
    tail: str | None = None  # the end of a plan too big to send whole
    age_days: float | None = None
    findings: str = ""  # "status field "Phase 4 in progress"; session 31da521d (...): ..."


class Advisor(Protocol):
    usage: AgentUsage

    def summarize(self, plan: PlanText) -> Summary: ...

    def review(self, plan: PlanText) -> Advice | None: ...


class ExtractiveAdvisor:
    """No network: the first paragraph as the summary, and no verdicts."""

    def __init__(self, usage: AgentUsage | None = None) -> None:
        self.usage = usage or AgentUsage()

    def summarize(self, plan: PlanText) -> Summary:
        return Summary(extract_summary(plan.text), "extract")

    def review(self, plan: PlanText) -> Advice | None:
        return None
