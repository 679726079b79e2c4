"""Issue 42, case 2: a text a session carried is set aside in the state folder before the
read position that covers it moves on. When the write fails (a full disk, a file-size
limit: EFBIG), the transcript or the ledger is read again next time, and the text is kept
then: Claude Code deletes transcripts, so a text passed over would be lost for good."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.builders.claude_home import Session
from tests.builders.files import NOW, NOW_ISO, Plan, make_files
from tests.builders.hook import run_hook
from tests.builders.processes import full_disk
from tests.builders.sessions import SESSION

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="uses RLIMIT_FSIZE")

NAME = "misty-sleeping-cherny"
LIMIT = 256 * 1024  # every state file a scan writes here is smaller; the text is not
BIG = "# Plan: the long one\n\n## Steps\n\n" + "- a step of the plan, spelled out\n" * 12_000


def _clarity(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "clarity", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=None if limit is None else full_disk(limit),
    )


def _history(dirs: tuple[str, ...]) -> list[str]:
    ran = _clarity("history", NAME, *dirs[:2], "--json")
    assert ran.returncode == 0, ran.stderr
    return [version["sha256"] for version in json.loads(ran.stdout)["versions"]]


def _shown(plan: Path, cwd: Path) -> dict[str, object]:
    """The hook's event for BIG shown for approval (ExitPlanMode's PreToolUse)."""
    return {
        "session_id": SESSION,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "ExitPlanMode",
        "tool_input": {"plan": BIG, "planFilePath": str(plan)},
    }


def _plans_dir(home: Path) -> Path:
    plans_dir = home / ".claude" / "plans"
    make_files(plans_dir, {f"{NAME}.md": Plan("# Plan: the short one\n\nNow.\n", 1)})
    return plans_dir


def _scan_on_a_full_disk_then_again(plans_dir: Path) -> tuple[str, ...]:
    dirs = ("--plans-dir", str(plans_dir), "--now", NOW_ISO)
    cut = _clarity("scan", *dirs, "--json", limit=LIMIT)
    assert cut.returncode == 0, cut.stderr  # a text not set aside is no error of the scan
    state = plans_dir.parents[2] / ".local" / "state" / "clarity"
    assert not list(state.rglob("plan-texts/*.md"))  # the write failed
    assert _clarity("scan", *dirs, "--json").returncode == 0  # room again
    applied = _clarity("apply", "--yes", *dirs)
    assert applied.returncode == 0, applied.stderr
    return dirs


def test_a_transcripts_text_not_set_aside_is_read_again_and_kept(isolated_home: Path) -> None:
    plans_dir = _plans_dir(isolated_home)
    plan = plans_dir / f"{NAME}.md"
    session = Session(SESSION, start=NOW - timedelta(days=3))
    session.user("Plan it").plan_mode(plan).write_plan(plan, BIG)
    session.present(plan, BIG)
    session.save(isolated_home / ".claude")

    dirs = _scan_on_a_full_disk_then_again(plans_dir)
    assert hashlib.sha256(BIG.encode()).hexdigest() in _history(dirs)


def test_a_ledger_text_not_set_aside_is_read_again_and_kept(isolated_home: Path) -> None:
    plans_dir = _plans_dir(isolated_home)
    plan = plans_dir / f"{NAME}.md"
    event = _shown(plan, isolated_home / "work")
    ran = run_hook(isolated_home / "work", stdin=json.dumps(event))
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")

    dirs = _scan_on_a_full_disk_then_again(plans_dir)
    assert hashlib.sha256(BIG.encode()).hexdigest() in _history(dirs)


def test_a_hook_that_cannot_write_the_text_records_the_approval_and_leaves_no_partial(
    isolated_home: Path,
) -> None:
    from clarity.claude_code.hook_settings import hook_command

    plan = isolated_home / ".claude" / "plans" / f"{NAME}.md"
    event = _shown(plan, isolated_home / "work")
    ran = subprocess.run(
        ["sh", "-c", hook_command(sys.executable)],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=full_disk(LIMIT),
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    state = isolated_home / ".local" / "state" / "clarity"
    (line,) = (state / "ledger.jsonl").read_text().splitlines()
    assert json.loads(line)["event"] == "presented"
    assert list((state / "ledger-texts").iterdir()) == []  # no text, and no partial one
