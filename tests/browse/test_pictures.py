"""The pictures' counts and their SVG: each plan in its week, the archive summed by
quarter, the projects with the most plans; every label escaped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from clarity.browse import pictures
from clarity.workflows.rows import PlanRow

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)  # a Thursday


def plan(name: str, days_old: float, plan_class: str = "active", **more: Any) -> PlanRow:
    values: dict[str, Any] = {
        "root": "r",
        "place": "live",
        "value": name,
        "name": name,
        "path": f"/plans/{name}",
        "title": None,
        "plan_class": plan_class,
        "action": None,
        "reason": "",
        "project": None,
        "mtime": (NOW - timedelta(days=days_old)).timestamp(),
        "size": 1,
        "cleanup_in_days": None,
    }
    values.update(more)
    return PlanRow(**values)


def test_each_plan_counts_in_the_week_its_file_was_last_written():
    plans = [
        plan("today.md", 0),
        plan("monday.md", 3.4, "completed"),  # Monday 2026-11-23, 02:24 UTC: this week
        plan("sunday.md", 3.6, "stale"),  # Sunday 2026-11-22: the week before
        plan("old.md", 7 * pictures.WEEKS + 1),  # older than the picture
        plan("future.md", -30),  # a clock ahead: in no week shown
    ]
    weeks = pictures.weeks_by_class(plans, NOW.timestamp())
    assert len(weeks) == pictures.WEEKS
    assert weeks[-1][0] == datetime(2026, 11, 23, tzinfo=UTC)
    assert weeks[-1][1] == {"active": 1, "completed": 1}
    assert weeks[-2][1] == {"stale": 1}
    assert sum(sum(counts.values()) for _, counts in weeks) == 3
    assert [monday.weekday() for monday, _ in weeks] == [0] * pictures.WEEKS


def test_the_archive_is_summed_by_its_quarter_folders_not_the_day_a_run_moved_them():
    """Issue 46: a first apply moves a year of plans at once; the chart shows the archive's
    quarter folders (each plan's last write), as the person sees them on disk."""
    moved = "2026-11-28T10:00:00+00:00"  # one run archived them all
    plans = [
        plan("a.md", 300, "archived", place="archive", value="2026-Q1/a.md", archived_at=moved),
        plan("b.md", 250, "archived", place="archive", value="2026-Q1/b.md", archived_at=moved),
        plan("c.md", 200, "archived", place="archive", value="2026-Q2/c.md", archived_at=moved),
        plan("d.md", 40, "archived", place="archive", value="d.md"),  # no folder: its mtime
        plan("live.md", 1),
    ]
    assert pictures.archive_by_quarter(plans) == [
        ("2026-Q1", 2, 2),
        ("2026-Q2", 1, 3),
        ("2026-Q4", 1, 4),
    ]


def test_projects_most_first_and_their_names_escaped():
    plans = [plan(f"{n}.md", 1, project="/w/<script>x") for n in range(3)]
    plans += [plan("lone.md", 1, project="/w/b"), plan("none.md", 1)]
    rows = pictures.per_project(plans)
    assert rows[0] == ("/w/<script>x", 3)
    assert set(rows[1:]) == {("/w/b", 1), ("(no session found)", 1)}
    drawn = pictures.projects_svg(rows)
    assert "<script" not in drawn and "&lt;script&gt;x" in drawn
    assert drawn.count("<rect") == 3
