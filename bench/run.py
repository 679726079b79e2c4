"""Measure clarity against the floors in bench/baselines.py, in one run, on one corpus.

    python -m bench [--sizes 1000,10000,100000] [--apply-size 10000] [--repeat 5]

Every figure is a median of `--repeat` runs (after one warm-up run, so every
file is in the page cache), clarity and its baseline taking turns. Each run
is a fresh process, baselines included, so both sides pay interpreter start.
Scans and applies are measured twice: as a first scan (no state: every plan
is read) and as a repeat scan (the facts cache holds the last scan's facts,
as it does for anyone who scans weekly). The result is printed as ratios and
written as JSON (`--json`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.corpus import NOW
from bench.harness import (
    Bench,
    Figure,
    apply_command,
    clarity_command,
    floor_command,
    settle,
    take_turns,
)
from bench.transcripts import TranscriptStats, append_lines, make_transcripts
from clarity.executor.journal import BATCH_MOVES

# A scan of plans clarity has scanned before stats them and reads only those
# that changed; a first scan (or one after the state dir is wiped) reads all.
FIRST, REPEAT = "first scan", "repeat scan"


def scan_figure(bench: Bench, count: int, repeat: int, kind: str, target: float | None) -> Figure:
    plans_dir, _ = bench.corpus(count)
    scan = clarity_command("scan", "--json", "--plans-dir", plans_dir, "--now", NOW.isoformat())

    def clarity() -> float:
        if kind == FIRST:
            bench.forget_scans()
        return bench.run(scan)  # a repeat scan: the warm-up run (or the last) was the first

    clarity_s, baseline_s = take_turns(
        repeat, clarity, lambda: bench.run(floor_command("scan", plans_dir))
    )
    if kind == REPEAT:
        bench.check_cached(f"the repeat scan of {count:,} plans")
    return Figure(f"{kind}, {count:,} plans", clarity_s, baseline_s, target)


def table_figure(bench: Bench, count: int, repeat: int) -> Figure:
    """The default report a person reads in a terminal against `--json`, both repeat scans.

    FORCE_COLOR makes rich draw for a terminal (colours, the terminal's width) while the
    output goes to a file the bench can time; the JSON goes to a file as well.
    """
    plans_dir, _ = bench.corpus(count)
    base = ("scan", "--plans-dir", plans_dir, "--now", NOW.isoformat(), "--no-record")
    table = clarity_command(*base)
    as_json = clarity_command(*base, "--json")
    out = bench.work / "report.out"
    terminal = {"FORCE_COLOR": "1", "COLUMNS": "120"}

    clarity_s, baseline_s = take_turns(
        repeat, lambda: bench.run_into(table, out, terminal), lambda: bench.run_into(as_json, out)
    )
    name = f"terminal report vs --json, {count:,} plans"
    return Figure(name, clarity_s, baseline_s, 1.5, note="repeat scans, both into a file")


def empty_figure(bench: Bench, repeat: int) -> Figure:
    empty = bench.work / "empty"
    empty.mkdir(exist_ok=True)
    scan = clarity_command("scan", "--plans-dir", empty, "--now", NOW.isoformat())
    clarity_s, baseline_s = take_turns(
        repeat * 3,  # short runs: more of them
        lambda: bench.run(scan),
        lambda: bench.run([sys.executable, "-c", "import typer, rich.table"]),
    )
    # issue 45's floor and target: the table a report prints is rich's
    return Figure("scan, empty dir vs import typer, rich.table", clarity_s, baseline_s, 1.2)


def hook_figures(bench: Bench, count: int, repeat: int) -> list[Figure]:
    """The SessionStart hook (issue 17) on `count` plans, against a bare Python's start:
    a session start that finds the plans as the last scan left them, and one that
    scans again (its memo gone; the facts cache still there)."""
    plans_dir, _ = bench.corpus(count)
    env = {"CLARITY_PLANS_DIR": str(plans_dir)}
    hook = [sys.executable, "-I", "-m", "clarity.hook"]
    memo = bench.state_dir / "clarity" / "session-start.json"
    said = bench._run(hook, subprocess.PIPE, env)[1]  # the first: reads every plan
    if '"systemMessage"' not in said or not memo.exists():
        raise SystemExit(f"bench: the hook said nothing of {count:,} plans")

    def rescan() -> float:
        memo.unlink()
        return bench.run(hook, env)

    bare = [sys.executable, "-I", "-c", "pass"]
    warm, bare_s = take_turns(repeat * 3, lambda: bench.run(hook, env), lambda: bench.run(bare))
    cold, bare_again = take_turns(repeat * 3, rescan, lambda: bench.run(bare))
    note = "vs python -I -c pass"
    return [
        Figure(f"SessionStart hook, {count:,} plans, unchanged", warm, bare_s, None, note),
        Figure(f"SessionStart hook, {count:,} plans, scanned again", cold, bare_again, None, note),
    ]


def scaling_figure(small: Figure, large: Figure, factor: float) -> Figure:
    return Figure(
        f"{large.name} vs {small.name.split(', ')[-1]}",
        large.clarity_s,
        small.clarity_s,
        round(factor * 1.1, 3),
        note=f"{factor:g}x the plans",
    )


def planned_moves(bench: Bench, plans_dir: Path, target: Path) -> list[tuple[str, str]]:
    """The moves clarity's scan proposes, as renames from plans_dir to under target."""
    scan = clarity_command("scan", "--json", "--plans-dir", plans_dir, "--now", NOW.isoformat())
    report = json.loads(bench.capture(scan)[0])
    moves: list[tuple[str, str]] = []
    for plan in report["plans"]:
        if plan["action"] in ("archive", "trash"):
            moves.append(
                (str(plans_dir / plan["name"]), str(target / plan["action"] / plan["name"]))
            )
    return moves


def copy_corpus(source: Path, copy: Path) -> None:
    """A copy to move files out of: hard links where the filesystem allows (fast)."""
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    for entry in os.scandir(source):
        try:
            os.link(entry.path, copy / entry.name, follow_symlinks=False)
        except OSError:
            shutil.copy2(entry.path, copy / entry.name)


def keep_last_weeks(kept: Path, archive_dir: Path, state_dir: Path, plans_dir: Path) -> None:
    """The texts last week's run kept, back in the archive (texts linked: clarity never
    writes into a kept text; records copied: it appends to them), and its stamps."""
    from clarity.state import DirState

    def link_or_copy(src: str, dst: str) -> None:
        if src.endswith(".jsonl"):
            shutil.copy2(src, dst)
        else:
            os.link(src, dst)

    shutil.copytree(kept / "versions", archive_dir / "versions", copy_function=link_or_copy)
    state = DirState.for_plans_dir(plans_dir, base=state_dir)
    state.root.mkdir(parents=True, exist_ok=True)
    # Last week's stamps, of these very files: the bench's new links moved their ctime,
    # which a week of Claude Code not touching them would not.
    seen = json.loads((kept / "versions-seen.json").read_text(encoding="utf-8"))
    for name in seen:
        info = (plans_dir / name).stat()
        seen[name] = [info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns]
    (state.root / "versions-seen.json").write_text(json.dumps(seen), encoding="utf-8")


def apply_figures(bench: Bench, count: int, repeat: int, kind: str) -> list[Figure]:
    """apply --rescan on a fresh copy of the corpus; for REPEAT, scanned once before (cron).

    Against two floors: the target's, which syncs its journal before every
    move, and one that syncs it once per batch of moves as clarity does
    (reported only: what is left of clarity's time is its own work).
    """
    corpus, _ = bench.corpus(count)
    plans_dir = bench.work / "apply" / "plans"
    archive_dir = bench.work / "apply" / "archive"
    floor_dir = bench.work / "apply" / "floor"
    bench.fresh_home()
    copy_corpus(corpus, plans_dir)
    moves = planned_moves(bench, plans_dir, floor_dir)
    moves_file = bench.work / "apply" / "moves.json"
    moves_file.write_text(json.dumps(moves), encoding="utf-8")
    apply = apply_command(plans_dir, archive_dir, NOW.isoformat())

    scan = clarity_command("scan", "--json", "--plans-dir", plans_dir, "--now", NOW.isoformat())

    kept = bench.work / "apply" / "kept"
    if kind == REPEAT:  # last week's run kept every live plan's text: this week's finds them
        bench.fresh_home()
        shutil.rmtree(archive_dir, ignore_errors=True)
        copy_corpus(corpus, plans_dir)
        bench.run(apply)
        shutil.rmtree(kept, ignore_errors=True)
        kept.mkdir(parents=True)
        shutil.move(archive_dir / "versions", kept / "versions")
        for seen in bench.state_dir.glob("clarity/dirs/*/versions-seen.json"):
            shutil.copy2(seen, kept / "versions-seen.json")

    def clarity() -> float:
        bench.fresh_home()
        shutil.rmtree(archive_dir, ignore_errors=True)
        copy_corpus(corpus, plans_dir)
        if kind == REPEAT:  # last week's scan, of files that have not changed since
            keep_last_weeks(kept, archive_dir, bench.state_dir / "clarity", plans_dir)
            settle()  # a new link moves a file's ctime: let the copy age first
            bench.run(scan)
            bench.check_cached("apply after a scan")
        return bench.run(apply)

    def baseline(batch: int) -> Callable[[], float]:
        def moves_floor() -> float:
            shutil.rmtree(floor_dir, ignore_errors=True)
            floor_dir.mkdir(parents=True)
            copy_corpus(corpus, plans_dir)
            journal = floor_dir / "journal.jsonl"
            return bench.run(floor_command("moves", moves_file, journal, batch))

        return moves_floor

    clarity_s, synced_each_s, batched_s = take_turns(
        repeat, clarity, baseline(1), baseline(BATCH_MOVES)
    )
    name = f"apply --rescan --yes, {count:,} plans, {kind}"
    each, batched = f"{len(moves):,} moves, an fsync each", f"an fsync per {BATCH_MOVES} moves"
    return [
        Figure(name, clarity_s, synced_each_s, 3.0, f"floor: {each}"),
        Figure(f"{name}, vs batched floor", clarity_s, batched_s, None, f"floor: {batched}"),
    ]


def transcript_figures(bench: Bench, total: int, repeat: int) -> tuple[list[Figure], Any]:
    """Session evidence (SPEC 10): a first scan of `total` bytes of transcripts against
    `grep -rc planFilePath` over them, and a repeat scan after 1 MB more."""
    claude_dir = bench.work / f"claude-{total}"
    plans_dir = bench.work / f"claude-{total}-plans"
    done = bench.work / f"claude-{total}.json"
    if done.exists():
        stats = TranscriptStats(**json.loads(done.read_text(encoding="utf-8")))
    else:
        shutil.rmtree(claude_dir, ignore_errors=True)
        shutil.rmtree(plans_dir, ignore_errors=True)
        stats = make_transcripts(claude_dir / "projects", plans_dir, total)
        done.write_text(json.dumps(asdict(stats)), encoding="utf-8")
    env = {"CLAUDE_CONFIG_DIR": str(claude_dir)}
    scan = clarity_command("scan", "--json", "--plans-dir", plans_dir, "--now", NOW.isoformat())
    grep = ["grep", "-rc", "planFilePath", str(claude_dir / "projects")]
    grep_out = bench.work / "grep-out.txt"  # a file: into /dev/null grep stops at a match

    def first() -> float:
        bench.forget_scans()
        return bench.run(scan, env)

    first_s, grep_s = take_turns(repeat, first, lambda: bench.run_into(grep, grep_out))
    transcripts = sorted((claude_dir / "projects").rglob("*.jsonl"))
    appended = 0

    def again() -> float:
        nonlocal appended
        for number in range(4):  # 1 MB over four sessions that go on
            path = transcripts[(appended + number * 97) % len(transcripts)]
            old = path.stat().st_mtime
            appended += append_lines(path, 256 * 1024, seed=appended + number)
            os.utime(path, (old, old))  # as of --now they stay old: no live session
        return bench.run(scan, env)

    empty = bench.work / "empty"
    empty.mkdir(exist_ok=True)
    start = clarity_command("scan", "--json", "--plans-dir", empty, "--now", NOW.isoformat())
    repeat_s, start_s = take_turns(repeat, again, lambda: bench.run(start, env))
    amount = f"{stats.bytes / 1e9:.1f} GB" if stats.bytes >= 1e9 else f"{stats.bytes / 1e6:.0f} MB"
    size = f"{amount} of transcripts ({stats.files:,} sessions)"
    net_first = [max(1e-3, f - statistics.median(start_s)) for f in first_s]
    net_repeat = [max(1e-3, r - statistics.median(start_s)) for r in repeat_s]
    return [
        Figure(f"scan, {size}, first", first_s, grep_s, 3.0, "floor: grep -rc planFilePath"),
        Figure(
            "scan after 1 MB more, vs the first scan",
            repeat_s,
            first_s,
            0.1,
            f"{appended / 1e6:.1f} MB appended in all",
        ),
        Figure(
            "the same, net of start-up (an empty-dir scan)",
            net_repeat,
            net_first,
            None,
            "reported: the transcript work alone",
        ),
    ], asdict(stats)


def _requirements(dist: str) -> set[str]:
    """Names of the distributions dist needs (extras left out), normalised."""
    from importlib.metadata import requires

    lines = [line for line in requires(dist) or [] if "extra ==" not in line]
    names = (re.split(r"[\s;<>=!~\[(]", line, maxsplit=1)[0] for line in lines)
    return {name.lower().replace("_", "-") for name in names}


def agent_only_modules() -> set[str]:
    """Top-level modules of anthropic and of what it needs that clarity's other
    dependencies (typer, rich, ...) do not."""
    from importlib.metadata import packages_distributions

    others = _requirements("clarity-plans") - {"anthropic"}
    agent = {"anthropic", *_requirements("anthropic")}
    agent -= others.union(*(_requirements(name) for name in others))
    return {
        module
        for module, dists in packages_distributions().items()
        if {dist.lower().replace("_", "-") for dist in dists} & agent
    }


def heavy_imports(bench: Bench) -> dict[str, list[str]]:
    """Modules only the agent should need that scan and apply import anyway."""
    empty = bench.work / "empty"
    watched = agent_only_modules()
    found: dict[str, list[str]] = {}
    for command in ("scan", "apply --yes --rescan"):
        argv = [sys.executable, "-X", "importtime", "-m", "clarity", *command.split()]
        stderr = bench.capture([*argv, "--plans-dir", str(empty), "--now", NOW.isoformat()])[1]
        modules = {
            line.split("|")[-1].strip().split(".")[0]
            for line in stderr.splitlines()
            if line.startswith("import time:")
        }
        found[command.split()[0]] = sorted(modules & watched)
    return found


def machine(work: Path) -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with Path("/proc/cpuinfo").open(encoding="utf-8") as stream:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in stream if line.startswith("model name")),
                cpu,
            )
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "filesystem": filesystem(work),
    }


