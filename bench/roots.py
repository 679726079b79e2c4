"""The figures for every plans folder on the machine.

- `scan --all` (SPEC 2, issue 33): 20 roots holding 20,000 plans in all, found as clarity
  finds them (20 projects with a plansDirectory, named by the cwd of a transcript each),
  with 5,000 more sessions that name no plan, against a scan of the same plans in one
  folder with the same sessions: a first scan of both (issue 45: each root read every
  session) and a repeat (what a weekly run or a second look pays), within 1.2x.
- `clarity roots` with 20,000 projects known (issue 45): Claude Code's `.claude.json`
  lists them, one in ten has a settings file; against reading that list and a stat of
  each project's two settings files (bench.baselines projects). Reported: a running
  server (MCP, browse) finds them once a minute, and a person's `clarity roots` pays it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from bench.corpus import NOW
from bench.harness import Bench, Figure, clarity_command, floor_command, settle, take_turns

ROOTS = 20


def _projects(bench: Bench, source: Path) -> Path:
    """ROOTS projects under the bench's home, each with a plansDirectory holding its share
    of source's plans (hard links: the same bytes and mtimes), each group in one root,
    and a transcript that started in it. Made once."""
    code = bench.work / f"projects-{source.name}"
    if (code / "done").exists():
        return code
    shutil.rmtree(code, ignore_errors=True)
    for entry in os.scandir(source):
        group = entry.name.split("-agent-")[0]
        number = int(hashlib.sha256(group.encode()).hexdigest()[:8], 16) % ROOTS
        plans = code / f"project-{number:02d}" / "plans"
        plans.mkdir(parents=True, exist_ok=True)
        os.link(entry.path, plans / entry.name)
    for number in range(ROOTS):
        project = code / f"project-{number:02d}"
        (project / ".claude").mkdir(parents=True, exist_ok=True)
        (project / ".claude" / "settings.json").write_text('{"plansDirectory": "plans"}\n')
    (code / "done").write_text("")
    settle()
    return code


CHATTER = 5_000


def _transcripts(bench: Bench, code: Path) -> None:
    """One short transcript per project in the bench's Claude config dir (a fresh home),
    and CHATTER sessions of another project that name no plan (20 records each)."""
    projects = bench.work / "home" / ".claude" / "projects"
    chatter = projects / "-work-app"
    chatter.mkdir(parents=True, exist_ok=True)
    said = " ".join(["the cache layer reads through to the store and keeps hot keys"] * 20)
    for number in range(CHATTER):
        session = f"{number:08d}-0000-4000-8000-000000000000"
        record: dict[str, object] = {"type": "user", "cwd": "/work/app", "sessionId": session}
        record |= {"timestamp": NOW.isoformat(), "message": {"role": "user", "content": said}}
        (chatter / f"{session}.jsonl").write_text((json.dumps(record) + "\n") * 20)
    for number in range(ROOTS):
        project = code / f"project-{number:02d}"
        folder = projects / str(project).replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        record = {
            "type": "user",
            "cwd": str(project),
            "sessionId": f"s{number}",
            "timestamp": NOW.isoformat(),
            "message": {"role": "user", "content": "hi"},
        }
        (folder / f"s{number}.jsonl").write_text(json.dumps(record) + "\n")


def roots_figures(bench: Bench, size: int, repeat: int) -> list[Figure]:
    source, _ = bench.corpus(size)
    code = _projects(bench, source)
    bench.fresh_home()
    _transcripts(bench, code)
    every = clarity_command("scan", "--all", "--json", "--now", NOW.isoformat())
    one = clarity_command("scan", "--json", "--plans-dir", source, "--now", NOW.isoformat())
    found = json.loads(bench.capture(clarity_command("roots", "--json"))[0])["roots"]
    if len(found) != ROOTS:
        raise SystemExit(f"bench: clarity roots found {len(found)} roots, not {ROOTS}")

    def first(command: list[str]) -> float:
        bench.forget_scans()
        return bench.run(command)

    first_s, first_baseline_s = take_turns(
        max(1, repeat // 2), lambda: first(every), lambda: first(one)
    )
    bench.run(every)  # what the repeat figure repeats
    bench.run(one)
    clarity_s, baseline_s = take_turns(repeat, lambda: bench.run(every), lambda: bench.run(one))
    bench.check_cached("the repeat scan --all")
    with_sessions = f"{size:,} plans, {CHATTER:,} other sessions"
    return [
        Figure(
            f"scan --all, {ROOTS} roots, {with_sessions} (first)",
            first_s,
            first_baseline_s,
            1.2,
            note=f"baseline: a first scan of the same {size:,} plans in one folder",
        ),
        Figure(
            f"scan --all, {ROOTS} roots, {with_sessions} (repeat)",
            clarity_s,
            baseline_s,
            1.2,
            note=f"baseline: a repeat scan of the same {size:,} plans in one folder",
        ),
    ]


def _known_projects(bench: Bench, count: int) -> None:
    """count project folders in `.claude.json` of the bench's (fresh) home, one in ten
    with a `.claude/settings.json` that sets no plansDirectory. The folders are made once."""
    code = bench.work / f"known-projects-{count}"
    names = [code / f"p{number:05d}" for number in range(count)]
    if not (code / "done").exists():
        for number, project in enumerate(names):
            project.mkdir(parents=True, exist_ok=True)
            if number % 10 == 0:
                (project / ".claude").mkdir(exist_ok=True)
                (project / ".claude" / "settings.json").write_text('{"model": "opus"}\n')
        (code / "done").write_text("")
    listed: dict[str, object] = {str(project): {"allowedTools": []} for project in names}
    home = bench.work / "home"
    (home / ".claude" / "plans").mkdir(parents=True, exist_ok=True)
    (home / ".claude.json").write_text(json.dumps({"projects": listed}))


def projects_figure(bench: Bench, count: int, repeat: int) -> Figure:
    bench.fresh_home()
    _known_projects(bench, count)
    roots = clarity_command("roots", "--json")
    floor = floor_command("projects", bench.work / "home")
    said = json.loads(bench.capture(roots)[0])
    if len(said["roots"]) != 1:  # ~/.claude/plans alone: no project sets a plansDirectory
        raise SystemExit(f"bench: clarity roots found {len(said['roots'])} roots, not 1")
    clarity_s, baseline_s = take_turns(repeat, lambda: bench.run(roots), lambda: bench.run(floor))
    (bench.work / "home" / ".claude.json").unlink()
    return Figure(
        f"clarity roots, {count:,} projects known",
        clarity_s,
        baseline_s,
        None,
        note="baseline: read .claude.json's projects, stat each one's two settings files",
    )
