"""What apply and undo will do (the question) and what they did (the result)."""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Any

from clarity.hints import Again
from clarity.printable import display_name, printable_lines
from clarity.render.json_report import agent_document, envelope
from clarity.render.layout import agent_lines
from clarity.workflows.reports import RunKind, RunReport, Status

if TYPE_CHECKING:
    from clarity.workflows.reports import UndoPlan
    from clarity.workflows.runs import ApplyPreview

DONE_LINES = 100  # a long run lists this many moves, then counts the rest
_VERBS = {"archive": "archived", "trash": "trashed", "restore": "restored"}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def preview_lines(preview: ApplyPreview) -> list[str]:
    groups = preview.groups
    archive = [g for g in groups if g.action.value == "archive"]
    trash = [g for g in groups if g.action.value == "trash"]
    lines = [
        "clarity archive: the plans you named"
        if preview.handpicked
        else f"clarity apply: the scan {preview.proposal.label}"
    ]
    if preview.resumed:
        lines[0] += " (resuming: an interrupted apply already did part of it)"
    for title, chosen, where in (
        ("Archive", archive, f" into {preview.proposal.archive_dir}"),
        ("Send to the trash", trash, ""),
    ):
        if not chosen:
            continue
        subs = sum(len(g.subplans) for g in chosen)
        extra = f" (+{_plural(subs, 'sub-plan')})" if subs else ""
        lines += ["", f"{title}: {_plural(len(chosen), 'plan')}{extra}{where}"]
        for group in chosen[:DONE_LINES]:
            title_text = f"  {display_name(group.plan.title)}" if group.plan.title else ""
            lines.append(f"  {display_name(group.plan.name)}{title_text}")
            lines += [f"    └ {display_name(sub.name)}" for sub in group.subplans]
        if len(chosen) > DONE_LINES:
            lines.append(f"  ... and {len(chosen) - DONE_LINES} more")
    lines += ["", "Each file is checked again just before it moves; a changed one is skipped."]
    return lines


def undo_preview_lines(plan: UndoPlan) -> list[str]:
    where = plan.archive_dir if all(i.to_archive for i in plan.items) else plan.plans_dir
    lines = [
        f"clarity undo: put back {_plural(len(plan.items), 'file')} that "
        f"{' and '.join(plan.labels or plan.runs)} moved, into {where}"
    ]
    for item in plan.items[:DONE_LINES]:
        if item.to_archive:  # a restore undone: the plan goes back to its place in the archive
            place = display_name(os.fsdecode(item.intent.src))
            lines.append(f"  {display_name(item.name)}  back into the archive at {place}")
            continue
        source = "the trash" if item.from_trash else display_name(os.fsdecode(item.where or ""))
        lines.append(f"  {display_name(item.name)}  from {source}")
    if len(plan.items) > DONE_LINES:
        lines.append(f"  ... and {len(plan.items) - DONE_LINES} more")
    lines += ["", "A file is never put back over one that has appeared since."]
    return lines


def summary_line(report: RunReport) -> str:
    done = Counter(r.action for r in report.results if r.status is Status.DONE)
    parts = [f"{count} {_VERBS.get(action, action)}" for action, count in sorted(done.items())]
    counts = report.counts()
    parts += [f"{counts['skipped']} skipped", f"{counts['failed']} failed"]
    return "Done: " + ", ".join(parts) + "."


def result_lines(report: RunReport, again: Again) -> list[str]:
    lines = list(report.notes)
    lines += [f"FAILED    {problem}" for problem in report.problems]
    done = [r for r in report.results if r.status is Status.DONE]
    for result in done[:DONE_LINES]:
        where = f" -> {display_name(os.fsdecode(result.destination))}" if result.destination else ""
        verb = _VERBS.get(result.action, result.action)
        lines.append(f"{verb:9} {display_name(result.name)}{where}")
    if len(done) > DONE_LINES:
        lines.append(f"... and {len(done) - DONE_LINES} more (the journal lists every move)")
    for result in report.results:
        if result.status is Status.SKIPPED:
            lines.append(f"skipped   {display_name(result.name)}: {result.reason}")
        elif result.status is Status.FAILED:
            lines.append(f"FAILED    {display_name(result.name)}: {result.error}")
    lines += agent_lines(report.agent)
    if report.run is not None:
        lines.append(summary_line(report))
        if report.kind in (RunKind.APPLY, RunKind.ARCHIVE) and done:  # restore: its own hint
            undo = again.command("undo")
            lines.append(f"Changed your mind? {undo} puts everything back.")
    return lines


def result_markdown(report: RunReport, again: Again) -> str:
    lines = [f"## clarity {report.kind}: {report.plans_dir}", ""]
    lines += [f"- {line}" for line in result_lines(report, again)]
    return printable_lines(lines)


def run_document(report: RunReport) -> dict[str, Any]:
    return envelope(
        {
            "plans_dir": os.fsdecode(report.plans_dir),
            "archive_dir": os.fsdecode(report.archive_dir),
            "run": report.run,
            "results": [
                {
                    "name": result.name,
                    "action": result.action,
                    "status": result.status.value,
                    "destination": os.fsdecode(result.destination) if result.destination else None,
                    "error": result.error,
                    "reason": result.reason,
                }
                for result in report.results
            ],
            "counts": report.counts(),
            "notes": list(report.notes),
            "problems": list(report.problems),
            "proposal": report.proposal,
            **({"agent": agent_document(report.agent)} if report.agent is not None else {}),
        }
    )
