"""The benchmark runs end to end on a tiny corpus; its corpus is what it claims to be.

No timings are asserted here: the figures are the benchmark's to print.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.corpus import NOW, make_corpus
from bench.transcripts import make_transcripts
from tests.builders.files import read_files

ROOT = Path(__file__).resolve().parent.parent


def test_the_corpus_has_the_promised_mix(tmp_path: Path) -> None:
    stats = make_corpus(tmp_path / "plans", 300)
    files = read_files(tmp_path / "plans")
    assert len(files) == stats.plans == 300
    assert sum(map(len, files.values())) == stats.bytes
    sizes = sorted(map(len, files.values()))
    assert sizes[0] < 2_000
    assert sizes[-1] == stats.largest >= 1_000_000  # a multi-MB plan
    subplans = [name for name in files if "-agent-" in name]
    assert len(subplans) == stats.subplans > 0
    assert all(name.split("-agent-")[0] + ".md" in files for name in subplans)
    titles = [data.split(b"\n", 1)[0] for data in files.values()]
    assert any(b"COMPLETED" in t or b"Done" in t or b"finalized" in t for t in titles)
    assert any(data.startswith(b"---\nstatus: done") for data in files.values())
    ages = [(NOW.timestamp() - (tmp_path / "plans" / n).stat().st_mtime) / 86400 for n in files]
    assert min(ages) < 0.4 and max(ages) > 100


def test_the_corpus_is_the_same_every_time(tmp_path: Path) -> None:
    make_corpus(tmp_path / "one", 120)
    make_corpus(tmp_path / "two", 120)
    assert read_files(tmp_path / "one") == read_files(tmp_path / "two")


def test_the_benchmark_runs_on_a_tiny_corpus(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLARITY_"))}
    tiny = ["--sizes", "30,300", "--apply-size", "30", "--hook-size", "30", "--repeat", "1"]
    tiny += ["--transcripts", "3e6", "--search-size", "30", "--roots-size", "300"]
    tiny += ["--browse-size", "30", "--projects", "300", "--heavy-hook", "20"]
    tiny += ["--heavy-plans", "40"]
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            *tiny,
            "--work",
            str(tmp_path / "work"),
            "--json",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(out.read_text())
    names = [figure["name"] for figure in result["figures"]]
    assert names == [
        "first scan, 30 plans",
        "first scan, 300 plans",
        "first scan, 300 plans vs 30 plans",
        "repeat scan, 30 plans",
        "repeat scan, 300 plans",
        "repeat scan, 300 plans vs 30 plans",
        "terminal report vs --json, 30 plans",
        "scan, empty dir vs import typer, rich.table",
        "SessionStart hook, 30 plans, unchanged",
        "SessionStart hook, 30 plans, scanned again",
        "session start (plugin launcher), 40 plans, 20 transcripts, first ever",
        "session start (plugin launcher), 40 plans, 20 transcripts, the next",
        "session start (plugin launcher), 40 plans, 20 transcripts, unchanged",
        "apply --rescan --yes, 30 plans, first scan",
        "apply --rescan --yes, 30 plans, first scan, vs batched floor",
        "apply --rescan --yes, 30 plans, repeat scan",
        "apply --rescan --yes, 30 plans, repeat scan, vs batched floor",
        "archive + state bytes per live plan byte, 30 plans, first apply and 10 weekly "
        "(5% revised a week)",
        "search index build, 30 live + 30 archived",
        "search after one plan changed, 30 live + 30 archived",
        "search query, warm index, 30 live + 30 archived, in one process",
        "MCP get_plan of an archived plan, 30 live + 30 archived",
        "MCP list_plans (a page of 100), warm server, 30 live plans",
        "MCP search_plans, 30 live + 30 archived",
        "clarity search as a process, 30 live + 30 archived",
        "scan --all, 20 roots, 300 plans, 5,000 other sessions (first)",
        "scan --all, 20 roots, 300 plans, 5,000 other sessions (repeat)",
        "clarity roots, 300 projects known",
        *(
            f"browse: {what}, 30 live + 30 archived"
            for what in (
                "start to the address printed",
                "start to the first list",
                "the list",
                "the list of one class",
                "a live plan",
                "an archived plan",
                "search as you type",
                "the pictures",
            )
        ),
        f"scan, {result['transcripts']['bytes'] / 1e6:.0f} MB of transcripts "
        f"({result['transcripts']['files']} sessions), first",
        "scan after 1 MB more, vs the first scan",
        "the same, net of start-up (an empty-dir scan)",
    ]
    for figure in result["figures"]:
        assert figure["ratio"] == figure["clarity_median_s"] / figure["baseline_median_s"]
        assert all(seconds > 0 for seconds in figure["clarity_s"] + figure["baseline_s"])
        assert figure["name"] in completed.stdout
    assert {key: stats["plans"] for key, stats in result["corpora"].items()} == {
        "30": 30,
        "300": 300,
    }
    assert result["imports"] == {"scan": [], "apply": []}  # no anthropic, pydantic or httpx


def test_the_transcripts_hold_plan_sessions_that_clarity_recognises(cli, tmp_path: Path) -> None:
    claude_dir, plans_dir = tmp_path / "claude", tmp_path / "plans"
    stats = make_transcripts(claude_dir / "projects", plans_dir, 4_000_000, seed=3)
    files = list((claude_dir / "projects").rglob("*.jsonl"))
    assert len(files) == stats.files and sum(f.stat().st_size for f in files) == stats.bytes
    assert stats.plan_sessions == len(list(plans_dir.glob("*.md"))) > 0
    os.environ["CLAUDE_CONFIG_DIR"] = str(claude_dir)  # the autouse fixture restores it
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW.isoformat(), "--json")
    assert result.exit_code == 0, result.stderr
    decided = result.json()["decided_by"]
    assert decided.get("session evidence", 0) > 0  # approved and implemented sessions
