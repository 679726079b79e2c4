"""`clarity ... | head -1` in a real shell with pipefail: a reader that goes away is not
a failed action (issue 17, item 10), and the action itself still completes."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def piped(args: list[str], reader: str = "head -1") -> subprocess.CompletedProcess[str]:
    """clarity's output into reader, in bash with pipefail: its exit status is clarity's."""
    clarity = shlex.join([sys.executable, "-m", "clarity", *args])
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {clarity} | {reader} >/dev/null"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_closed_pipe_is_not_a_failed_action(plans_dir: Path) -> None:
    # far more than a pipe holds, in every report
    make_files(
        plans_dir, {f"plan-{n:04d}.md": Plan(f"# Plan {n} COMPLETED\n", 20) for n in range(1500)}
    )
    where = ["--plans-dir", str(plans_dir)]

    for args in (
        ["scan", *where, "--now", NOW_ISO],
        ["scan", *where, "--now", NOW_ISO, "--json"],
        ["scan", *where, "--now", NOW_ISO, "--format", "markdown"],
        ["config", *where],
        ["--help"],
        ["scan", "--help"],
    ):
        done = piped(args)
        assert done.returncode == 0, (args, done.stderr)
        assert "error" not in done.stderr and "Traceback" not in done.stderr, args

    applied = piped(["apply", *where, "--yes", "--json"], reader="head -c 100")
    assert (applied.returncode, applied.stderr) == (0, "")
    assert list(plans_dir.iterdir()) == []  # the run finished: every plan was archived

    undone = piped(["undo", *where, "--yes", "--format", "markdown"])
    assert (undone.returncode, undone.stderr) == (0, "")
    assert len(list(plans_dir.iterdir())) == 1500
