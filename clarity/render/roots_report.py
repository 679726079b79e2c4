"""Every plans folder (`clarity roots`), and the reports of a command run over all of them
(`--all`): one section per root, its path, how it was found, and its own report.

In JSON a command over every root is one document: `roots` (each root with its
counts or its error) and, for a scan, every plan of every root in one `plans`
list, each record naming its root.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from clarity.printable import counted, printable
from clarity.render import output
from clarity.render.json_report import envelope
from clarity.render.terminal import Format

if TYPE_CHECKING:
    from clarity.hints import Again
    from clarity.model import ScanReport
    from clarity.workflows.reports import RunReport
    from clarity.workflows.roots import PlansRoot, RootOutcome, Roots

T = TypeVar("T")


def root_document(root: PlansRoot) -> dict[str, Any]:
    return {
        "plans_dir": os.fsdecode(root.plans_dir),
        "source": root.source,
        "archive_dir": os.fsdecode(root.archive_dir),
        "archive_source": root.archive_source,
        "claude_config_dir": os.fsdecode(root.claude_dir),
        "project": None if root.project is None else os.fsdecode(root.project),
        "agent": root.agent,  # whose plans: the plan source's name (claude-code, ...)
    }


GONE_LISTED = 3


def print_roots(roots: Roots, output_format: Format) -> None:
    if output_format is Format.JSON:
        output.send_json(
            envelope(
                {
                    "roots": [root_document(root) for root in roots.roots],
                    "passed_over": [
                        {"path": os.fsdecode(item.path), "reason": item.reason}
                        for item in roots.passed_over
                    ],
                }
            )
        )
        return
    if output_format is Format.MARKDOWN:
        output.say(_roots_markdown(roots).splitlines())
        return
    lines = [f"{counted(len(roots.roots), 'plans folder')}:"]
    for root in roots.roots:
        lines += [f"  {root.plans_dir}", f"    agent: {root.agent}", f"    found: {root.source}"]
        lines.append(f"    archive: {root.archive_dir} ({root.archive_source})")
    # A folder an agent worked in that is gone now says nothing a person acts on: past a
    # few, they are one line (the JSON lists each), and the folders that are there stand out.
    gone = [item for item in roots.passed_over if item.gone]
    shown = [item for item in roots.passed_over if item not in gone or len(gone) <= GONE_LISTED]
    if shown or gone:
        lines += ["", "Passed over:"]
        lines += [f"  {item.path}: {item.reason}" for item in shown]
    if len(gone) > GONE_LISTED:
        lines.append(
            f"  {counted(len(gone), 'folder')} Claude Code once worked in, gone now "
            "(clarity roots --json lists each)"
        )
    output.say([printable(line) for line in lines])


def _roots_markdown(roots: Roots) -> str:
    """The roots as a Markdown table, and what was passed over as a list (each path a code
    span: a folder's name is no markup)."""
    from clarity.render.markdown_report import cell, code_cell

    lines = [
        f"**{counted(len(roots.roots), 'plans folder')}**",
        "",
        "| plans folder | agent | found | archive |",
        "|---|---|---|---|",
    ]
    for root in roots.roots:
        archive = f"{code_cell(os.fsdecode(root.archive_dir))} ({cell(root.archive_source)})"
        lines.append(
            f"| {code_cell(os.fsdecode(root.plans_dir))} | {cell(root.agent)} "
            f"| {cell(root.source)} | {archive} |"
        )
    if roots.passed_over:
        lines += ["", "**Passed over**", ""]
        lines += [
            f"- {code_cell(os.fsdecode(item.path))}: {cell(item.reason)}"
            for item in roots.passed_over
        ]
    return "\n".join(lines)


def heading(root: PlansRoot, output_format: Format) -> list[str]:
    """The line that opens a root's section."""
    title = f"{root.plans_dir} (found: {root.source})"
    if output_format is Format.MARKDOWN:
        return [f"# {printable(title)}", ""]
    return ["", printable(f"=== {title}"), ""]


def print_each(
    outcomes: Sequence[RootOutcome[T]],
    output_format: Format,
    print_one: Callable[[PlansRoot, T], int | None],
) -> int:
    """Each root's section in turn (text formats); exit 1 when one failed."""
    failed = 0
    for outcome in outcomes:
        output.say(heading(outcome.root, output_format))
        if outcome.result is None:
            failed = 1
            output.say([printable(f"clarity: {outcome.error}")])
            continue
        failed = max(failed, print_one(outcome.root, outcome.result) or 0)
    return failed


def scans_document(outcomes: Sequence[RootOutcome[ScanReport]]) -> dict[str, Any]:
    from clarity.render.json_report import scan_document

    roots: list[dict[str, Any]] = []
    plans: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    now = None
    for outcome in outcomes:
        entry = root_document(outcome.root)
        if outcome.result is None:
            roots.append({**entry, "error": outcome.error})
            continue
        document = scan_document(outcome.result)
        now = document["now"]
        for plan in document["plans"]:
            plan["root"] = entry["plans_dir"]
        plans += document["plans"]
        skipped += document["skipped"]
        for key, value in document["counts"].items():
            counts[key] = counts.get(key, 0) + value
        roots.append(
            {
                **entry,
                "counts": document["counts"],
                "proposal": document["proposal"],
                "notes": document["notes"],
                "cleanup_period_days": document["cleanup_period_days"],
                "error": None,
            }
        )
    return envelope(
        {
            "now": now,
            "roots": roots,
            "plans": plans,
            "counts": counts,
            "skipped": skipped,
        }
    )


def listings_document(outcomes: Sequence[RootOutcome[Any]]) -> dict[str, Any]:
    """`clarity archived --all --json`: each root's archive listing (results are
    (settings, ArchiveListing)), or why it could not be read."""
    from clarity.render.shelf_report import listing_document

    return envelope(
        {
            "roots": [
                {**root_document(o.root), "error": o.error}
                | ({} if o.result is None else listing_document(o.result[1]))
                for o in outcomes
            ]
        }
    )


def runs_document(outcomes: Sequence[RootOutcome[RunReport]]) -> dict[str, Any]:
    from clarity.render.run_report import run_document

    roots = []
    for outcome in outcomes:
        entry = root_document(outcome.root)
        if outcome.result is None:
            roots.append({**entry, "error": outcome.error})
        else:
            roots.append({**entry, **run_document(outcome.result), "error": None})
    return envelope({"roots": roots})


def every_scan_text(
    outcomes: Sequence[RootOutcome[ScanReport]],
    output_format: Format,
    again: Callable[[PlansRoot], Again],
) -> str:
    """The reports of every root as one text, for a file (scan --all --output); again: how
    each root's hints repeat a command on its folder."""
    from clarity.render.json_report import dumps
    from clarity.render.terminal import scan_report_text

    if output_format is Format.JSON:
        return dumps(scans_document(outcomes))
    count = f"every plans folder ({len(outcomes)})"
    first = (
        f"## clarity: Plans in {count}" if output_format is Format.MARKDOWN else f"Plans in {count}"
    )
    parts = [first + "\n"]
    for outcome in outcomes:
        parts.append("\n".join(heading(outcome.root, output_format)) + "\n")
        if outcome.result is None:
            parts.append(printable(f"clarity: {outcome.error}") + "\n")
        else:
            parts.append(scan_report_text(outcome.result, output_format, again(outcome.root)))
    return "".join(parts)
