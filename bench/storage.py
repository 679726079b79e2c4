"""What clarity keeps on disk beside the plans (SPEC 10 "Storage", issue 45): a corpus
applied as the weekly job does, ten weeks on, each week with a share of the live plans
revised in place (a line added, as Claude Code revises a plan), then searched once (the
search index made). Against the plans' own bytes, live ones only, as the issue measures.

The parts are in the note: the archive holds the archived plans themselves, kept texts
(versions/, every live text once, and each revision), its index; the state folder the
search index, facts cache, journals and proposals.
"""

from __future__ import annotations

import os
import random
import shutil
from datetime import timedelta
from pathlib import Path

from bench.corpus import NOW
from bench.harness import Bench, Figure, apply_command, clarity_command

REVISED = 0.05  # of the live plans, each week
WEEKS = 10


def _bytes(folder: Path, *, skip: str | None = None) -> int:
    total = 0
    for root, dirs, files in os.walk(folder):
        if skip is not None:
            dirs[:] = [name for name in dirs if name != skip]
        for name in files:
            try:
                total += (Path(root) / name).lstat().st_size
            except OSError:
                continue
    return total


def storage_figure(bench: Bench, count: int) -> Figure:
    corpus, _ = bench.corpus(count)
    plans_dir = bench.work / "storage" / "plans"
    archive_dir = bench.work / "storage" / "archive"
    bench.fresh_home()
    shutil.rmtree(bench.work / "storage", ignore_errors=True)
    # copies of their own, mtimes kept: the revisions are written in place
    shutil.copytree(corpus, plans_dir, copy_function=shutil.copy2)
    rng = random.Random(45)
    for week in range(WEEKS + 1):
        now = NOW + timedelta(days=7 * week)
        if week:
            revisable = sorted(plans_dir.iterdir())
            for path in rng.sample(revisable, int(len(revisable) * REVISED)):
                with path.open("a", encoding="utf-8") as plan:
                    plan.write(f"\n- week {week}: a step revised\n")
                moment = (now - timedelta(days=3)).timestamp()
                os.utime(path, (moment, moment))
        bench.run(apply_command(plans_dir, archive_dir, now.isoformat()))
    bench.run(
        clarity_command("search", "plan", "--plans-dir", plans_dir, "--archive-dir", archive_dir)
    )
    live = _bytes(plans_dir)
    archive = _bytes(archive_dir)
    versions = _bytes(archive_dir / "versions")
    archived = _bytes(archive_dir, skip="versions") - sum(
        (archive_dir / name).stat().st_size
        for name in ("index.jsonl", "INDEX.md")
        if (archive_dir / name).exists()
    )
    state = _bytes(bench.state_dir)
    index = sum(path.stat().st_size for path in bench.state_dir.rglob("search.sqlite"))
    mb = 1e6
    return Figure(
        f"archive + state bytes per live plan byte, {count:,} plans, first apply and "
        f"{WEEKS} weekly ({REVISED:.0%} revised a week)",
        [(archive + state) / mb],
        [live / mb],
        1.5,
        note=f"MB: archived plans {archived / mb:.0f}, kept texts {versions / mb:.0f}, "
        f"search index {index / mb:.0f}, the rest of the state {(state - index) / mb:.0f}; "
        f"live plans {live / mb:.0f}",
        unit="MB",
    )
