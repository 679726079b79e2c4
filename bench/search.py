"""Figures for `clarity search` (SPEC 9.1): 10,000 live and 10,000 archived plans.

- Building the index from nothing, against a first scan of the same 20,000
  plans (one plans dir holding both): within 2x.
- A search after one plan changed, against a build: within 10%.
- A query of the warm index, in one process (the ranking, snippets and rows a
  search returns), against a bare FTS5 query of the same index: reported,
  with its milliseconds against the 50 ms target, and the refresh (a stat of
  every plan) that a search does before it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import sys
from pathlib import Path

from bench.corpus import NOW
from bench.harness import Bench, Figure, clarity_command, settle, take_turns

WORD = "search index"  # a topic in the corpus's titles: many hits, ranked
_QUERY = """
import sys, time
from pathlib import Path
from clarity.search.index import SearchIndex
from clarity.search.query import terms
from clarity.state import DirState
live, archive = Path(sys.argv[1]), Path(sys.argv[2])
with SearchIndex.open(DirState.for_plans_dir(live)) as index:
    started = time.perf_counter()
    index.refresh(live, archive)
    refreshed = time.perf_counter() - started
    started = time.perf_counter()
    hits = index.search(terms(sys.argv[3]), live, archive, limit=20)
    searched = time.perf_counter() - started
    started = time.perf_counter()
    rows = index.db.execute(
        "SELECT rowid FROM text WHERE text MATCH ? ORDER BY rank LIMIT 20",
        (terms(sys.argv[3]).match,),
    ).fetchall()
    bare = time.perf_counter() - started
print(searched, bare, refreshed, len(hits), len(rows))
"""


def _archive(bench: Bench, source: Path) -> Path:
    """An archive of source's plans (as clarity lays one out), made once."""
    archive = bench.work / f"{source.name}-archive"
    if (archive / "index.jsonl").exists():
        return archive
    shutil.rmtree(archive, ignore_errors=True)
    quarter = archive / "2026-Q3"
    quarter.mkdir(parents=True)
    lines = []
    for plan in sorted(source.glob("*.md")):
        data = plan.read_bytes()
        (quarter / plan.name).write_bytes(data)
        title = data.split(b"\n", 1)[0].decode("utf-8", "replace").lstrip("# ").strip()
        record = {
            "name": plan.name,
            "title": title,
            "archived_at": NOW.isoformat(),
            "mtime": NOW.isoformat(),
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "path": f"2026-Q3/{plan.name}",
            "subplans": [],
            "summary": title,
            "summary_source": "extract",
            "original_path": str(plan),
            "project": None,
            "run": "bench",
        }
        lines.append(json.dumps(record))
    (archive / "index.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return archive


def _together(bench: Bench, live: Path, archive: Path) -> Path:
    """One plans dir holding the live and the archived plans: the same plans, scanned."""
    together = bench.work / f"{live.name}-together"
    if together.exists():
        return together
    together.mkdir()
    for plan in live.glob("*.md"):
        shutil.copy2(plan, together / f"live-{plan.name}")
    for plan in (archive / "2026-Q3").glob("*.md"):
        shutil.copy2(plan, together / f"archived-{plan.name}")
    settle()
    return together


def search_figures(bench: Bench, size: int, repeat: int) -> list[Figure]:
    live, _ = bench.corpus(size)
    archive = _archive(bench, bench.corpus(size + 1)[0])  # other plans, as many
    together = _together(bench, live, archive)
    search = clarity_command(
        "search", *WORD.split(), "--json", "--plans-dir", live, "--archive-dir", archive
    )
    scan = clarity_command("scan", "--json", "--plans-dir", together, "--now", NOW.isoformat())

    def build() -> float:
        for index in bench.state_dir.glob("clarity/dirs/*/search.sqlite*"):
            index.unlink()
        return bench.run(search)

    def first_scan() -> float:
        bench.forget_scans()
        return bench.run(scan)

    build_s, scan_s = take_turns(repeat, build, first_scan)
    changed = sorted(live.glob("*.md"))[size // 2]
    original = changed.read_bytes()
    turn = 0

    def one_changed() -> float:
        nonlocal turn
        turn += 1
        changed.write_bytes(original + f"\nOne more line, {turn}.\n".encode())
        return bench.run(search)

    try:
        bench.run(search)  # an index to change
        changed_s, rebuild_s = take_turns(repeat, one_changed, build)
    finally:
        changed.write_bytes(original)
    bench.run(search)
    query_s, bare_s, refresh_s = [], [], []
    hits = "0"
    for _ in range(repeat):
        out, _err = bench.capture([sys.executable, "-c", _QUERY, str(live), str(archive), WORD])
        searched, bare, refreshed, hits, _rows = out.split()
        query_s.append(float(searched))
        bare_s.append(float(bare))
        refresh_s.append(float(refreshed))
    query_ms = statistics.median(query_s) * 1000
    refresh_ms = statistics.median(refresh_s) * 1000
    plans = f"{size:,} live + {size:,} archived"
    return [
        Figure(f"search index build, {plans}", build_s, scan_s, 2.0, "vs a first scan of them"),
        Figure(f"search after one plan changed, {plans}", changed_s, rebuild_s, 0.1, "vs a build"),
        Figure(
            f"search query, warm index, {plans}, in one process",
            query_s,
            bare_s,
            None,
            f"{query_ms:.0f} ms for {hits} hits (target 50 ms: "
            f"{'met' if query_ms < 50 else 'missed'}) vs a bare FTS5 query; checking every "
            f"plan for a change first adds {refresh_ms:.0f} ms",
        ),
    ]
