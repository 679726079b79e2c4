"""The SessionStart hook as Claude Code runs it (its command in a shell, the event on stdin),
and what it said."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from clarity.claude_code.hook_settings import hook_command

DONE = "# Done plan\n\nStatus: COMPLETED\n\n" + "what was done\n" * 200


def run_hook(
    cwd: Path, stdin: str | None = None, python: str = sys.executable, command: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The hook as Claude Code runs it: its command in a shell, the event's JSON on stdin."""
    command = command or hook_command(python)
    event = {"session_id": "s1", "cwd": str(cwd), "hook_event_name": "SessionStart"}
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(event) if stdin is None else stdin,
        capture_output=True,
        text=True,
        cwd=cwd if cwd.is_dir() else Path.home(),
        timeout=60,
    )


def said(ran: subprocess.CompletedProcess[str]) -> str | None:
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
    if not ran.stdout:
        return None
    document = json.loads(ran.stdout)
    message: str = document["systemMessage"]
    if "Claude Code will delete" in message:  # something due: Claude is told too
        assert document["hookSpecificOutput"] == {
            "hookEventName": "SessionStart",
            "additionalContext": message,
        }
    else:  # only done plans: the person's line alone
        assert set(document) == {"systemMessage"}
    assert ran.stdout.count("\n") == 1
    return message


def first_said(cwd: Path, seconds: float = 180) -> tuple[str, int]:
    """Session starts, one after another, until one says something (the work a start cut
    short handed on is done by then): what it said, and how many starts said nothing."""
    quiet_starts, give_up = 0, time.monotonic() + seconds
    while time.monotonic() < give_up:
        message = said(run_hook(cwd))
        if message is not None:
            return message, quiet_starts
        quiet_starts += 1
        time.sleep(0.2)
    raise AssertionError(f"nothing said in {seconds:.0f} s ({quiet_starts} starts)")
