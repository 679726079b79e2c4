"""The weekly run as a launchd agent (macOS)."""

from __future__ import annotations

import os
import plistlib
import sys
from pathlib import Path

from clarity.errors import ClarityError
from clarity.managed import CommentStyle, Outcome, install, remove
from clarity.schedule.job import Job
from clarity.schedule.rollback import undone_on_refusal
from clarity.schedule.tool import Tool
from clarity.schedule.when import HOUR, MINUTE, WEEKDAY

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


def _load_earlier(earlier: bool) -> None:
    """After a refused update: the earlier agent, put back, is loaded again."""
    if earlier:
        LAUNCHCTL.run("bootstrap", _domain(), str(plist_path()), check=False)


class Launchd:
    name = "launchd"

    def installed(self) -> str | None:
        path = plist_path()
        if not path.exists():
            return None
        return f"{path}:\n{path.read_text(encoding='utf-8', errors='replace')}"

    def status(self) -> str:
        if not LAUNCHCTL.installed():
            return (
                "written, but launchd is not on this system (no launchctl): nothing runs it; "
                "clarity schedule remove --scheduler launchd takes it out"
            )
        if LAUNCHCTL.run("list", LABEL, check=False).returncode == 0:
            return f"loaded (launchctl list {LABEL}), so launchd runs it"
        return (
            f"written, but not loaded (launchctl list {LABEL}): launchd will not run it; "
            "clarity schedule install --scheduler launchd loads it"
        )

    def install(self, job: Job) -> Outcome:
        text = plist_text(job)
        if not LAUNCHCTL.installed():  # before anything is written
            raise ClarityError(
                "launchd is macOS's, and launchctl is not installed here; nothing was "
                "installed: use --scheduler cron"
                + (" or systemd" if sys.platform.startswith("linux") else "")
            )
        with undone_on_refusal([plist_path()], settle=_load_earlier):
            change = install(plist_path(), text, CommentStyle.XML)
            LAUNCHCTL.run("bootout", f"{_domain()}/{LABEL}", check=False)  # reload if loaded
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
