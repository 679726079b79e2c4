"""The weekly run as a marked block in the user's crontab."""

from __future__ import annotations

import shlex

from clarity.errors import ClarityError
from clarity.managed import Outcome
from clarity.schedule.job import Job
from clarity.schedule.tool import Tool
from clarity.schedule.when import HOUR, MINUTE, WEEKDAY

# Vixie/ISC cron (Debian, Ubuntu, macOS, the BSDs) reads at most this many bytes of a
# command and silently drops the rest: a cut line could run without its last options.
MAX_COMMAND = 999

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


def cron_word(word: str) -> str:
    """word for the /bin/sh that cron hands a line to. Cron first ends the command at an
    unescaped % (the rest becomes stdin) and turns \\% into %: so each % is written \\%
    between sh-quoted pieces, where its backslash cannot pair with one of the word's own."""
    return "\\%".join(shlex.quote(piece) for piece in word.split("%"))


def command_for(job: Job) -> str:
    command = job.shell(cron_word)
    size = len(command.encode("utf-8"))
    if size > MAX_COMMAND:
        raise ClarityError(
            f"the cron command would be {size} bytes, and cron reads only {MAX_COMMAND} "
            "(it silently cuts the rest); nothing was installed: use shorter paths "
            "(the plans, archive and state dirs, and where clarity is installed), "
            "or --scheduler systemd"
        )
    return command


def block_for(job: Job) -> list[str]:
    return [BEGIN, f"{MINUTE} {HOUR} * * {WEEKDAY} {command_for(job)}", END]


class Cron:
    name = "cron"

    def installed(self) -> str | None:
        if not CRONTAB.installed():
            return None
        _, block = split_block(read_crontab())
        return "\n".join(block) if block else None

    def status(self) -> str:
        return "in your crontab (crontab -l lists it), so cron runs it"

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
