"""The answer to a call is the person's `user` record with a tool_result for its id (SPEC
4.3, issue 22 point 2): a PostToolUse hook's progress record and an api-request-blob
that carry the id come first at times, and are never the answer."""

from __future__ import annotations

from pathlib import Path

from tests.builders.claude_home import APPROVED_TEXT, Session
from tests.builders.sessions import PLAN, SESSION, STARTED, planned, scan


def test_a_hook_and_a_request_blob_before_the_answer_do_not_hide_it(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session)
    call = session.present(plan, PLAN)
    session.hook_progress(call).request_blob(call, "STOP what you are doing")
    session.approve(call, plan, PLAN)
    for number in range(2):
        session.edit(f"/home/dev/project/src/cache_{number}.py")
    session.save(isolated_home / ".claude")

    found = scan(cli, plans_dir)["misty-sleeping-cherny.md"]
    assert found["class"] == "completed"
    assert found["reason"].startswith(f"implemented in session {SESSION[:8]}")
    assert "2 files edited" in found["reason"]


def test_a_refusal_behind_a_blob_that_looks_like_an_approval_is_a_refusal(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session)
    call = session.present(plan, PLAN)
    session.request_blob(call, APPROVED_TEXT).hook_progress(call)
    session.reject(call, "not like this")
    session.edit("/home/dev/project/src/cache.py")
    session.save(isolated_home / ".claude")

    assert scan(cli, plans_dir)["misty-sleeping-cherny.md"]["class"] == "dormant"


def test_an_edit_whose_answer_failed_behind_a_hook_record_is_no_edit(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session)
    session.approve(session.present(plan, PLAN), plan, PLAN)
    session.edit("/home/dev/project/src/kept.py")
    call = session._call("Edit", {"file_path": "/home/dev/project/src/refused.py"})
    session.hook_progress(call, "PostToolUse:Edit")
    session._result(call, "Error: the old_string was not found", "Error", error=True)
    session.save(isolated_home / ".claude")

    found = scan(cli, plans_dir)["misty-sleeping-cherny.md"]
    assert found["reason"].endswith(": approved, 1 file edited")
