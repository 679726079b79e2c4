"""The session-start figures of issue 45, through the plugin's own launcher
(`plugin/bin/clarity-session-start --plugin`, as Claude Code runs it), on a heavy home:
20,000 plans (`--heavy-plans`), their ages spread over Claude Code's 30 days (a fifth
within a week of its cleanup), and 1,000 or 100,000 session transcripts (`--heavy-hook`).

- the first start ever (no state): target 1.5 s, and it must say something;
- the next start once the continuation it handed its work to is done: 1.5 s;
- a start that finds nothing changed (warm): target 0.1 s.

Each against a bare `python -I -c pass` (the start any hook pays); the targets are in
seconds, so the note says the median. The clock is the machine's (the hook takes no
--now): the plans' ages are set afresh from it before each run.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.harness import Bench, Figure

WORDS = [
    "cache",
    "layer",
    "refactor",
    "migrate",
    "index",
    "search",
    "plan",
    "step",
    "test",
    "build",
    "deploy",
    "api",
]
LAUNCHER = Path(__file__).parents[1] / "clarity" / "claude_code" / "plugin" / "bin"


def _home(bench: Bench, count: int, transcripts: int) -> Path:
    """The heavy home (made once in the work dir): plans, and transcripts of one project
    that each show one of them (ExitPlanMode), a few short records each."""
    home = bench.work / f"heavy-home-{count}-{transcripts}"
    if (home / "done").exists():
        return home
    rng = random.Random(45)
    plans = home / ".claude" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    names = []
    for number in range(count):
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{number:05d}.md"
        steps = (f"- step {j}: {' '.join(rng.choices(WORDS, k=12))}" for j in range(60))
        text = f"# Plan {number}\n\n" + "\n".join(steps) + "\n"
        if number % 3 == 0:
            text += "\nStatus: COMPLETED\n"
        (plans / name).write_text(text)
        names.append(name)
    project = home / "work" / "app"
    project.mkdir(parents=True, exist_ok=True)
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(transcripts):
        session = f"{number:08d}-0000-4000-8000-000000000000"
        base = {"cwd": str(project), "sessionId": session, "timestamp": "2026-11-01T10:00:00.000Z"}
        said = " ".join(rng.choices(WORDS, k=40))
        records = [{**base, "type": "user", "message": {"role": "user", "content": said}}] * 3
        shown = {
            "type": "tool_use",
            "id": f"toolu_{number}",
            "name": "ExitPlanMode",
            "input": {"plan": "# x", "planFilePath": str(plans / rng.choice(names))},
        }
        message = {"role": "assistant", "content": [shown]}
        records.append({**base, "type": "assistant", "message": message})
        lines = "".join(json.dumps(record) + "\n" for record in records)
        (folder / f"{session}.jsonl").write_text(lines)
    (home / "done").write_text("")
    return home


def _age(home: Path) -> None:
    """Each plan's age from the machine's clock, the same every run: 0 to 29.5 days."""
    now = time.time()
    rng = random.Random(7)
    for path in sorted((home / ".claude" / "plans").iterdir()):
        moment = now - rng.uniform(0, 29.5) * 86400
        os.utime(path, (moment, moment))


def _environment(home: Path) -> dict[str, str]:
    path = f"{LAUNCHER}:{Path(sys.executable).parent}:/usr/bin:/bin"  # clarity beside Python
    return {
        "HOME": str(home),
        "PATH": path,
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "TZ": "UTC",
    }


def _start(home: Path) -> tuple[float, str]:
    """One session start through the launcher: seconds, and what it said."""
    event = {"session_id": "s", "cwd": str(home / "work" / "app")}
    event |= {"hook_event_name": "SessionStart", "source": "startup"}
    started = time.perf_counter()
    ran = subprocess.run(
        [str(LAUNCHER / "clarity-session-start"), "--plugin"],
        input=json.dumps(event),
        env=_environment(home),
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - started, ran.stdout


def _settled(home: Path, seconds: float = 600) -> None:
    """Until the continuation a start handed its work to is done (it holds the lock)."""
    from clarity.claude_code.hook_background import busy

    state = str(home / ".local" / "state" / "clarity")
    give_up = time.monotonic() + seconds
    while busy(state):
        if time.monotonic() > give_up:
            raise SystemExit("bench: the session start's continuation ran past 10 minutes")
        time.sleep(0.2)


def _fresh(home: Path) -> None:
    import shutil

    _settled(home)
    for folder in (".local", ".config"):
        shutil.rmtree(home / folder, ignore_errors=True)
    shutil.rmtree(home / ".claude" / "plans-archive", ignore_errors=True)
    _age(home)


def _bare() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
    return time.perf_counter() - started


def heavy_hook_figures(bench: Bench, count: int, transcripts: int, repeat: int) -> list[Figure]:
    home = _home(bench, count, transcripts)
    first: list[float] = []
    after: list[float] = []
    warm: list[float] = []
    bare: list[float] = []
    silent = 0
    for _ in range(repeat):
        _fresh(home)
        seconds, said = _start(home)
        first.append(seconds)
        silent += not said
        _settled(home)
        after.append(_start(home)[0])  # the continuation's finding, said
        warm += [_start(home)[0] for _ in range(3)]  # nothing changed: the memo answers
        bare += [_bare() for _ in range(3)]
    where = f"{count:,} plans, {transcripts:,} transcripts"
    shown = (
        f"{silent} of {repeat} first starts said nothing" if silent else "each said what it knew"
    )

    def note(target: str, times: list[float]) -> str:
        return f"median {statistics.median(times):.2f} s (target {target}); vs python -I -c pass"

    return [
        Figure(
            f"session start (plugin launcher), {where}, first ever",
            first,
            bare,
            None,
            f"{note('1.5 s', first)}; {shown}",
        ),
        Figure(
            f"session start (plugin launcher), {where}, the next",
            after,
            bare,
            None,
            note("1.5 s", after),
        ),
        Figure(
            f"session start (plugin launcher), {where}, unchanged",
            warm,
            bare,
            None,
            note("0.1 s", warm),
        ),
    ]
