"""What every figure of the benchmark is made with: a Figure (clarity's times against its
baseline's), the Bench (a work dir with corpora, a private HOME and XDG dirs), and how
to run clarity and the floors there, taking turns."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from bench.corpus import CorpusStats, make_corpus
from clarity.plans.facts_cache import RACY_NS

Command = Sequence[str]


@dataclass(frozen=True, slots=True)
class Figure:
    """clarity's time against its baseline's, each the median of several runs."""

    name: str
    clarity_s: list[float]
    baseline_s: list[float]
    target: float | None  # the ratio it must stay within; None: reported only
    note: str = ""
    unit: str = "s"  # of clarity_s and baseline_s (a storage figure: MB)

    @property
    def clarity_median(self) -> float:
        return statistics.median(self.clarity_s)

    @property
    def baseline_median(self) -> float:
        return statistics.median(self.baseline_s)

    @property
    def ratio(self) -> float:
        return self.clarity_median / self.baseline_median

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.ratio <= self.target

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "clarity_median_s": self.clarity_median,
            "baseline_median_s": self.baseline_median,
            "ratio": self.ratio,
            "met": self.met,
        }


class Bench:
    """The work dir: corpora, a private HOME and XDG dirs, and how to run clarity there."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.env = self._environment()

    def _environment(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("CLARITY_", "XDG_", "ANTHROPIC_", "CLAUDE_"))
        }
        home = self.work / "home"
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_STATE_HOME=str(home / ".local/state"),
            XDG_DATA_HOME=str(home / ".local/share"),  # the trash lives here
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            TZ="UTC",  # the corpus's "today" is NOW's UTC date
        )
        return env

    def corpus(self, count: int) -> tuple[Path, CorpusStats]:
        """The corpus of `count` plans, made once and kept in the work dir."""
        plans_dir = self.work / f"corpus-{count}"
        done = self.work / f"corpus-{count}.json"
        if done.exists():
            return plans_dir, CorpusStats(**json.loads(done.read_text(encoding="utf-8")))
        shutil.rmtree(plans_dir, ignore_errors=True)
        stats = make_corpus(plans_dir, count)
        done.write_text(json.dumps(asdict(stats)), encoding="utf-8")
        settle()
        return plans_dir, stats

    def fresh_home(self) -> None:
        """No state, trash or archive from an earlier run."""
        shutil.rmtree(self.work / "home", ignore_errors=True)
        (self.work / "home" / ".claude").mkdir(parents=True)

    def forget_scans(self) -> None:
        """No recorded scan and no facts cache: the next scan reads every plan."""
        shutil.rmtree(self.state_dir, ignore_errors=True)

    @property
    def state_dir(self) -> Path:
        return self.work / "home" / ".local" / "state"

    def check_cached(self, what: str) -> None:
        """A repeat figure measured without a facts cache would be a first one: stop."""
        if not any(self.state_dir.glob("clarity/dirs/*/facts.cache")):
            raise SystemExit(f"bench: {what} found no facts cache to repeat from")

    def _run(
        self, command: Command, stdout: int | IO[bytes], env: dict[str, str] | None = None
    ) -> tuple[float, str, str]:
        """Run command in the bench's environment: seconds taken, stdout, stderr."""
        started = time.perf_counter()
        result = subprocess.run(
            command,
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            check=False,
        )
        elapsed = time.perf_counter() - started
        err = result.stderr.decode(errors="replace")
        if result.returncode != 0:
            shown = " ".join(map(str, command))
            raise SystemExit(f"bench: {shown} exited {result.returncode}: {err.strip()}")
        return elapsed, (result.stdout or b"").decode(errors="replace"), err

    def run(self, command: Command, env: dict[str, str] | None = None) -> float:
        """Seconds the command took, its output thrown away as a user's pipe would."""
        return self._run(command, subprocess.DEVNULL, env)[0]

    def run_into(self, command: Command, path: Path, env: dict[str, str] | None = None) -> float:
        """Seconds the command took, its output written to a file."""
        with path.open("wb") as stream:
            return self._run(command, stream, env)[0]

    def capture(self, command: Command) -> tuple[str, str]:
        return self._run(command, subprocess.PIPE)[1:]


def clarity_command(*args: str | Path) -> list[str]:
    """The installed `clarity` script beside this Python, as a user runs it."""
    script = Path(sys.executable).with_name("clarity")
    start = [str(script)] if script.exists() else [sys.executable, "-m", "clarity"]
    return [*start, *map(str, args)]


def apply_command(plans_dir: Path, archive_dir: Path, now: str) -> list[str]:
    """The weekly job's apply (`apply --rescan --yes`) of one folder, as of now (ISO)."""
    return clarity_command(
        "apply", "--rescan", "--yes", "--json", "--plans-dir", plans_dir,
        "--archive-dir", archive_dir, "--now", now,
    )  # fmt: skip


def floor_command(*args: str | Path | int) -> list[str]:
    return [sys.executable, "-m", "bench.baselines", *map(str, args)]


def take_turns(repeat: int, *measures: Callable[[], float]) -> list[list[float]]:
    """Each measure's times: one warm-up each (page cache, .pyc files), then turn about."""
    for measure in measures:
        measure()
    times: list[list[float]] = [[] for _ in measures]
    for _ in range(repeat):
        for measure, seconds in zip(measures, times, strict=True):
            seconds.append(measure())
    return times


def settle() -> None:
    """Wait until files just written are old enough for clarity's facts cache to keep."""
    time.sleep(RACY_NS / 1e9)
