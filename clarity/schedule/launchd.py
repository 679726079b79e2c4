"""The weekly run as a launchd agent (macOS)."""

from __future__ import annotations

import os
import plistlib
from pathlib import Path

from clarity.managed import CommentStyle, Outcome, install, remove
from clarity.schedule import HOUR, MINUTE, WEEKDAY
from clarity.schedule.job import Job
from clarity.schedule.tool import Tool

LABEL = "dev.clarity.plans"


def plist_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def plist_text(job: Job) -> str:
    """The agent as XML: plistlib escapes &, < and >, and launchd passes every string as
    it is (no shell, no expansion); the Job has refused what XML 1.0 cannot hold."""
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


LAUNCHCTL = Tool(
    "launchctl", "launchctl is not installed: launchd is macOS's; use --scheduler cron"
)


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
        LAUNCHCTL.run("bootout", f"{_domain()}/{LABEL}", check=False)  # reload if it was loaded
        LAUNCHCTL.run("bootstrap", _domain(), str(plist_path()))
        return change.outcome

    def remove(self) -> Outcome:
        path = plist_path()
        if not path.exists():
            return Outcome.ABSENT
        if LAUNCHCTL.installed():
            LAUNCHCTL.run("bootout", f"{_domain()}/{LABEL}", check=False)
        remove(path)
        return Outcome.REMOVED