def filesystem(path: Path) -> str:
    """The type of the filesystem holding path (Linux), for the record."""
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return "unknown"
    real = os.path.realpath(path)
    best = ("", "unknown")
    for line in mounts:
        fields = line.split()
        inside = len(fields) > 2 and (real + "/").startswith(fields[1].rstrip("/") + "/")
        if inside and len(fields[1]) >= len(best[0]):
            best = (fields[1], fields[2])
    return best[1]


def render(result: dict[str, Any]) -> str:
    box = result["machine"]
    width = max(len(figure["name"]) for figure in result["figures"])
    lines = [
        f"clarity benchmark: {box['cpu']}, {box['cores']} cores, {box['system']}, "
        f"Python {box['python']}, corpus on {box['filesystem']}",
        "corpus: "
        + " | ".join(
            f"{stats['plans']:,} plans, {stats['bytes'] / 1e6:,.0f} MB (largest "
            f"{stats['largest'] / 1e6:.1f} MB)"
            for stats in result["corpora"].values()
        ),
        "",
        f"{'measure':<{width}} {'clarity':>9} {'baseline':>9} {'ratio':>7}  target",
    ]
    for figure in result["figures"]:
        target = figure["target"]
        verdict = (
            "" if target is None else f"<= {target:g}x " + ("ok" if figure["met"] else "MISSED")
        )
        unit = figure.get("unit", "s")
        digits = 3 if unit == "s" else 0
        lines.append(
            f"{figure['name']:<{width}} {figure['clarity_median_s']:>8.{digits}f}{unit} "
            f"{figure['baseline_median_s']:>8.{digits}f}{unit} {figure['ratio']:>6.2f}x  "
            f"{verdict}".rstrip()
        )
        if figure["note"]:
            lines.append(f"{'':<4}{figure['note']}")
    imports = result["imports"]
    lines.append("")
    lines += [
        f"{command}: imports "
        + (", ".join(found) if found else "nothing only the agent needs (anthropic and its deps)")
        for command, found in imports.items()
    ]
    return "\n".join(lines)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="corpus sizes to scan")
    parser.add_argument("--apply-size", type=int, default=10_000, help="corpus size for apply")
    parser.add_argument("--hook-size", type=int, default=500, help="plans for the hook")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--json", type=Path, default=Path("bench/results.json"), dest="out")
    parser.add_argument("--work", type=Path, help="keep corpora here between runs")
    parser.add_argument(
        "--search-size",
        type=int,
        default=10_000,
        help="live and archived plans to search (0: none)",
    )
    parser.add_argument(
        "--roots-size",
        type=int,
        default=20_000,
        help="plans spread over 20 roots for scan --all (0: none)",
    )
    parser.add_argument(
        "--heavy-hook",
        default="1000,100000",
        help="transcripts in the heavy homes the session start is timed in ('': none)",
    )
    parser.add_argument(
        "--heavy-plans",
        type=int,
        default=20_000,
        help="plans in those homes",
    )
    parser.add_argument(
        "--projects",
        type=int,
        default=20_000,
        help="projects Claude Code's .claude.json lists, for clarity roots",
    )
    parser.add_argument(
        "--browse-size",
        type=int,
        default=10_000,
        help="live and archived plans clarity browse serves (0: none)",
    )
    parser.add_argument(
        "--transcripts",
        type=float,
        default=1e9,
        help="bytes of transcripts for the session-evidence figures (0: none)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sizes = sorted({int(size) for size in args.sizes.split(",")})
    work = args.work or Path(tempfile.mkdtemp(prefix="clarity-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    bench = Bench(work.resolve())
    try:
        bench.fresh_home()
        corpora = {str(size): asdict(bench.corpus(size)[1]) for size in sizes}
        corpora.setdefault(str(args.apply_size), asdict(bench.corpus(args.apply_size)[1]))
        corpora.setdefault(str(args.hook_size), asdict(bench.corpus(args.hook_size)[1]))
        figures: list[Figure] = []
        for kind in (FIRST, REPEAT):
            scans: dict[int, Figure] = {}
            for size in sizes:
                target = 2.0 if size == args.apply_size else None
                repeat = max(1, args.repeat // 2) if size > args.apply_size else args.repeat
                scans[size] = scan_figure(bench, size, repeat, kind, target)
            figures += scans.values()
            for small, large in itertools.pairwise(sizes):
                figures.append(scaling_figure(scans[small], scans[large], large / small))
        figures.append(table_figure(bench, args.apply_size, args.repeat))
        figures.append(empty_figure(bench, args.repeat))
        figures += hook_figures(bench, args.hook_size, args.repeat)
        for transcripts in filter(None, args.heavy_hook.split(",")):
            from bench.heavy_hook import heavy_hook_figures  # it needs Bench and Figure

            figures += heavy_hook_figures(bench, args.heavy_plans, int(transcripts), args.repeat)
        for kind in (FIRST, REPEAT):
            figures += apply_figures(bench, args.apply_size, args.repeat, kind)
        from bench.storage import storage_figure  # it needs Bench and Figure

        figures.append(storage_figure(bench, args.apply_size))
        if args.search_size > 0:
            from bench.search import search_figures  # it needs Bench and Figure from here

            figures += search_figures(bench, args.search_size, args.repeat)
            from bench.mcp import mcp_figures  # the same live and archived plans

            figures += mcp_figures(bench, args.search_size, args.repeat)
        if args.roots_size > 0:
            from bench.roots import projects_figure, roots_figures  # they need Bench, Figure

            figures += roots_figures(bench, args.roots_size, args.repeat)
            figures.append(projects_figure(bench, args.projects, args.repeat))
        if args.browse_size > 0:
            from bench.browse import browse_figures  # it needs Bench and Figure from here

            figures += browse_figures(bench, args.browse_size, args.repeat)
        transcripts = None
        if args.transcripts > 0:
            found, transcripts = transcript_figures(bench, int(args.transcripts), args.repeat)
            figures += found
        result = {
            "machine": machine(bench.work),
            "corpora": corpora,
            "transcripts": transcripts,
            "repeat": args.repeat,
            "figures": [figure.to_json() for figure in figures],
            "imports": heavy_imports(bench),
        }
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(render(result))
    print(f"\nwritten to {args.out}")
