"""What a scheduled run does: the command, the environment it needs, where it logs."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from clarity.errors import ClarityError
from clarity.executable import unsafe_character
from clarity.printable import printable
from clarity.schedule.when import Mode
from clarity.settings.config import KEYS, Settings

# Where things are, as the user's shell sees it: a scheduler's bare environment
# must find the same config, state (for undo), trash and Claude Code dir.
CARRIED_ENV = (
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "CLAUDE_CONFIG_DIR",
)
# The user's CLARITY_* settings (SPEC 7), so the weekly run classifies as their own
# runs do. Not the plans and archive dirs: the command names those, absolute. Nor
# the variables that are not settings: CLARITY_CURRENT_PLAN names one session's plan,
# and CLARITY_DEBUG, CLARITY_LOCK_WAIT and CLARITY_PROGRESS_DELAY are for a person at
# a terminal, or a test.
SETTINGS_ENV = tuple(
    key.env for key in KEYS.values() if key.name not in ("plans_dir", "archive_dir")
)

_STATE_FIX = "set XDG_STATE_HOME to a folder without one"
_ARGUMENTS = {  # option -> (what its value is, what to do about it)
    "--plans-dir": ("the plans dir", "rename it, or choose another with --plans-dir"),
    "--archive-dir": ("the archive dir", "rename it, or choose another with --archive-dir"),
    "--output": ("the report file", _STATE_FIX),
}


@dataclass(frozen=True, slots=True)
class Job:
    mode: Mode
    argv: tuple[str, ...]  # absolute: the scheduler's PATH is not the user's
    env: tuple[tuple[str, str], ...]
    log: Path  # stdout and stderr of every run, appended

    def __post_init__(self) -> None:
        """Refuse a control character in anything a scheduler is given: here, once, so that
        no scheduler can forget (a newline in a crontab line or a unit is a new line of it)."""
        for what, value, fix in self._values():
            bad = unsafe_character(value)
            if bad is not None:
                raise ClarityError(
                    f"cannot schedule clarity: {what} {printable(value)} holds a control "
                    f"character ({printable(bad)}) that no crontab, unit or plist can carry "
                    f"safely, so nothing was installed; {fix}"
                )

    def _values(self) -> Iterator[tuple[str, str, str]]:
        """(what it is, the value, what to do) for every value a scheduler is given."""
        for name, value in self.env:
            yield name, value, f"set {name} to a value without one, or unset it"
        yield "clarity's own path", self.argv[0], "install clarity in a folder without one"
        for before, word in zip(self.argv, self.argv[1:], strict=False):
            what, fix = _ARGUMENTS.get(before, ("an argument", "leave it out"))
            yield f"{what} ({before})" if before in _ARGUMENTS else what, word, fix
        yield "the log file", str(self.log), _STATE_FIX

    def shell(self, quote: Callable[[str], str] = shlex.quote) -> str:
        """One /bin/sh line: environment, command, output appended to the log; each value
        quoted by quote (a scheduler that reads the line first may need more than sh)."""
        assignments = [f"{name}={quote(value)}" for name, value in self.env]
        command = [quote(word) for word in self.argv]
        return " ".join([*assignments, *command, ">>", quote(str(self.log)), "2>&1"])


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
        # --no-record: nobody reviews this report before an apply; the reviewed scan stays
        argv += ["scan", "--no-record", "--format", "markdown", "--output", str(report_file(state))]
    if not settings.sources["plans_dir"].given:
        argv.append("--all")  # every plans folder on the machine, found again each week
    else:  # the one folder the person named
        argv += ["--plans-dir", str(settings.plans_dir)]
        if settings.sources["archive_dir"].given:
            argv += ["--archive-dir", str(settings.archive_dir)]  # config: read at run time
    carried = [(name, env[name]) for name in CARRIED_ENV if env.get(name)]
    carried += [(name, env[name]) for name in SETTINGS_ENV if env.get(name, "").strip()]
    return Job(mode, tuple(argv), tuple(carried), log_file(state))
