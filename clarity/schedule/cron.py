"""The weekly run as a marked block in the user's crontab."""

from __future__ import annotations

import shutil
import subprocess

from clarity.errors import ClarityError
from clarity.managed import Outcome
from clarity.schedule import HOUR, MINUTE, WEEKDAY
from clarity.schedule.job import Job

BEGIN = "# >>> clarity schedule (managed by clarity: `clarity schedule remove` takes it out) >>>"
END = "# <<< clarity schedule <<<"


def _crontab(*args: str, text: str | None = None) -> subprocess.CompletedProcess[str]:
    program = shutil.which("crontab")
    if program is None:
        raise ClarityError(
            "cron's crontab command is not installed; install cron, or use "
            "--scheduler systemd (Linux) or launchd (macOS)"
        )
    try:
        return subprocess.run(
            [program, *args], input=text, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ClarityError(f"crontab {' '.join(args)} failed: {error}") from None


def _failed(what: str, done: subprocess.CompletedProcess[str]) -> ClarityError:
    said = " ".join((done.stderr or done.stdout).split()) or f"exit status {done.returncode}"
    return ClarityError(f"crontab {what} failed: {said}")


def read_crontab() -> str:
    listed = _crontab("-l")
    if listed.returncode == 0:
        return listed.stdout
    if "no crontab" in listed.stderr.lower():
        return ""
    raise _failed("-l", listed)


def _write(text: str) -> None:
    done = _crontab("-", text=text) if text.strip() else _crontab("-r")
    if done.returncode != 0 and not (not text.strip() and "no crontab" in done.stderr.lower()):
        raise _failed("-" if text.strip() else "-r", done)


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
        if shutil.which("crontab") is None:
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
        if shutil.which("crontab") is None:
            return Outcome.ABSENT
        own, block = split_block(read_crontab())
        if not block:
            return Outcome.ABSENT
        _write("\n".join(own) + "\n" if own else "")
        return Outcome.REMOVED
