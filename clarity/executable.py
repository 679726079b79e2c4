"""How other programs (Claude Code, cron, systemd, launchd) should run this clarity."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

SCRIPT_NAMES = ("clarity", "clarity.exe")


def clarity_argv() -> list[str]:
    """The absolute command that runs the clarity now running, from any directory.

    The console script when that is how clarity was started; otherwise
    (`python -m clarity`, tests) this interpreter with `-m clarity`.
    """
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name in SCRIPT_NAMES and script.is_file():
        return [os.path.abspath(script)]  # noqa: PTH100 (keep a venv's link, don't resolve it)
    return [os.path.abspath(sys.executable), "-m", "clarity"]  # noqa: PTH100 (same)


def shell_command() -> str:
    """clarity as a shell command: plain `clarity` when PATH finds this very one."""
    argv = clarity_argv()
    found = shutil.which("clarity")
    if len(argv) == 1 and found and os.path.realpath(found) == os.path.realpath(argv[0]):
        return "clarity"
    return shlex.join(argv)


def unsafe_character(value: str, also: str = "") -> str | None:
    """The first character of value that a file another program reads (a crontab line, a
    unit, a plist, settings.json, a skill) cannot carry as it is: a control character,
    which would end or break the line, or one of `also`; None when there is none."""
    return next((ch for ch in value if not ch.isprintable() or ch in also), None)
