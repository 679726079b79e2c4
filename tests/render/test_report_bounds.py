"""The report the /clarity skill hands to Claude is bounded whatever the number of plans:
counts, the dormant plans, the plans Claude Code deletes soon, and a folded rest whose
command repeats the options that shaped the scan."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.builders.files import NOW_ISO, Plan, make_files

DONE = "# Plan {n} COMPLETED\n\n" + "done\n" * 500
IDLE = "# Idle plan {n}\n\n" + "words " * 500


def _plans(plans_dir: Path, count: int) -> None:
    tree: dict[str, Plan] = {}
    for n in range(count):
        if n % 4 == 0:
            tree[f"idle-{n:05d}.md"] = Plan(IDLE.format(n=n), 16 + n % 20)  # dormant
        elif n % 4 == 1:
            tree[f"stub-{n:05d}.md"] = Plan(f"# stub {n}\n", 9)  # stale
        else:
            tree[f"done-{n:05d}.md"] = Plan(DONE.format(n=n), 5)  # completed
    make_files(plans_dir, tree)


def _markdown(cli, plans_dir: Path, *args: str) -> str:
    result = cli(
        "scan", "--print-only", "--format", "markdown", "--plans-dir", str(plans_dir), *args
    )
    assert result.exit_code == 0, result.stderr
    return str(result.stdout)


def test_the_markdown_report_does_not_grow_with_the_plans(cli, tmp_path: Path) -> None:
    small, large = tmp_path / "small" / "plans", tmp_path / "large" / "plans"
    _plans(small, 200)
    _plans(large, 4000)

    few = _markdown(cli, small, "--now", NOW_ISO)
    many = _markdown(cli, large, "--now", NOW_ISO, "--dormant-days", "15")

    assert "**4000 plans: 0 active (keep), 2000 completed (archive), 1000 stale" in many
    assert len(many.encode()) < 1.2 * len(few.encode()) + 4096  # bounded, not per plan
    rows = [line for line in many.splitlines() if line.startswith("| `idle-")]
    assert 30 <= len(rows) <= 60  # the dormant plans shown, and those deleted soon
    again = f"clarity scan --full --format markdown --now {shlex.quote(NOW_ISO)}"
    assert f"more completed; `{again} --dormant-days 15 --plans-dir {large}` lists" in many
    every = _markdown(cli, large, "--now", NOW_ISO, "--full")
    assert sum(line.startswith("| `") for line in every.splitlines()) == 4000
