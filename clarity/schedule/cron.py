"""The weekly run as a marked block in the user's crontab."""

from __future__ import annotations

from clarity.managed import Outcome
from clarity.schedule import HOUR, MINUTE, WEEKDAY
from clarity.schedule.job import Job
from clarity.schedule.tool import Tool

BEGIN = "# >>> clarity schedule (managed by clarity: `clarity schedule remove` takes it out) >>>"
END = "# <<< clarity schedule <<<"


CRONTAB = Tool(
    "crontab",
    "cron's crontab command is not installed; install cron, or use "
    "--scheduler systemd (Linux) or launchd (macOS)",
)


def read_crontab() -> str:
    listed = CRONTAB.run("-l", check=False)
    if listed.returncode == 0:
        return listed.stdout
    if "no crontab" in listed.stderr.lower():
        return ""  # the user has none yet
    raise CRONTAB.failed(listed)


def _write(text: str) -> None:
    if text.strip():
        CRONTAB.run("-", text=text)
    else:
        CRONTAB.run("-r")  # clarity's block was all there was


def split_block(text: str) -> tuple[list[str], list[str]]:
    """(the crontab's own lines, clarity's block) from a crontab's text."""
    own: list[str] = []
    block: list[str] = []
    inside = False
    for line in text.splitlines():
        if line == BEGIN:
            inside = True
        if inside:
            block.append(line)
        else:
            own.append(line)
        if line == END:
            inside = False
    return own, block


def block_for(job: Job) -> list[str]:
    return [BEGIN, f"{MINUTE} {HOUR} * * {WEEKDAY} {job.shell()}", END]


class Cron:
    name = "cron"

    def installed(self) -> str | None:
        if not CRONTAB.installed():
            return None
        _, block = split_block(read_crontab())
        return "\n".join(block) if block else None

    def install(self, job: Job) -> Outcome:
        own, block = split_block(read_crontab())
        wanted = block_for(job)
        if block == wanted:
            return Outcome.UNCHANGED
        _write("\n".join([*own, *wanted]) + "\n")
        return Outcome.UPDATED if block else Outcome.INSTALLED

    def remove(self) -> Outcome:
        if not CRONTAB.installed():
            return Outcome.ABSENT
        own, block = split_block(read_crontab())
        if not block:
            return Outcome.ABSENT
        _write("\n".join(own) + "\n" if own else "")
        return Outcome.REMOVED
