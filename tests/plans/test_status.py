"""SPEC 4.2: what a status value says, and where a plan's own status is written."""

from __future__ import annotations

import pytest

from clarity.model import TextStatus
from clarity.plans.status import read_status
from clarity.plans.status_words import status_value


@pytest.mark.parametrize(
    "value",
    [
        "IMPLEMENTED",
        "Done",
        "✅ Complete",
        "Complete & Verified",
        "Completed (2026-03-11)",
        "✅ MERGED 2026-05-23 (PR #20). All phases 1-9 complete.",
        "Shipped to production",
        "Fixed in v2.1",
        "`fixed`",
        "Resolved",
        "Finished",
        "Landed",
        "Waves 1-3 **DONE**; remaining items are not blocking",
        "Done (tags column deferred until tags are built)",
        "completed (2026-04-20). Later crates get their own pass when implemented.",
        "✅",
        "✅ (2026-05-01)",
        "已完成",
        "✅ 完成，已编译验证",  # noqa: RUF001 - full-width comma: Chinese plans write it
        "実装済み",
        "完了",
        "완료",
        "Implémenté",
        "Terminée",
    ],
)
def test_values_that_say_done(value: str) -> None:
    assert status_value(value) is True


@pytest.mark.parametrize(
    "value",
    [
        "Phase 1, 2, 3 Complete, Phase 4 In Progress",
        "Phase 4 Complete - Testing",
        "Not implemented",
        "not yet done",
        "To be merged",
        "Done, next: deploy",
        "Complete (pending review)",
        "Planning Complete - Ready for Implementation",
        "Analysis Complete (read-only mode)",
        "✅ 82% Complete (23/28 issues done)",
        "✅ Partial Complete",
        "✅ Ready for Testing",
        "Approved — execute after the theme work is complete",
        "Tier 1 complete; Tier 2 on hold",
        "STEP 1 COMPLETE — awaiting approval for Step 2",
        "CORE IMPLEMENTATION COMPLETE",
        "Complete. Remaining: the migration guide.",
        "🔄 Done for the API, 🔄 UI",
        "Draft",
        "未完成",
        "部分完成",
        "Phase 1 완료, Phase 2 대기",
        "[Not Started | In Progress | In Review | Completed]",
    ],
)
def test_values_that_say_open(value: str) -> None:
    assert status_value(value) is False


@pytest.mark.parametrize(
    "value",
    [
        "Active Investigation",
        "Complete decomposition of 77 failures into 6 components",  # an adjective
        "Working as designed",
        "✅ Active",  # a check mark beside a word that is not a status of the work
        "200",
        "完了条件",  # "completion criteria": a compound, not a status
        "完成时间",
    ],
)
def test_values_that_say_neither(value: str) -> None:
    assert status_value(value) is None


def status(text: str, tail: str | None = None) -> TextStatus | None:
    return read_status(text, tail)


def test_a_plan_that_never_says_status_has_none() -> None:
    assert status("# Plan: caching\n\n## Context\n\nAll done soon. ✅ Great.\n") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("# P\nStatus: Done\n", "Done"),
        ("# P\n**Status:** Done\n", "Done"),
        ("# P\n**Status**: Done\n", "Done"),
        ("# P\n**Status** : Done\n", "Done"),
        ("# P\n**Status: Done**\n", "Done"),
        ("# P\n> **Status (2026-06-06):** Done\n", "Done"),
        ("# P\n- **Status:** Done\n", "Done"),
        ("**Status:** Done\n# P\n", "Done"),  # before the title
        ("# P\n## Status: Done\n", "Done"),
        ("# P\n## Status — Done\n", "Done"),
        ("# P\n## Current Status\n\nDone.\n", "Done."),
        ("# P\n**状态**：已完成\n", "已完成"),  # noqa: RUF001 - full-width colon, as written
        ("# P\n> **상태**: 완료\n", "완료"),
        ("# P\n## Summary\n**Status:** Done\n", "Done"),  # a summary opens the plan
    ],
)
def test_where_a_plan_states_its_status(text: str, value: str) -> None:
    assert status(text) == TextStatus(f'status field "{value}"', True)


def test_a_status_deep_in_a_section_is_not_the_plans_own() -> None:
    text = "# P\n\n## Bugs\n\n### 1. Clock drift\n**Status**: ✅ Fixed\n"
    assert status(text) is None


def test_but_an_open_one_there_keeps_a_done_plan_open() -> None:
    text = "# P\n**Status:** Done\n\n## Phase 2\n**Status:** ⏳ pending\n"
    assert status(text) == TextStatus('status field "⏳ pending"', False)


def test_status_lines_in_code_blocks_are_code() -> None:
    text = "# P\n\n```yaml\nstatus: done\n```\n\n~~~\nStatus: complete\n~~~\n"
    assert status(text) is None


def test_a_ticked_box_is_never_a_status() -> None:
    assert status("# P\n- [x] Status: done\n- [x] Export\n") is None


def test_a_status_heading_with_a_checklist_under_it_says_nothing() -> None:
    assert status("# P\n## Status\n\n- [x] Phase 1\n- [x] Phase 2\n") is None


def test_the_closing_block_after_the_last_rule_is_the_plans_own() -> None:
    text = "# P\n\n## Steps\n\n1. a\n\n---\n\n**Created**: 2026-01-17\n**Status**: Implemented\n"
    assert status(text) == TextStatus('status field "Implemented"', True)


