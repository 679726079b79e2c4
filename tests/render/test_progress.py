"""The progress bar: drawn in a terminal for a run that lasts, never for --json or a pipe.

Each run is a real `clarity` process with its output on a pseudo-terminal;
CLARITY_PROGRESS_DELAY=0 stands for a run that has gone on for a second.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot
from tests.builders.processes import drain, run_process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


def in_terminal(*args: str, delay: str) -> tuple[int, str]:
    """Run clarity with stdout and stderr on a pseudo-terminal; its exit code and all it drew."""
    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", *args],
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "CLARITY_PROGRESS_DELAY": delay, "TERM": "xterm", "COLUMNS": "100"},
    )
    os.close(secondary)
    drawn = drain(main)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn.decode(errors="replace"))  # colours off
    return process.wait(timeout=120), text


@pytest.fixture
def many_plans(plans_dir: Path) -> Path:
    tree = {
        f"done-{n:03d}.md": Plan(f"# Plan {n} COMPLETED\n" + "x\n" * 5000, 20) for n in range(80)
    }
    tree |= {f"live-{n:03d}.md": Plan(f"# Live {n}\n", 2) for n in range(40)}
    return make_files(plans_dir, tree)


def test_a_scan_in_a_terminal_shows_its_phases(many_plans: Path) -> None:
    code, drawn = in_terminal("scan", "--plans-dir", str(many_plans), "--now", NOW_ISO, delay="0")
    assert code == 0
    assert "Reading plans" in drawn
    assert "Hashing plans to move" in drawn  # the 80 big completed plans
    assert "120 plans" in drawn  # the report itself follows the bar


def test_no_bar_for_a_run_quicker_than_the_delay(many_plans: Path) -> None:
    code, drawn = in_terminal("scan", "--plans-dir", str(many_plans), "--now", NOW_ISO, delay="60")
    assert code == 0
    assert "Reading plans" not in drawn
    assert "120 plans" in drawn


def test_no_bar_with_json_even_in_a_terminal(many_plans: Path) -> None:
    code, drawn = in_terminal(
        "scan", "--json", "--plans-dir", str(many_plans), "--now", NOW_ISO, delay="0"
    )
    assert code == 0
    assert "Reading plans" not in drawn
    assert '"schema_version"' in drawn


def test_no_bar_when_the_output_is_not_a_terminal(many_plans: Path) -> None:
    result = run_process(
        "scan",
        "--plans-dir",
        str(many_plans),
        "--now",
        NOW_ISO,
        env={"CLARITY_PROGRESS_DELAY": "0"},
    )
    assert result.exit_code == 0
    assert "Reading plans" not in result.stderr + result.stdout


def test_an_apply_in_a_terminal_shows_its_moves(many_plans: Path, tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    code, drawn = in_terminal(
        "apply",
        "--rescan",
        "--yes",
        "--plans-dir",
        str(many_plans),
        "--archive-dir",
        str(archive),
        "--now",
        NOW_ISO,
        delay="0",
    )
    assert code == 0
    assert "Reading plans" in drawn
    assert "Moving plans" in drawn
    assert sorted(snapshot(many_plans)) == [f"live-{n:03d}.md" for n in range(40)]


def answered_in_terminal(*args: str, delay: str, thinking: float) -> tuple[int, str]:
    """Run clarity wholly on a pseudo-terminal, and answer its question after `thinking`
    seconds, as a person reading the list would."""
    import time

    main, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", *args],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "CLARITY_PROGRESS_DELAY": delay, "TERM": "xterm", "COLUMNS": "100"},
    )
    os.close(secondary)
    drawn = b""
    answered = False
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        drawn += chunk
        if not answered and b"Go ahead?" in drawn:
            time.sleep(thinking)
            os.write(main, b"y\n")
            answered = True
    os.close(main)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn.decode(errors="replace"))
    return process.wait(timeout=120), text


@pytest.mark.parametrize(("delay", "drawn"), [("1", False), ("0", True)])
def test_the_bar_times_the_moves_not_the_question(
    plans_dir: Path, tmp_path: Path, delay: str, drawn: bool
) -> None:
    """A quick apply whose question waited longer than the delay draws no bar (issue 17,
    item 11); with no delay at all the bar still shows after the question."""
    make_files(plans_dir, {f"done-{n}.md": Plan(f"# Plan {n} COMPLETED\n", 20) for n in range(5)})
    where = ["--plans-dir", str(plans_dir), "--archive-dir", str(tmp_path / "archive")]
    assert run_process("scan", *where, "--now", NOW_ISO).exit_code == 0

    code, text = answered_in_terminal("apply", *where, delay=delay, thinking=1.5)

    assert code == 0, text
    assert "Done: 5 archived" in text
    assert ("Moving plans" in text) is drawn
