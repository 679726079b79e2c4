"""Ask the advisor about each dormant plan; the answers go beside the verdicts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clarity.agent.advisor import Advisor, PlanText
from clarity.model import Advice, PlanClass, ScanReport, Summarizer
from clarity.plans.reader import NotARegularFile, read_head_and_tail, read_opening
from clarity.plans.summary import extract_summary

# Read past the size cap so that a secret straddling it is redacted whole
# before the text is cut, and so the prompt can say the plan was cut.
READ_BEYOND_CAP = 4096


def dormant_reviewer(advisor: Advisor, plan_bytes: int) -> Callable[[ScanReport], ScanReport]:
    """The agent as a scan's reviewer of its dormant plans (see scan.Review)."""
    return lambda report: review_dormant(report, advisor, plan_bytes)


def review_dormant(report: ScanReport, advisor: Advisor, plan_bytes: int) -> ScanReport:
    """The report with advice on its dormant plans, and what asking cost."""
    advice: dict[str, Advice] = {}
    for verdict in report.verdicts:
        if verdict.plan_class is not PlanClass.DORMANT:
            continue
        # Two thirds of the allowance for the head, a third for the tail; each read past
        # its share so that redaction sees a secret whole before the prompt cuts it.
        head_bytes = plan_bytes * 2 // 3
        try:
            head, tail = read_head_and_tail(
                verdict.facts.path,
                head_bytes + READ_BEYOND_CAP,
                plan_bytes - head_bytes + READ_BEYOND_CAP,
            )
        except (OSError, NotARegularFile):
            continue
        findings = "; ".join(verdict.findings)  # what the rules found short of deciding
        plan = PlanText(verdict.name, head, tail, report.age_days(verdict), findings)
        answer = advisor.review(plan)
        if answer is not None:
            advice[verdict.name] = answer
    return report._replace(advice=advice, agent=advisor.usage)


def archive_summarizer(advisor: Advisor, plan_bytes: int) -> Summarizer:
    """Summaries for archive records from the advisor; never an error that stops an apply."""

    def summarize(path: Path, name: str) -> tuple[str, str]:
        try:
            text = read_opening(path, plan_bytes + READ_BEYOND_CAP)
        except (OSError, NotARegularFile):
            return "", "extract"
        try:
            summary = advisor.summarize(PlanText(name, text))
        except Exception as error:  # noqa: BLE001 - the agent must never fail an apply
            advisor.usage.note(f"the agent failed ({type(error).__name__}); extractive summary")
            return extract_summary(text), "extract"
        return summary.text, summary.source

    return summarize
