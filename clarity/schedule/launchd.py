"""The weekly run as a launchd agent (macOS)."""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
from pathlib import Path

from clarity.errors import ClarityError
from clarity.managed import CommentStyle, Outcome, install, remove
from clarity.schedule import HOUR, MINUTE, WEEKDAY
from clarity.schedule.job import Job

LABEL = "dev.clarity.plans"


def plist_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def plist_text(job: Job) -> str:
    agent: dict[str, object] = {
        "Label": LABEL,
        "ProgramArguments": list(job.argv),
        "StartCalendarInterval": {"Weekday": WEEKDAY, "Hour": HOUR, "Minute": MINUTE},
        "StandardOutPath": str(job.log),
        "StandardErrorPath": str(job.log),
        "RunAtLoad": False,
    }
    if job.env:
        agent["EnvironmentVariables"] = dict(job.env)
    return plistlib.dumps(agent, sort_keys=False).decode("utf-8")


def launchctl(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    program = shutil.which("launchctl")
    if program is None:
        raise ClarityError("launchctl is not installed: launchd is macOS's; use --scheduler cron")
    try:
        done = subprocess.run(
            [program, *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ClarityError(f"launchctl {' '.join(args)} failed: {error}") from None
    if check and done.returncode != 0:
        said = " ".join((done.stderr or done.stdout).split()) or f"exit status {done.returncode}"
        raise ClarityError(f"launchctl {' '.join(args)} failed: {said}")
    return done


def _domain() -> str:
    return f"gui/{os.getuid()}"


class Launchd:
    name = "launchd"

    def installed(self) -> str | None:
        path = plist_path()
        if not path.exists():
            return None
        return f"{path}:\n{path.read_text(encoding='utf-8', errors='replace')}"

    def install(self, job: Job) -> Outcome:
        change = install(plist_path(), plist_text(job), CommentStyle.XML)
        launchctl("bootout", f"{_domain()}/{LABEL}", check=False)  # reload if it was loaded
        launchctl("bootstrap", _domain(), str(plist_path()))
        return change.outcome

    def remove(self) -> Outcome:
        path = plist_path()
        if not path.exists():
            return Outcome.ABSENT
        if shutil.which("launchctl") is not None:
            launchctl("bootout", f"{_domain()}/{LABEL}", check=False)
        remove(path)
        return Outcome.REMOVED
