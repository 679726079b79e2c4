"""The page's pictures, drawn as SVG on the server: no script, no font from the network.

Plans per week by class, the archive's growth by quarter, plans per project.
Every label is escaped (a project's name is anybody's text); colours come from
classes the stylesheet names, so the page's Content-Security-Policy needs no
inline style.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from html import escape

from clarity.workflows.rows import ROW_CLASSES, PlanRow

CLASSES = ROW_CLASSES
WEEKS = 26  # "the last months": half a year of weeks
PROJECTS_MOST = 12


WEEK_S = 7 * 86400


def _week(moment: float) -> datetime:
    day = datetime.fromtimestamp(moment, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def weeks_by_class(plans: Iterable[PlanRow], now: float) -> list[tuple[datetime, Counter[str]]]:
    """(monday, count per class) of the last WEEKS weeks, oldest first: each plan in the
    week (UTC) its file was last written."""
    first = _week(now) - timedelta(weeks=WEEKS - 1)
    start = first.timestamp()
    counts: list[Counter[str]] = [Counter() for _ in range(WEEKS)]
    for plan in plans:
        number = int((plan.mtime - start) // WEEK_S)  # no datetime per plan: 20,000 of them
        if 0 <= number < WEEKS:
            counts[number][plan.plan_class] += 1
    return [(first + timedelta(weeks=number), counts[number]) for number in range(WEEKS)]


_QUARTER_FOLDER = re.compile(r"\d{4}-Q[1-4]")


def _folder_quarter(plan: PlanRow) -> str:
    """The archive's quarter folder a plan lies in (`2026-Q1/foo.md`): the quarter of its
    last write, as the archive sorts it (SPEC 5); else that quarter from its mtime."""
    folder = plan.value.split("/", 1)[0]
    if _QUARTER_FOLDER.fullmatch(folder):
        return folder
    moment = datetime.fromtimestamp(plan.mtime, UTC)
    return f"{moment.year}-Q{(moment.month - 1) // 3 + 1}"


def archive_by_quarter(plans: Iterable[PlanRow]) -> list[tuple[str, int, int]]:
    """(quarter, plans in its folder, plans in every folder up to it), oldest first: the
    archive as a person sees it on disk, not the day a run moved them (a first apply moves
    a year of plans at once)."""
    added = Counter(_folder_quarter(plan) for plan in plans if plan.place == "archive")
    total, rows = 0, []
    for quarter in sorted(added):
        total += added[quarter]
        rows.append((quarter, added[quarter], total))
    return rows


def per_project(plans: Iterable[PlanRow]) -> list[tuple[str, int]]:
    """The projects with the most plans (live, archived, kept), most first."""
    counted = Counter(plan.project or "(no session found)" for plan in plans)
    return counted.most_common(PROJECTS_MOST)


def _svg(width: int, height: int, title: str, body: Sequence[str]) -> str:
    return (
        f'<svg class="picture" viewBox="0 0 {width} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>{"".join(body)}</svg>'
    )


def weeks_svg(rows: Sequence[tuple[datetime, Counter[str]]]) -> str:
    width, height, left, bottom, top = 640, 220, 36, 28, 10
    most = max([sum(counts.values()) for _, counts in rows] + [1])
    step = (width - left - 8) / max(len(rows), 1)
    scale = (height - bottom - top) / most
    body = [
        f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - 4}" '
        f'y2="{height - bottom}"/>',
        f'<text class="label" x="{left - 6}" y="{top + 8}" text-anchor="end">{most}</text>',
        f'<text class="label" x="{left - 6}" y="{height - bottom}" text-anchor="end">0</text>',
    ]
    for number, (week, counts) in enumerate(rows):
        x = left + number * step
        y: float = height - bottom
        for plan_class in CLASSES:
            count = counts.get(plan_class, 0)
            if not count:
                continue
            tall = count * scale
            y -= tall
            body.append(
                f'<rect class="c-{plan_class}" x="{x + 1:.1f}" y="{y:.1f}" '
                f'width="{step - 2:.1f}" height="{tall:.1f}"><title>week of {week:%Y-%m-%d}: '
                f"{count} {plan_class}</title></rect>"
            )
        if number % 4 == 0:
            body.append(f'<text class="label" x="{x:.1f}" y="{height - 10}">{week:%b %d}</text>')
    return _svg(width, height, "Plans per week by class", body)


def quarters_svg(rows: Sequence[tuple[str, int, int]]) -> str:
    width, height, left, bottom, top = 640, 200, 36, 28, 10
    if not rows:
        return _svg(
            width,
            40,
            "The archive by quarter",
            ['<text class="label" x="4" y="24">nothing archived yet</text>'],
        )
    most = max(total for _, _, total in rows) or 1
    step = min((width - left - 8) / len(rows), 80)
    scale = (height - bottom - top) / most
    body = [
        f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - 4}" '
        f'y2="{height - bottom}"/>',
        f'<text class="label" x="{left - 6}" y="{top + 8}" text-anchor="end">{most}</text>',
    ]
    for number, (quarter, added, total) in enumerate(rows):
        x = left + number * step
        tall = total * scale
        body.append(
            f'<rect class="c-archived" x="{x + 2:.1f}" y="{height - bottom - tall:.1f}" '
            f'width="{step - 4:.1f}" height="{tall:.1f}"><title>{escape(quarter)}: {added} '
            f"archived, {total} in all</title></rect>"
        )
        body.append(
            f'<text class="label" x="{x + 2:.1f}" y="{height - 10}">{escape(quarter)}</text>'
        )
    return _svg(width, height, "The archive by quarter", body)


def projects_svg(rows: Sequence[tuple[str, int]]) -> str:
    bar, gap, left, width = 18, 6, 260, 640
    height = max(len(rows), 1) * (bar + gap) + 8
    most = max([count for _, count in rows] + [1])
    body = []
    for number, (project, count) in enumerate(rows):
        y = 4 + number * (bar + gap)
        shown = project if len(project) <= 40 else "…" + project[-39:]
        long = (width - left - 50) * count / most
        body.append(
            f'<text class="label" x="{left - 6}" y="{y + 13}" text-anchor="end">'
            f"{escape(shown)}<title>{escape(project)}</title></text>"
            f'<rect class="c-project" x="{left}" y="{y}" width="{long:.1f}" height="{bar}"/>'
            f'<text class="label" x="{left + long + 4:.1f}" y="{y + 13}">{count}</text>'
        )
    return _svg(width, height, "Plans per project", body)
