"""`clarity schedule`: a weekly run through cron, a systemd user timer or launchd (SPEC 9).
Imports the shared pieces and claude_code/executable.py (how other programs run clarity).

Each scheduler writes something a person can read and `remove` takes out
again: a marked crontab block, two named units, or one named plist.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from clarity.errors import ClarityError

if TYPE_CHECKING:  # kept light: the CLI imports this module at every start
    from clarity.claude_code.schedule.job import Job
    from clarity.managed import Outcome

WEEKDAY, HOUR, MINUTE = 1, 10, 0  # Mondays at 10:00 local time (cron's weekday numbering)


class Mode(StrEnum):
    APPLY = "apply"  # apply --rescan --yes: archive and trash as the rules say
    REPORT = "report"  # only a scan, its markdown report saved in the state dir


class SchedulerName(StrEnum):
    AUTO = "auto"
    CRON = "cron"
    SYSTEMD = "systemd"
    LAUNCHD = "launchd"


class Scheduler(Protocol):
    name: str

    def installed(self) -> str | None:
        """What is installed (for people to read), or None."""
        ...

    def status(self) -> str:
        """Whether the scheduler itself has what is installed, as it says (one line)."""
        ...

    def install(self, job: Job) -> Outcome: ...

    def remove(self) -> Outcome: ...


def scheduler(name: SchedulerName) -> Scheduler:
    from clarity.claude_code.schedule.cron import Cron
    from clarity.claude_code.schedule.launchd import Launchd
    from clarity.claude_code.schedule.systemd import Systemd, user_manager_running

    if name is SchedulerName.CRON:
        return Cron()
    if name is SchedulerName.SYSTEMD:
        return Systemd()
    if name is SchedulerName.LAUNCHD:
        return Launchd()
    if sys.platform == "darwin":
        return Launchd()
    if user_manager_running():
        return Systemd()
    from clarity.claude_code.schedule.cron import CRONTAB

    if CRONTAB.installed():
        return Cron()
    raise ClarityError(
        "no scheduler found: no systemd user manager is running and cron's crontab is not "
        "installed; install cron, or choose one with --scheduler"
    )


def every_scheduler() -> list[Scheduler]:
    from clarity.claude_code.schedule.cron import Cron
    from clarity.claude_code.schedule.launchd import Launchd
    from clarity.claude_code.schedule.systemd import Systemd

    return [Cron(), Systemd(), Launchd()]
