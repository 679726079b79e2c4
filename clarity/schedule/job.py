"""What a scheduled run does: the command, the environment it needs, where it logs."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from clarity.config import Settings
from clarity.schedule import Mode

# Where things are, as the user's shell sees it: a scheduler's bare environment
# must find the same config, state (for undo), trash and Claude Code dir.
CARRIED_ENV = (
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "CLAUDE_CONFIG_DIR",
)


@dataclass(frozen=True, slots=True)
class Job:
    mode: Mode
    argv: tuple[str, ...]  # absolute: the scheduler's PATH is not the user's
    env: tuple[tuple[str, str], ...]
    log: Path  # stdout and stderr of every run, appended

    def shell(self) -> str:
        """One /bin/sh line: environment, command, output appended to the log."""
        assignments = [f"{name}={shlex.quote(value)}" for name, value in self.env]
        command = shlex.join(self.argv)
        return " ".join([*assignments, command, ">>", shlex.quote(str(self.log)), "2>&1"])


def report_file(state: Path) -> Path:
    return state / "report.md"


def log_file(state: Path) -> Path:
    return state / "schedule.log"


def make_job(
    mode: Mode,
    clarity: list[str],
    settings: Settings,
    env: Mapping[str, str],
    state: Path,
) -> Job:
    """The weekly run for the plans dir settings name, as this user's shell sees things."""
    argv = [*clarity]
    if mode is Mode.APPLY:
        argv += ["apply", "--rescan", "--yes"]
    else:
        argv += ["scan", "--format", "markdown", "--output", str(report_file(state))]
    argv += ["--plans-dir", str(settings.plans_dir)]
    if settings.sources.get("archive_dir", "").startswith(("option", "env")):
        argv += ["--archive-dir", str(settings.archive_dir)]  # the config file is read at run time
    carried = tuple((name, env[name]) for name in CARRIED_ENV if env.get(name))
    return Job(mode, tuple(argv), carried, log_file(state))
