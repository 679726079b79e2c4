"""`--json` output exactly as SPEC 6 shows (fields may be added, never renamed)."""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from clarity.model import Action, Basis, PlanClass, ScanReport, Verdict
from clarity.render.layout import decided_by

if TYPE_CHECKING:
    from clarity.model import AgentUsage

SCHEMA_VERSION = 1


def envelope(document: dict[str, Any]) -> dict[str, Any]:
    """Every --json document, and every MCP answer's structured content: its schema's
    version first, then its own fields (fields may be added, never renamed: SPEC 6)."""
    return {"schema_version": SCHEMA_VERSION, **document}


_VALUES: dict[Any, str] = {
    member: member.value for enum in (PlanClass, Action, Basis) for member in enum
}  # an enum's .value is a property lookup; a dict is a quarter of the cost


def _iso(timestamp: float, like: datetime) -> str:
    return datetime.fromtimestamp(timestamp, tz=like.tzinfo).isoformat()


def _plan(report: ScanReport, verdict: Verdict, folder: str) -> dict[str, Any]:
    facts = verdict.facts
    plan: dict[str, Any] = {
        "name": facts.name,
        "path": folder + facts.name,  # str(facts.path), without making a Path per plan
        "class": _VALUES[verdict.plan_class],
        "action": _VALUES[verdict.action],
        "reason": verdict.reason,
        "size": facts.size,
        "mtime": _iso(facts.mtime, report.now),
        "age_days": round(report.age_days(verdict), 2),
        "title": facts.title,
        "parent": verdict.parent,
        "subplans": list(verdict.subplans),
        "warnings": list(facts.warnings),
        "project": report.project(verdict),  # the working directory of the plan's session
        "decided_by": _VALUES[verdict.basis],
    }
    left = report.cleanup_in_days(verdict)
    if left is not None:
        plan["cleanup_in_days"] = left  # whole days until Claude Code's own cleanup deletes it
    advice = report.advice.get(verdict.name)
    if advice is not None:
        plan["advice"] = {
            "verdict": advice.verdict,
            "reason": advice.reason,
            "confidence": advice.confidence,
        }
    return plan


def agent_document(usage: AgentUsage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    return {
        "model": usage.model,
        "requests": usage.requests,
        "cached": usage.cached,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "budget": usage.budget,
        "notes": list(usage.notes),
    }


def scan_document(report: ScanReport) -> dict[str, Any]:
    # The folder ending in its separator: a plan's path is folder + name.
    folder = os.path.join(report.plans_dir, "")  # noqa: PTH118 - Path drops the separator
    document = envelope(
        {
            "plans_dir": str(report.plans_dir),
            "archive_dir": str(report.archive_dir),
            "now": report.now.isoformat(),
            "plans": [_plan(report, verdict, folder) for verdict in report.verdicts],
            "counts": report.counts(),
            "decided_by": decided_by(report),
            "skipped": [{"path": str(item.path), "reason": item.reason} for item in report.skipped],
            "notes": list(report.notes),
            "proposal": (
                None
                if report.proposal is None
                else {"id": report.proposal, "scanned_at": report.now.isoformat()}
            ),
        }
    )
    # null: Claude Code's age-based cleanup does not reach this plans dir (SPEC 9)
    document["cleanup_period_days"] = None if report.retention is None else report.retention.days
    if report.agent is not None:
        document["agent"] = agent_document(report.agent)
    return document


def dumps(document: Any) -> str:
    """One line of JSON; names that are not valid UTF-8 are kept exact as \\u escapes.

    Not indented: indentation switches json to its pure-Python encoder, half
    the cost of a 10k-plan scan. Pipe through `jq` to read it.
    """
    text = json.dumps(document, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(document, ensure_ascii=True)
    return text + "\n"
