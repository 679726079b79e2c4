"""A large plans directory for the kill and concurrency tests, and ways to watch a run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from tests.builders.files import Plan, contents, make_files


def make_corpus(plans_dir: Path, count: int) -> Counter[bytes]:
    """`count` plans: mostly completed (some with sub-plans), some stale stubs, a few live.

    Every file's bytes are unique, so counting copies of each proves "exactly once".
    """
    tree: dict[str, Plan] = {}
    for number in range(count):
        name = f"plan-{number:05d}"
        if number % 9 == 0:
            tree[f"{name}.md"] = Plan(f"# stub {number}\n", 10)  # stale: trash
        elif number % 50 == 1:
            tree[f"{name}.md"] = Plan(f"# live {number}\n", 0)  # active: stays
        else:
            body = f"# Plan {number} COMPLETED\n\nWhat plan {number} did.\n" + "step\n" * 40
            tree[f"{name}.md"] = Plan(body, 20)
            if number % 10 == 2:
                tree[f"{name}-agent-s{number}.md"] = Plan(f"# sub of {number}\n", 20)
    make_files(plans_dir, tree)
    return contents(plans_dir)


def journal_size(state_home: Path, runs_before: int) -> int:
    """Bytes written so far to the journal of the run started after `runs_before` runs."""
    runs = sorted((state_home / "clarity" / "dirs").glob("*/runs/*.jsonl"))
    if len(runs) <= runs_before:
        return 0
    try:
        return runs[-1].stat().st_size
    except FileNotFoundError:
        return 0


def run_count(state_home: Path) -> int:
    return len(list((state_home / "clarity" / "dirs").glob("*/runs/*.jsonl")))


def start_clarity(*args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "clarity", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )


def wait_for_journal(
    process: subprocess.Popen[bytes], state_home: Path, runs_before: int, size: int
) -> bool:
    """Wait until the new run's journal holds `size` bytes (True) or the process ended."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        if journal_size(state_home, runs_before) >= size:
            return True
        time.sleep(0.002)
    raise TimeoutError("the run never got that far")


def leftovers(*roots: Path) -> list[Path]:
    """Half-made copies or temp files that a settled directory must not contain."""
    return [
        path
        for root in roots
        for path in root.rglob("*")
        if path.name.endswith((".clarity-partial", ".clarity-moving", ".tmp"))
        or ".clarity-probe" in path.name
    ]
