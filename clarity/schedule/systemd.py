"""The weekly run as a systemd user timer and its service."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from clarity.errors import ClarityError
from clarity.managed import CommentStyle, Outcome, install, remove
from clarity.schedule.job import Job
from clarity.schedule.rollback import undone_on_refusal
from clarity.schedule.tool import Tool
from clarity.schedule.when import HOUR, MINUTE, WEEKDAY

UNIT = "clarity-plans"
_DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")


def unit_dir() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user"


def _specifiers(text: str) -> str:
    return text.replace("%", "%%")  # systemd expands %x in most settings


def _quoted(text: str) -> str:
    """One word in systemd.syntax(7)'s double quotes (C escapes for \\ and \")."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote(word: str) -> str:
    """One ExecStart= argument: systemd's quoting, with % and $ taken literally."""
    word = _specifiers(word).replace("$", "$$")
    if word and not re.search(r"[\s\"'\\;]", word):
        return word
    return _quoted(word)


def _executable(path: str) -> str:
    """ExecStart='s command: systemd refuses quotes and backslashes in its path, and would
    run the path as written but expand $ in the argv[0] it passes: no quoting serves both."""
    bad = sorted(set(path) & set("\"'\\$"))
    if bad:
        raise ClarityError(
            f"systemd cannot run clarity from {path}: systemd refuses or expands "
            f"{' and '.join(bad)} in a command's path; nothing was installed: install "
            "clarity in a folder without them, or use --scheduler cron"
        )
    word = _specifiers(path)
    return word if not re.search(r"[\s;]", word) else _quoted(word)


def _assignment(name: str, value: str) -> str:
    """One Environment= word: unquoted and its % specifiers expanded, but never $."""
    return _quoted(_specifiers(f"{name}={value}"))


def _log_path(log: Path) -> str:
    """The path after append:, taken literally but for % specifiers; systemd ignores the
    setting (and logs to the journal) unless the path is absolute and normalized."""
    if not log.is_absolute() or {".", ".."} & set(log.parts):
        raise ClarityError(
            f"systemd cannot append to the log file {log}: it must be an absolute path "
            "without . or .. in it; nothing was installed: set XDG_STATE_HOME to such a "
            "folder, or use --scheduler cron"
        )
    return _specifiers(str(log))


def service_text(job: Job) -> str:
    log = _log_path(job.log)
    command = [_executable(job.argv[0]), *(quote(word) for word in job.argv[1:])]
    return "\n".join(
        [
            "[Unit]",
            f"Description=clarity: weekly {job.mode.value} of Claude Code's plans directory",
            "",
            "[Service]",
            "Type=oneshot",
            *(f"Environment={_assignment(name, value)}" for name, value in job.env),
            "ExecStart=" + " ".join(command),
            f"StandardOutput=append:{log}",
            f"StandardError=append:{log}",
            "",
        ]
    )


def timer_text() -> str:
    return "\n".join(
        [
            "[Unit]",
            "Description=clarity: weekly run",
            "",
            "[Timer]",
            f"OnCalendar={_DAYS[WEEKDAY]} *-*-* {HOUR:02d}:{MINUTE:02d}:00",
            "Persistent=true",  # a run missed while the machine was off happens at boot
            "",
            "[Install]",
            "WantedBy=timers.target",
            "",
        ]
    )


SYSTEMCTL = Tool("systemctl", "systemctl is not installed; use --scheduler cron")


def systemctl(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return SYSTEMCTL.run("--user", *args, check=check, hint="; or use --scheduler cron")


def _reachable() -> None:
    """Refuse, before anything is written, where no systemd user manager would take the
    timer (a container, an ssh session without a user bus)."""
    if not SYSTEMCTL.installed():
        raise ClarityError(f"{SYSTEMCTL.missing}; nothing was installed")
    asked = systemctl("show-environment", check=False)
    if asked.returncode != 0:
        said = " ".join((asked.stderr or asked.stdout).split()) or f"exit {asked.returncode}"
        raise ClarityError(
            f"no systemd user manager to run the timer (systemctl --user: {said}); nothing "
            "was installed: use --scheduler cron, or install it from a login session in "
            "which systemctl --user works"
        )


def _reload(earlier: bool) -> None:
    """After a refused install: systemd forgets the units again (or reads the earlier ones)."""
    if SYSTEMCTL.installed():
        systemctl("daemon-reload", check=False)


def user_manager_running() -> bool:
    """Whether this user has a systemd manager to run timers (not so in most containers)."""
    if not SYSTEMCTL.installed():
        return False
    try:
        return systemctl("show-environment", check=False).returncode == 0
    except ClarityError:
        return False


class Systemd:
    name = "systemd"

    def _paths(self) -> tuple[Path, Path]:
        folder = unit_dir()
        return folder / f"{UNIT}.service", folder / f"{UNIT}.timer"

    def installed(self) -> str | None:
        texts = []
        for path in self._paths():
            if path.exists():
                texts.append(f"{path}:\n{path.read_text(encoding='utf-8', errors='replace')}")
        return "\n".join(texts) or None

    def status(self) -> str:
        timer = f"{UNIT}.timer"
        if not SYSTEMCTL.installed():
            return "written, but systemctl is not installed here: nothing runs the units"
        asked = systemctl("show-environment", check=False)
        if asked.returncode != 0:
            said = " ".join((asked.stderr or asked.stdout).split()) or f"exit {asked.returncode}"
            return (
                f"written, but systemd cannot be asked (no user manager: {said}); "
                "the timer runs only where one does"
            )
        enabled = systemctl("is-enabled", timer, check=False).stdout.strip() or "unknown"
        active = systemctl("is-active", timer, check=False).stdout.strip() or "unknown"
        if (enabled, active) == ("enabled", "active"):
            return f"{timer} is enabled and active (systemctl --user), so systemd runs it"
        return (
            f"written, but {timer} is {enabled} and {active} (systemctl --user): systemd "
            "will not run it; clarity schedule install --scheduler systemd enables it"
        )

    def install(self, job: Job) -> Outcome:
        service, timer = self._paths()
        texts = service_text(job), timer_text()  # what systemd cannot take is refused here
        _reachable()
        with undone_on_refusal((service, timer), settle=_reload):
            changes = [
                install(service, texts[0], CommentStyle.HASH),
                install(timer, texts[1], CommentStyle.HASH),
            ]
            systemctl("daemon-reload")
            systemctl("enable", "--now", f"{UNIT}.timer")
        outcomes = {change.outcome for change in changes}
        if outcomes == {Outcome.UNCHANGED}:
            return Outcome.UNCHANGED
        return Outcome.INSTALLED if outcomes == {Outcome.INSTALLED} else Outcome.UPDATED

    def remove(self) -> Outcome:
        paths = [path for path in self._paths() if path.exists()]
        if not paths:
            return Outcome.ABSENT
        if SYSTEMCTL.installed():
            systemctl("disable", "--now", f"{UNIT}.timer", check=False)  # may not be loaded
        for path in paths:
            remove(path)
        if SYSTEMCTL.installed():
            systemctl("daemon-reload", check=False)
        return Outcome.REMOVED
