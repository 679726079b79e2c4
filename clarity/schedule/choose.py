"""The schedulers (cron, a systemd user timer, launchd), and which one a machine uses."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from clarity.errors import ClarityError

if TYPE_CHECKING:  # kept light: the CLI imports this module at every start
    from clarity.managed import Outcome
    from clarity.schedule.job import Job


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
    from clarity.schedule.cron import Cron
    from clarity.schedule.launchd import Launchd
    from clarity.schedule.systemd import Systemd, user_manager_running

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
    from clarity.schedule.cron import CRONTAB

    if CRONTAB.installed():
        return Cron()
    raise ClarityError(
        "no scheduler found: no systemd user manager is running and cron's crontab is not "
        "installed; install cron, or choose one with --scheduler"
    )


def every_scheduler() -> list[Scheduler]:
    from clarity.schedule.cron import Cron
    from clarity.schedule.launchd import Launchd
    from clarity.schedule.systemd import Systemd

    return [Cron(), Systemd(), Launchd()]
