"""Issue 45: a session start cut short hands its work to a detached continuation, which
never runs twice at once and never keeps a session start waiting."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from clarity.claude_code import hook_background
from tests.builders.files import Plan, make_files
from tests.builders.hook import DONE, run_hook
from tests.transcripts.test_transcripts_scale import chatter


def _continuation(cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-I", "-m", "clarity.hook", hook_background.FLAG, str(cwd)],
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )


def test_a_second_continuation_leaves_the_work_to_the_first(
    isolated_home: Path, tmp_path: Path
) -> None:
    plans = {f"d{n}.md": Plan(DONE, 10) for n in range(4)}
    make_files(isolated_home / ".claude" / "plans", plans, datetime.now(UTC))
    chatter(isolated_home / ".claude" / "projects", 30_000)
    state = str(isolated_home / ".local" / "state" / "clarity")
    first = _continuation(tmp_path)
    give_up = time.monotonic() + 60
    while not hook_background.busy(state):  # the first has taken the lock
        assert first.poll() is None and time.monotonic() < give_up
        time.sleep(0.01)
    started = time.monotonic()
    second = _continuation(tmp_path)
    assert second.wait(timeout=30) == 0
    quick = time.monotonic() - started
    assert first.poll() is None, "the first was done before the second could be tried"
    assert quick < 5  # it left at once: the first holds the lock
    # A session start meanwhile waits for nothing (it says nothing while the first works,
    # or the finding, if the first is done by then).
    begun = time.monotonic()
    ran = run_hook(tmp_path)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert time.monotonic() - begun < 5
    assert first.wait(timeout=300) == 0
    assert not hook_background.busy(state)


def test_a_continuation_for_no_folder_does_nothing_where_it_runs(
    isolated_home: Path, tmp_path: Path
) -> None:
    # An empty or relative folder would be the one it runs in: never acted on.
    make_files(tmp_path / ".claude" / "plans", {"d.md": Plan(DONE, 10)}, datetime.now(UTC))
    state = isolated_home / ".local" / "state" / "clarity"
    for given in ("", "relative/folder", str(tmp_path / "no-such-folder")):
        ran = subprocess.run(
            [sys.executable, "-I", "-m", "clarity.hook", hook_background.FLAG, given],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=dict(os.environ),
            timeout=60,
            check=False,
        )
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")
    assert not (state / "session-start.json").exists()  # nothing scanned, nothing said