def test_a_closing_block_with_a_heading_is_not_a_footer() -> None:
    text = "# P\n\n## Steps\n\n---\n\n## Bug 3\n**Status**: Fixed\n"
    assert status(text) is None


def test_a_big_plans_tail_can_only_hold_it_open_or_close_it_in_its_footer() -> None:
    head = "# P\n\n## Steps\n\n1. a\n"
    assert status(head, "...\n## Phase 9\n**Status**: in progress\n") == TextStatus(
        'status field "in progress"', False
    )
    assert status(head, "...\n\n---\n**Status**: ✅ Shipped\n") == TextStatus(
        'status field "✅ Shipped"', True
    )
    assert status(head, "...\n## Phase 9\n**Status**: ✅ Shipped\n") is None


TABLE = "# P\n\n| Phase | Status | Notes |\n|---|:---:|---|\n{rows}\n\nAfter.\n"


def test_a_status_table_is_done_when_every_row_is() -> None:
    rows = "| 1 | ✅ Complete | a |\n| 2 | Done | b \\| c |\n| 3 | ✅ | |"
    assert status(TABLE.format(rows=rows)) == TextStatus("status table: 3/3 rows done", True)


def test_one_open_row_keeps_it_open() -> None:
    rows = "| 1 | ✅ Complete | |\n| 2 | 🔄 | |\n| 3 | ⏳ Pending | |"
    assert status(TABLE.format(rows=rows)) == TextStatus("status table: 1/3 rows done", False)


def test_a_status_column_of_something_else_is_not_a_status_table() -> None:
    rows = "| 1 | ✅ Complete | |\n| 2 | 200 OK | |"
    assert status(TABLE.format(rows=rows)) is None  # a cell that is neither done nor open
    endpoints = "# P\n\n| Endpoint | Status |\n|---|---|\n| /a | 200 |\n| /b | 404 |\n"
    assert status(endpoints) is None  # HTTP status codes: neither done nor open


def test_a_field_that_is_open_outweighs_a_done_table() -> None:
    text = "# P\n**Status:** In progress\n\n| Task | Status |\n|---|---|\n| a | Done |\n"
    assert status(text) == TextStatus('status field "In progress"', False)


def test_a_long_value_is_quoted_short() -> None:
    found = status("# P\n**Status:** Done — " + "detail " * 30 + "\n")
    assert found is not None
    assert found.done
    assert len(found.evidence) <= len('status field ""') + 60
    assert found.evidence.endswith('…"')


def test_a_quoted_status_carries_no_raw_control_characters() -> None:
    found = status("# P\n**Status:** Done \x1b]0;title\x07\n")  # a terminal title change
    assert found == TextStatus('status field "Done \\x1b]0;title\\x07"', True)


# -- issue 22: done plans the reader missed, in four shapes --------------------------


def test_a_not_applicable_or_skipped_row_is_closed_not_something_else() -> None:
    rows = "| 1 | ✅ Done | |\n| 2 | N/A | |\n| 3 | Skipped (not needed) | |\n| 4 | n/a | |"
    assert status(TABLE.format(rows=rows)) == TextStatus("status table: 4/4 rows done", True)
    none_done = "| 1 | N/A | |\n| 2 | Skipped | |"
    assert status(TABLE.format(rows=none_done)) is None  # nothing done at all


@pytest.mark.parametrize("column", ["Issue", "Component", "Item", "Fix", "Bug", "Area"])
def test_any_first_column_that_is_not_the_status_names_the_work(column: str) -> None:
    text = f"# P\n\n| {column} | Status |\n|---|---|\n| login loop | Fixed |\n| cookie | ✅ |\n"
    assert status(text) == TextStatus("status table: 2/2 rows done", True)


def test_the_heads_status_decides_over_a_test_runs_overall_status() -> None:
    text = (
        "# P\n\n**Status:** ✅ COMPLETE\n\n## Changes\n\n1. a\n\n## Test results\n\n"
        "**Overall Status**: ⚠️ PARTIAL (3 flaky tests skipped)\n"
    )
    assert status(text) == TextStatus('status field "✅ COMPLETE"', True)


def test_a_part_of_the_work_still_open_keeps_it_open_whatever_the_head_says() -> None:
    text = "# P\n\n**Status:** Complete\n\n## Next steps\n\n**Status:** in progress\n"
    assert status(text) == TextStatus('status field "in progress"', False)


TASKS = "| Task | Status |\n|---|---|\n| parser | ✅ Done |\n| docs | ✅ Done |\n"


@pytest.mark.parametrize("value", ["CORE IMPLEMENTATION COMPLETE", "✅ Core features complete"])
def test_done_for_a_named_part_is_done_when_a_table_shows_every_row_done(value: str) -> None:
    table = TASKS
    assert status(f"# P\n\n**Status:** {value}\n\n{table}") == TextStatus(
        "status table: 2/2 rows done", True
    )
    alone = status(f"# P\n\n**Status:** {value}\n\n## Steps\n\n1. a\n")
    assert alone is not None and not alone.done  # nothing shows the rest done
    half = table.replace("| docs | ✅ Done |", "| docs | ⏳ Pending |")
    assert status(f"# P\n\n**Status:** {value}\n\n{half}") == TextStatus(
        "status table: 1/2 rows done", False
    )


def test_required_items_complete_over_a_done_table_is_done() -> None:
    found = status(f"# P\n\n**Status:** ✅ Required items complete\n\n{TASKS}")
    assert found == TextStatus('status field "✅ Required items complete"', True)
