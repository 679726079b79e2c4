"""Issue 31: the shapes of Claude Code's format that real, published sessions showed and
clarity missed. Each transcript here is written by the test builder in the shape the
real sessions have (none is copied from them):

1. the "clear context" pair stamped out of order: the implementing session's first
   record a moment before the planning session's refusal-shaped answer;
2. a chain of clear-context sessions on one slug: a second plan written into the same
   file, presented, and implemented by a third session;
3. (test_transcripts.py) an unfinished todo list does not undo edits;
4. work done through the shell: a commit, a heredoc, a move, a script that writes.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest

from clarity.transcripts.shell_edits import shell_work
from tests.builders.claude_home import Session
from tests.builders.sessions import OTHER, PLAN, SESSION, STARTED, planned, scan

NAME = "misty-sleeping-cherny.md"
THIRD = "5e1d0b7a-9c3f-4e2a-8b6d-2f4a1c9e7d30"
SECOND_PLAN = (
    "# Cache invalidation\n\n## Context\n\nThe cache goes stale.\n\n## Steps\n\n1. Hook.\n"
)


def _continued(planning: Session, call: str, session: str, text: str, plan: Path) -> Session:
    """The "clear context" approval as real sessions stamp it: the new session's first
    record a second before the old session's refusal-shaped answer (1 to 15 ms in real
    transcripts; the builder stamps whole seconds)."""
    working = Session(session, start=STARTED, version=planning.version)
    working.clock = planning.clock - 1  # its record: 6 s on, the answer 7 s on
    working.implement(plan, text)
    planning.cleared(call)
    working.clock = max(working.clock, planning.clock)
    return working


def _second_plan_written(plans_dir: Path) -> tuple[Session, Session, Path]:
    """A chain's start: the first plan approved with "clear context" and implemented by a
    second session, which then plans again, writing a new plan over the same file."""
    planning = Session(SESSION, start=STARTED, version=(2, 1, 47))
    plan = planned(plans_dir, planning)
    second = _continued(planning, planning.present(plan, PLAN), OTHER, PLAN, plan)
    second.edit("/home/dev/project/src/cache.py")
    second.plan_mode(plan, "plan_mode_reentry").write_plan(plan, SECOND_PLAN)
    plan.write_text(SECOND_PLAN)
    return planning, second, plan


@pytest.mark.parametrize("version", [(2, 1, 17), (2, 1, 47)])
def test_a_clear_context_pair_stamped_out_of_order_is_one_approval(
    cli, plans_dir: Path, isolated_home: Path, version: tuple[int, int, int]
) -> None:
    claude_dir = isolated_home / ".claude"
    planning = Session(SESSION, start=STARTED, version=version)
    plan = planned(plans_dir, planning)
    working = _continued(planning, planning.present(plan, PLAN), OTHER, PLAN, plan)
    working.edit("/home/dev/project/src/cache.py").edit("/home/dev/project/src/api.py")
    planning.save(claude_dir)
    working.save(claude_dir)
    os.utime(plan, (planning.time, planning.time))

    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "completed", found["reason"]
    assert f"session {OTHER[:8]}" in found["reason"]
    assert found["reason"].endswith('after "clear context": 2 files edited')


def test_a_refusal_long_before_a_continuation_is_still_a_refusal(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # Implemented after "clear context", then presented again much later and refused,
    # with nothing continuing it: the refusal stands.
    claude_dir = isolated_home / ".claude"
    planning = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, planning)
    working = _continued(planning, planning.present(plan, PLAN), OTHER, PLAN, plan)
    working.edit("/home/dev/project/src/cache.py")
    working.clock += 3600
    working.reject(working.present(plan, PLAN), "not like this")
    planning.save(claude_dir)
    working.save(claude_dir)
    os.utime(plan, (working.time, working.time))

    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "dormant"
    assert found["reason"].endswith("presented again and rejected")


def test_a_chain_of_two_plans_on_one_slug_stands_on_the_text_the_file_holds(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    claude_dir = isolated_home / ".claude"
    planning, second, plan = _second_plan_written(plans_dir)  # and it is continued in turn:
    third = _continued(second, second.present(plan, SECOND_PLAN), THIRD, SECOND_PLAN, plan)
    third.edit("/home/dev/project/src/invalidate.py")
    for session in (planning, second, third):
        session.save(claude_dir)
    os.utime(plan, (second.time, second.time))

    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "completed", found["reason"]
    assert found["reason"].startswith(f"implemented in session {THIRD[:8]}")


def test_work_done_through_the_shell_counts(cli, plans_dir: Path, isolated_home: Path) -> None:
    claude_dir = isolated_home / ".claude"
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session)
    session.approve(session.present(plan, PLAN), plan, PLAN)
    session.edit("/home/dev/project/src/cache.py", refused=True)  # the Edit failed
    session.bash("cat > src/cache.py <<'EOF'\ndef cached():\n    return 1\nEOF")
    session.bash("git mv src/old.py src/legacy.py")
    session.bash("git status && pytest -q > /tmp/test.log")  # reads, and a log: no work
    session.bash(
        "git add -A && git commit -m \"$(cat <<'EOF'\nAdd the cache\n\nCo-Authored-By: x\nEOF\n)\"",
        "[main 1a2b3c4] Add the cache\n 2 files changed, 40 insertions(+)",
    )
    session.save(claude_dir)

    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "completed", found["reason"]
    assert found["reason"].endswith("approved, 2 files edited, 1 commit")


@pytest.mark.parametrize(
    ("command", "output", "failed"),
    [
        ("git commit -m 'wip'", "nothing to commit, working tree clean", True),
        ("git commit --dry-run -m x", "On branch main", False),  # no commit made
        ("git log --oneline -3 && git diff --stat", "1a2b3c4 Add the cache", False),
        ("cat src/cache.py | head -20", "def cached():", False),
        ("npm test > /tmp/out.txt 2>&1", "", False),
    ],
)
def test_a_shell_command_that_changes_nothing_is_no_work(
    cli, plans_dir: Path, isolated_home: Path, command: str, output: str, failed: bool
) -> None:
    claude_dir = isolated_home / ".claude"
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session)
    session.approve(session.present(plan, PLAN), plan, PLAN)
    session.bash(command, output, failed=failed)
    session.save(claude_dir)

    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "dormant"
    assert found["reason"].endswith("no files edited after")


@pytest.mark.parametrize(
    ("command", "paths", "git"),
    [
        ("sed -i 's/a/b/' src/x.py", ["/p/src/x.py"], []),
        ("mv -f src/a.py src/b.py", ["/p/src/b.py"], []),
        ("git mv docs/a.md docs/b.md", ["/p/docs/b.md"], []),
        ("cat <<EOF > /p/notes.txt\nhello > there\nEOF", ["/p/notes.txt"], []),
        ("tee -a src/y.py <<'END'\nx = 1\nEND", ["/p/src/y.py"], []),
        (
            "python3 - <<'PY'\nwith open('/p/src/z.tsx', 'w') as f:\n    f.write(s)\nPY",
            ["/p/src/z.tsx"],
            [],
        ),
        ("python3 -c \"open('/p/a.txt').read()\"", [], []),  # opened to read: nothing
        ("echo done > /tmp/log.txt", [], []),  # output to a file, no heredoc: a log
        ("git -C /p commit -qm x", [], ["commit"]),
        ("git apply --check fix.patch", [], []),
        ("git apply fix.patch && git status", [], ["apply"]),
        ("cd /p && git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"", [], ["commit"]),
        ('echo "unbalanced', [], []),
    ],
)
def test_what_a_shell_command_changed(command: str, paths: list[str], git: list[str]) -> None:
    assert shell_work(command, "/p") == (paths, git)


def test_the_second_plan_of_a_chain_not_yet_approved_is_not_done(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # The first plan of the chain was implemented; the second, written over it in the
    # same file, was not presented yet: the approval of the first does not stand for it.
    claude_dir = isolated_home / ".claude"
    planning, second, plan = _second_plan_written(plans_dir)
    second.clock += 60
    second.save(claude_dir)
    planning.save(claude_dir)
    later = (STARTED + timedelta(hours=1)).timestamp()
    os.utime(plan, (later, later))

    found = scan(cli, plans_dir)[NAME]
    assert found["class"] == "dormant"  # the second plan was never approved
    assert "; back in plan mode since" in found["reason"]


def test_a_chain_of_two_plans_on_one_slug_keeps_both_texts_in_history(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    # Issue 32: the second plan was written over the first in the same file; both were
    # approved with "clear context" and implemented. The file holds only the second; the
    # first lives on in the transcripts, and from there in the plan's history.
    claude_dir = isolated_home / ".claude"
    dirs = ("--plans-dir", str(plans_dir))
    planning, second, plan = _second_plan_written(plans_dir)
    third = _continued(second, second.present(plan, SECOND_PLAN), THIRD, SECOND_PLAN, plan)
    third.edit("/home/dev/project/src/invalidate.py")
    for session in (planning, second, third):
        session.save(claude_dir)
    os.utime(plan, (second.time, second.time))

    scan(cli, plans_dir)  # the scan reads the transcripts, and keeps nothing in the archive
    assert not (plans_dir.parent / "plans-archive" / "versions").exists()
    applied = cli("apply", "--yes", *dirs)  # archives the plan, and keeps its texts
    assert applied.exit_code == 0, applied.stderr

    listed = cli("history", "misty-sleeping-cherny", *dirs, "--json").json()
    texts = [version["sha256"] for version in listed["versions"]]
    assert len(texts) == 2, listed
    first, latest = listed["versions"]
    assert first["source"] == f"approved with clear context, implemented in session {OTHER[:8]}"
    assert latest["current"] is True and first["current"] is False
    shown = cli("show", "misty-sleeping-cherny", "--version", "1", *dirs)
    assert shown.exit_code == 0 and shown.stdout == PLAN
    assert cli("show", "misty-sleeping-cherny", "--version", "2", *dirs).stdout == SECOND_PLAN
    # The texts set aside in the state folder went, once kept.
    state = isolated_home / ".local" / "state" / "clarity"
    assert not list(state.rglob("plan-texts/*.md"))
