"""`--json` output exactly as SPEC 6 shows (fields may be added, never renamed)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from clarity.model import ScanReport
from clarity.render.layout import decided_by
from clarity.workflows.rows import each_live_row, live_rows, rows_json

if TYPE_CHECKING:
    from clarity.model import AgentUsage

SCHEMA_VERSION = 1


def envelope(document: dict[str, Any]) -> dict[str, Any]:
    """Every --json document, and every MCP answer's structured content: its schema's
    version first, then its own fields (fields may be added, never renamed: SPEC 6)."""
    return {"schema_version": SCHEMA_VERSION, **document}


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


def scan_document(report: ScanReport, *, with_plans: bool = True) -> dict[str, Any]:
    document = envelope(
        {
            "plans_dir": str(report.plans_dir),
            "archive_dir": str(report.archive_dir),
            "now": report.now.isoformat(),
            "plans": rows_json(live_rows(report), report.now) if with_plans else [],
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


_PLANS = '"plans": []'


def scan_json(report: ScanReport) -> Iterator[str]:
    """scan --json's document in pieces, a plan at a time: the same text `dumps` makes
    of scan_document (SPEC 6), without holding every plan's dict, nor the whole text, at
    once (100,000 plans made 408 MB of them). A piece whose names are not valid UTF-8
    keeps them exact as \\u escapes, as dumps does."""
    head, _, tail = _text(scan_document(report, with_plans=False)).partition(_PLANS)
    yield head + '"plans": ['
    zone = report.now.tzinfo
    for number, row in enumerate(each_live_row(report)):
        yield (", " if number else "") + _text(row.to_json(zone))
    yield "]" + tail + "\n"


# One encoder for every piece: `json.dumps` with an option makes an encoder a call, a
# tenth of the pieces' cost at 10,000 plans.
_UNICODE = json.JSONEncoder(ensure_ascii=False)
_ASCII = json.JSONEncoder(ensure_ascii=True)
_SURROGATE = re.compile("[\ud800-\udfff]")  # a name's byte that is not UTF-8 (surrogateescape)


def _text(document: Any) -> str:
    text = _UNICODE.encode(document)
    if not text.isascii() and _SURROGATE.search(text):
        text = _ASCII.encode(document)  # exact, as \u escapes
    return text


def dumps(document: Any) -> str:
    """One line of JSON; names that are not valid UTF-8 are kept exact as \\u escapes.

    Not indented: indentation switches json to its pure-Python encoder, half
    the cost of a 10k-plan scan. Pipe through `jq` to read it.
    """
    return _text(document) + "\n"
