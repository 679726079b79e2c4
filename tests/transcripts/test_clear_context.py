"""Plans approved with "clear context" (SPEC 4.3, issue 22): the planning session's call
gets no approval (an answer like a refusal, or none at all), and a new chain implements
the plan, its first message `Implement the following plan:`, every record carrying the
plan's slug, in a session that never names the plans directory. The shapes of 2.1.12
(the same transcript goes on), 2.1.17 (a new transcript), 2.1.29 (`planContent`) and
2.1.3xx (no answer, an origin, a note naming the old transcript), as described by turn 3
of the issue; Claude Code 2.1.328's own transcripts are tested in test_real_client.py.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest

from tests.builders.claude_home import Session
from tests.builders.sessions import OTHER, PLAN, SESSION, STARTED, planned, scan

NAME = "misty-sleeping-cherny.md"


def cleared_and_implemented(
    plans_dir: Path, claude_dir: Path, version: tuple[int, int, int], edits: int = 3
) -> tuple[Path, Session]:
    planning = Session(SESSION, start=STARTED, version=version)
    plan = planned(plans_dir, planning)
    call = planning.present(plan, PLAN)
    same_transcript = version < (2, 1, 17)
    if version < (2, 1, 300):
        planning.cleared(call)  # from 2.1.300 the call gets no answer at all
    if same_transcript:  # 2.1.12: the same transcript goes on, a new chain
        working = planning
    else:
        old = planning.save(claude_dir)
        working = Session(OTHER, start=STARTED + timedelta(seconds=planning.clock % 60 + 60))
        working.version = version
    working.implement(plan, PLAN, old_transcript=None if same_transcript else old)
    for number in range(edits):
        working.edit(f"/home/dev/project/src/cache_{number}.py")
    working.save(claude_dir)
    os.utime(plan, (planning.time, planning.time))  # as the planning session left it
    return plan, working


@pytest.mark.parametrize("version", [(2, 1, 12), (2, 1, 17), (2, 1, 29), (2, 1, 328)])
def test_a_plan_implemented_after_clear_context_is_completed(
    cli, plans_dir: Path, isolated_home: Path, version: tuple[int, int, int]
) -> None:
    _, working = cleared_and_implemented(plans_dir, isolated_home / ".claude", version)
    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "completed", found["reason"]
    day = STARTED.date().isoformat()
    assert found["reason"] == (
        f'implemented in session {working.session[:8]} ({day}) after "clear context": '
        "3 files edited"
    )


def test_the_implementing_session_alone_is_evidence(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # Its planning session deleted (or never kept): it alone, with its edits, is evidence.
    cleared_and_implemented(plans_dir, isolated_home / ".claude", (2, 1, 328))
    (planning,) = (isolated_home / ".claude" / "projects").glob(f"*/{SESSION}.jsonl")
    planning.unlink()
    assert scan(cli, plans_dir)[NAME]["class"] == "completed"


def test_a_refusal_that_nothing_continued_is_no_evidence(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    planning = Session(SESSION, start=STARTED, version=(2, 1, 119))
    plan = planned(plans_dir, planning)
    planning.cleared(planning.present(plan, PLAN))
    planning.edit("/home/dev/project/src/unrelated.py")
    planning.save(isolated_home / ".claude")
    assert scan(cli, plans_dir)[NAME]["class"] == "dormant"


def test_a_continuation_with_no_edits_is_no_evidence(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    cleared_and_implemented(plans_dir, isolated_home / ".claude", (2, 1, 328), edits=0)
    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "dormant"
    assert found["reason"].endswith("no files edited after")


def test_a_plan_whose_mtime_moved_but_not_its_text_still_counts(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # A copy or a sync sets mtime to the day after the session: the text is as approved.
    plan, _ = cleared_and_implemented(plans_dir, isolated_home / ".claude", (2, 1, 328))
    synced = (STARTED + timedelta(days=1)).timestamp()
    os.utime(plan, (synced, synced))
    assert scan(cli, plans_dir)[NAME]["class"] == "completed"


def test_a_persons_change_seconds_after_the_session_withdraws_it(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    plan, working = cleared_and_implemented(plans_dir, isolated_home / ".claude", (2, 1, 328))
    with plan.open("a") as stream:
        stream.write("\n## Follow-ups\n\n- also cache the search page\n")
    os.utime(plan, (working.time + 5, working.time + 5))
    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "dormant"
    assert found["reason"].endswith("; the plan was edited after the session")


def test_the_implementing_session_may_tick_its_own_plan(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    claude_dir = isolated_home / ".claude"
    plan, working = cleared_and_implemented(plans_dir, claude_dir, (2, 1, 328))
    working.edit_plan(plan, "1. Add a read-through cache.", "1. [x] Add a read-through cache.")
    working.save(claude_dir)
    later = (STARTED + timedelta(days=2)).timestamp()
    os.utime(plan, (later, later))  # and a sync moved its mtime since
    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "completed", found["reason"]
