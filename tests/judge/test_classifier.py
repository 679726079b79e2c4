"""SPEC 4's rules on plan facts: no disk, no clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from clarity.judge.classifier import Rules, classify
from clarity.model import Action, Frontmatter, PlanClass, PlanFacts, Thresholds, Verdict
from clarity.plans.markers import compile_markers
from clarity.settings.config import DEFAULT_MARKERS
from tests.builders.files import DAY, NOW

RULES = Rules(compile_markers(DEFAULT_MARKERS), Thresholds())


def facts(
    name: str = "plan.md",
    *,
    age_days: float = 3.0,
    size: int = 4096,
    title: str | None = "A plan",
    last_line: str | None = "some text",
    status: str | None = None,
    pinned: bool = False,
    now: datetime = NOW,
) -> PlanFacts:
    return PlanFacts(
        name=name,
        folder=Path("/plans"),
        size=size,
        mtime=now.timestamp() - age_days * DAY,
        title=title,
        last_line=last_line,
        frontmatter=Frontmatter(status=status, pinned=pinned),
    )


def classify_one(
    plan: PlanFacts, rules: Rules, now: datetime, current: frozenset[str] = frozenset()
) -> Verdict:
    """A plan classified on its own (no other plan to fold it under)."""
    (found,) = classify([plan], rules, now, current)
    return found


def verdict(plan: PlanFacts, now: datetime = NOW, rules: Rules = RULES) -> Verdict:
    return classify_one(plan, rules, now)


def by_name(verdicts: tuple[Verdict, ...]) -> dict[str, Verdict]:
    return {v.name: v for v in verdicts}


# Rule 1: active now


def test_modified_today_is_active_whatever_else_it_says() -> None:
    result = verdict(facts(age_days=0.1, size=10, title="Plan COMPLETED"))
    assert (result.plan_class, result.reason) == (PlanClass.ACTIVE, "modified today")
    assert result.action is Action.KEEP


def test_today_is_the_calendar_date_not_24_hours() -> None:
    midnight = NOW.replace(hour=0, minute=0, second=0)
    just_today = facts(size=10, now=NOW, age_days=(NOW - midnight).total_seconds() / DAY - 1e-5)
    just_yesterday = facts(size=10, now=NOW, age_days=(NOW - midnight).total_seconds() / DAY + 1e-5)
    zero_stale = Rules(RULES.markers, Thresholds(stale_days=0))
    assert verdict(just_today, rules=zero_stale).reason == "modified today"
    assert verdict(just_yesterday, rules=zero_stale).plan_class is PlanClass.STALE


def test_today_is_judged_in_the_local_offset_of_now() -> None:
    tokyo = timezone(timedelta(hours=9))
    now = datetime(2026, 11, 21, 1, 0, tzinfo=tokyo)  # 2026-11-20 16:00 UTC
    mtime = datetime(2026, 11, 20, 14, 0, tzinfo=UTC_ZONE)  # same UTC date, yesterday in Tokyo
    plan = facts(age_days=(now - mtime).total_seconds() / DAY, size=10, now=now)
    zero_stale = Rules(RULES.markers, Thresholds(stale_days=0))
    assert verdict(plan, now=now, rules=zero_stale).plan_class is PlanClass.STALE
    utc_now = now.astimezone(UTC_ZONE)
    assert verdict(plan, now=utc_now, rules=zero_stale).reason == "modified today"


UTC_ZONE = UTC


def test_the_current_plan_is_active() -> None:
    plan = facts("cur.md", age_days=30, size=10, title="COMPLETED")
    result = classify_one(plan, RULES, NOW, frozenset({"cur.md"}))
    assert (result.plan_class, result.reason) == (PlanClass.ACTIVE, "current session's plan")


def test_pinned_is_active_even_when_completed_and_old() -> None:
    result = verdict(facts(age_days=90, size=10, pinned=True, status="done"))
    assert (result.plan_class, result.reason) == (PlanClass.ACTIVE, "pinned: true in frontmatter")


# Rule 2: completed


def test_h1_marker() -> None:
    result = verdict(facts(title="Billing COMPLETED", age_days=1))
    assert (result.plan_class, result.reason) == (PlanClass.COMPLETED, 'H1 marker "COMPLETED"')
    assert result.action is Action.ARCHIVE


def test_last_line_marker() -> None:
    result = verdict(facts(last_line="All shipped -- Done", age_days=1))
    assert (result.plan_class, result.reason) == (PlanClass.COMPLETED, 'last-line marker "-- Done"')


def test_h1_evidence_is_named_before_the_last_line() -> None:
    result = verdict(facts(title="X COMPLETED", last_line="No code changes"))
    assert result.reason == 'H1 marker "COMPLETED"'


@pytest.mark.parametrize("status", ["completed", "complete", "done", "finalized", "DONE", " Done "])
def test_frontmatter_status_marks_completed(status: str) -> None:
    result = verdict(facts(status=status))
    assert result.plan_class is PlanClass.COMPLETED
    assert result.reason == f'frontmatter status "{status.strip()}"'


@pytest.mark.parametrize("status", ["in progress", "draft", "not done", "completed-ish", "3"])
def test_other_statuses_do_not(status: str) -> None:
    assert verdict(facts(status=status)).plan_class is PlanClass.ACTIVE


def test_completed_beats_stale_and_dormant() -> None:
    assert verdict(facts(age_days=100, size=10, title="COMPLETED")).plan_class is (
        PlanClass.COMPLETED
    )


def test_lower_case_completed_in_a_title_is_not_a_marker() -> None:
    result = verdict(facts(title="Why the completed-orders query is slow", age_days=20))
    assert result.plan_class is PlanClass.DORMANT


def test_custom_markers_replace_the_defaults() -> None:
    rules = Rules(compile_markers(["SHIPPED"]), Thresholds())
    assert verdict(facts(title="SHIPPED"), rules=rules).plan_class is PlanClass.COMPLETED
    assert verdict(facts(title="COMPLETED"), rules=rules).plan_class is PlanClass.ACTIVE


# Rules 3-5: stale, dormant, active


def test_stale_names_size_and_age() -> None:
    result = verdict(facts(age_days=9.3, size=1229))
    assert result.plan_class is PlanClass.STALE
    assert result.action is Action.TRASH
    assert result.reason == "small and old: 1,229 B < 2,048 B, 9.3 days > 7"


@pytest.mark.parametrize(
    ("age_days", "size", "expected"),
    [
        (7.0, 100, PlanClass.ACTIVE),  # exactly stale_days: not over it
        (7.001, 100, PlanClass.STALE),
        (7.001, 2047, PlanClass.STALE),
        (7.001, 2048, PlanClass.ACTIVE),  # exactly stale_bytes: not under it
        (14.0, 4096, PlanClass.ACTIVE),  # exactly dormant_days: not over it
        (14.001, 4096, PlanClass.DORMANT),
        (14.001, 2047, PlanClass.STALE),  # stale is checked before dormant
        (3.0, 0, PlanClass.ACTIVE),  # an empty plan from this week
        (30.0, 0, PlanClass.STALE),
    ],
)
def test_size_and_age_boundaries(age_days: float, size: int, expected: PlanClass) -> None:
    assert verdict(facts(age_days=age_days, size=size)).plan_class is expected


def test_dormant_reason() -> None:
    result = verdict(facts(age_days=20.14))
    assert (result.plan_class, result.reason) == (PlanClass.DORMANT, "untouched for 20.1 days > 14")
    assert result.action is Action.REPORT


def test_recent_work_reason() -> None:
    result = verdict(facts(age_days=3.04))
    assert result.reason == "in progress: 3.0 days old, dormant after 14"


def test_a_future_mtime_on_another_day_is_active() -> None:
    result = verdict(facts(age_days=-2, size=10))
    assert result.plan_class is PlanClass.ACTIVE
    assert "future" in result.reason


def test_thresholds_are_configurable() -> None:
    rules = Rules(RULES.markers, Thresholds(stale_days=1, stale_bytes=10_000, dormant_days=2.5))
    assert verdict(facts(age_days=1.5, size=9_999), rules=rules).plan_class is PlanClass.STALE
    assert verdict(facts(age_days=2.6, size=10_000), rules=rules).plan_class is PlanClass.DORMANT


# Sub-plans


def test_a_sub_plan_follows_its_parent() -> None:
    result = by_name(
        classify(
            [
                facts("misty.md", title="COMPLETED", age_days=10),
                facts("misty-agent-a1b2c3.md", age_days=10),
            ],
            RULES,
            NOW,
        )
    )
    parent, child = result["misty.md"], result["misty-agent-a1b2c3.md"]
    assert parent.subplans == ("misty-agent-a1b2c3.md",)
    assert parent.parent is None
    assert child.parent == "misty.md"
    assert (child.plan_class, child.reason) == (PlanClass.COMPLETED, "follows parent misty.md")
    assert child.action is Action.ARCHIVE


def test_a_sub_plan_of_a_stale_parent_is_trashed_with_it_when_it_is_small_and_old_too() -> None:
    result = by_name(
        classify(
            [facts("p.md", size=10, age_days=9), facts("p-agent-x1.md", size=1500, age_days=8)],
            RULES,
            NOW,
        )
    )
    assert result["p.md"].plan_class is PlanClass.STALE
    assert result["p-agent-x1.md"].plan_class is PlanClass.STALE


@pytest.mark.parametrize(
    ("sub_size", "sub_age", "parent_age", "expected", "held_by"),
    [
        # a big sub-plan keeps a 20-byte TODO parent from the trash
        (3000, 9.0, 9.0, PlanClass.ACTIVE, "is 2.9 KB, 9.0 days old"),
        # a young one too, even when small
        (500, 2.0, 9.0, PlanClass.ACTIVE, "is 500 B, 2.0 days old"),
        # past dormant_days the group is reported instead
        (3000, 20.0, 20.0, PlanClass.DORMANT, "is 2.9 KB, 20.0 days old"),
    ],
)
def test_a_stale_stub_parent_is_held_back_by_a_sub_plan_that_is_not_stale_on_its_own(
    sub_size: int, sub_age: float, parent_age: float, expected: PlanClass, held_by: str
) -> None:
    result = by_name(
        classify(
            [
                facts("p.md", size=20, age_days=parent_age, title="TODO"),
                facts("p-agent-x1.md", size=sub_size, age_days=sub_age),
                facts("p-agent-y2.md", size=10, age_days=parent_age),
            ],
            RULES,
            NOW,
        )
    )
    parent = result["p.md"]
    assert parent.plan_class is expected
    assert parent.reason.endswith(f"; not trashed: sub-plan p-agent-x1.md {held_by}")
    for name in ("p-agent-x1.md", "p-agent-y2.md"):  # the whole group stays with its parent
        assert result[name].plan_class is expected
        assert result[name].action is not Action.TRASH


def test_nested_sub_plans_belong_to_the_root() -> None:
    names = [
        "root.md",
        "root-agent-aa.md",
        "root-agent-aa-agent-bb.md",
        "root-agent-aa-agent-bb-agent-cc.md",
    ]
    result = by_name(classify([facts(n, age_days=20) for n in names], RULES, NOW))
    assert result["root.md"].subplans == tuple(sorted(names[1:]))
    for name in names[1:]:
        assert result[name].parent == "root.md"
        assert result[name].reason == "follows parent root.md"
        assert result[name].subplans == ()


def test_a_sub_plan_whose_middle_parent_is_missing_still_finds_the_root() -> None:
    result = by_name(classify([facts("r.md"), facts("r-agent-aa-agent-bb.md")], RULES, NOW))
    assert result["r-agent-aa-agent-bb.md"].parent == "r.md"


def test_the_longest_existing_parent_wins() -> None:
    # "my-agent-tool.md" is a real plan whose slug contains -agent-; "my.md" exists too.
    names = ["my.md", "my-agent-tool.md", "my-agent-tool-agent-ff01.md"]
    result = by_name(classify([facts(n) for n in names], RULES, NOW))
    # my-agent-tool.md is itself a sub-plan of my.md, so its child goes to the root, my.md
    assert result["my-agent-tool.md"].parent == "my.md"
    assert result["my-agent-tool-agent-ff01.md"].parent == "my.md"
    alone = by_name(classify([facts(n) for n in names[1:]], RULES, NOW))
    assert alone["my-agent-tool-agent-ff01.md"].parent == "my-agent-tool.md"
    assert alone["my-agent-tool.md"].parent is None


def test_a_sub_plan_modified_today_stays_active_on_its_own() -> None:
    result = by_name(
        classify(
            [facts("p.md", title="COMPLETED", age_days=10), facts("p-agent-ab12.md", age_days=0)],
            RULES,
            NOW,
        )
    )
    child = result["p-agent-ab12.md"]
    assert (child.plan_class, child.reason, child.parent) == (
        PlanClass.ACTIVE,
        "modified today",
        "p.md",
    )


def test_a_current_sub_plan_stays_active_on_its_own() -> None:
    plans = [facts("p.md", title="COMPLETED"), facts("p-agent-ab12.md", age_days=30)]
    result = by_name(classify(plans, RULES, NOW, frozenset({"p-agent-ab12.md"})))
    assert result["p-agent-ab12.md"].plan_class is PlanClass.ACTIVE


def test_an_active_parent_keeps_its_old_sub_plans() -> None:
    plans = [facts("p.md", age_days=0), facts("p-agent-ab12.md", age_days=40, size=10)]
    result = by_name(classify(plans, RULES, NOW))
    assert result["p-agent-ab12.md"].plan_class is PlanClass.ACTIVE
    assert result["p-agent-ab12.md"].reason == "follows parent p.md"


def test_an_orphan_sub_plan_uses_its_own_rules() -> None:
    result = by_name(classify([facts("gone-agent-ab12.md", age_days=10, size=50)], RULES, NOW))
    orphan = result["gone-agent-ab12.md"]
    assert orphan.parent is None
    assert orphan.plan_class is PlanClass.STALE


@pytest.mark.parametrize(
    "name",
    [
        "p-agent-.md",  # no id
        "p-agent-a_b.md",  # id with an underscore
        "p-agent-a-b.md",  # id with a hyphen: "p-agent-a" is not p.md
        "p-agents-ab.md",
        "p-Agent-ab.md",
        "-agent-ab.md",
    ],
)
def test_names_that_are_not_sub_plans(name: str) -> None:
    result = by_name(classify([facts("p.md"), facts(name)], RULES, NOW))
    assert result[name].parent is None
    assert result["p.md"].subplans == ()


def test_verdicts_come_out_in_name_order() -> None:
    names = ["b.md", "a.md", "c.md"]
    assert [v.name for v in classify([facts(n) for n in names], RULES, NOW)] == sorted(names)


# -- rule 1 asked at the moment of a move (issue 43: the classifier alone decides) ------


def test_must_stay_is_rule_one_by_name_with_the_scans_reasons() -> None:
    from clarity.judge.classifier import Evidence, must_stay

    restored_at = (NOW - timedelta(days=3)).timestamp()
    long_ago = (NOW - timedelta(days=30)).timestamp()
    held = {
        name: must_stay(
            name,
            NOW,
            current=frozenset({"mine.md", "both.md"}),
            in_use={"live.md": "31da521d-7c4e", "both.md": "8e2f1a3b-5c6d"},
            restored={"back.md": restored_at, "old.md": long_ago},
            thresholds=Thresholds(),
        )
        for name in ("mine.md", "both.md", "live.md", "back.md", "old.md", "other.md")
    }
    assert held == {
        "mine.md": "current session's plan",
        "both.md": "current session's plan",  # current first, as a scan says it
        "live.md": "in use by session 31da521d",
        "back.md": "restored by you on 2026-11-18",
        "old.md": None,  # restored longer ago than dormant_days
        "other.md": None,
    }
    # The same words a scan gives each of these plans, whatever its file says.
    plans = [facts(name, age_days=20) for name in ("mine.md", "live.md", "back.md")]
    verdicts = classify(
        plans,
        RULES,
        NOW,
        frozenset({"mine.md"}),
        {"live.md": "31da521d-7c4e"},
        Evidence(restored={"back.md": restored_at}),
    )
    assert {v.name: v.reason for v in verdicts} == {
        k: held[k] for k in ("mine.md", "live.md", "back.md")
    }


def test_a_dormant_plans_findings_are_typed_and_its_reason_is_written_from_them() -> None:
    # Issue 43: the agent once split the reason string to find what the rules found.
    small = verdict(facts("small.md", age_days=20, size=500)._replace(stub=False))
    assert small.plan_class is PlanClass.DORMANT
    assert small.findings == ("not trashed: 500 B, but it has the body of a plan",)
    assert small.reason == "untouched for 20.0 days > 14; " + small.findings[0]
    plain = verdict(facts("big.md", age_days=20))
    assert (plain.findings, plain.reason) == ((), "untouched for 20.0 days > 14")
