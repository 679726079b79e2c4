"""Recorded stand-ins for the scheduler programs a machine lacks (crontab, systemctl,
launchctl): each is a real executable on PATH that keeps its state in a folder and
logs every call, so tests check what clarity asked of it. Nothing else is faked.

systemctl answers as a user manager would (STANDIN_SYSTEMD_UP, set by default), or,
without it, fails every --user call as it does with no user bus; launchctl keeps
whether the agent is loaded. STANDIN_SYSTEMD_REFUSE and STANDIN_LAUNCHD_REFUSE make
`enable` and `bootstrap` fail, as a masked unit or a bad plist does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

_CRONTAB = r"""
import json, os, sys
state = os.environ["STANDIN_STATE"]
table = os.path.join(state, "crontab")
with open(os.path.join(state, "calls.jsonl"), "a") as log:
    log.write(json.dumps(["crontab", *sys.argv[1:]]) + "\n")
args = sys.argv[1:]
if args == ["-l"]:
    if not os.path.exists(table):
        sys.stderr.write("no crontab for tester\n")
        sys.exit(1)
    sys.stdout.write(open(table).read())
elif args == ["-r"]:
    if not os.path.exists(table):
        sys.stderr.write("no crontab for tester\n")
        sys.exit(1)
    os.unlink(table)
elif args == ["-"]:
    text = sys.stdin.read()
    if text and not text.endswith("\n"):
        sys.stderr.write("premature EOF\n")  # as cron does for a last line without newline
        sys.exit(1)
    open(table, "w").write(text)
else:
    sys.stderr.write("usage: crontab [-l | -r | -]\n")
    sys.exit(1)
"""

_SYSTEMCTL = r"""
import json, os, sys
state = os.environ["STANDIN_STATE"]
with open(os.path.join(state, "calls.jsonl"), "a") as log:
    log.write(json.dumps(["systemctl", *sys.argv[1:]]) + "\n")
args = sys.argv[1:]
if args[:1] == ["--user"] and not os.environ.get("STANDIN_SYSTEMD_UP"):
    sys.stderr.write("Failed to connect to bus: No medium found\n")  # as in most containers
    sys.exit(1)
command, units = (args[1], args[2:]) if len(args) > 1 else ("", [])
units = [unit for unit in units if not unit.startswith("-")]
enabled = os.path.join(state, "systemd-enabled")
if command == "enable" and os.environ.get("STANDIN_SYSTEMD_REFUSE"):
    sys.stderr.write("Failed to enable unit: Unit file clarity-plans.timer is masked.\n")
    sys.exit(1)
if command == "enable":
    open(enabled, "w").write(" ".join(units))
elif command == "disable" and os.path.exists(enabled):
    os.unlink(enabled)
elif command in ("is-enabled", "is-active"):
    on = os.path.exists(enabled) and units[0] in open(enabled).read().split()
    words = {"is-enabled": ("enabled", "disabled"), "is-active": ("active", "inactive")}
    print(words[command][0 if on else 1])
    sys.exit(0 if on else 3)
"""

_LAUNCHCTL = r"""
import json, os, sys
state = os.environ["STANDIN_STATE"]
with open(os.path.join(state, "calls.jsonl"), "a") as log:
    log.write(json.dumps(["launchctl", *sys.argv[1:]]) + "\n")
args = sys.argv[1:]
loaded = os.path.join(state, "launchd-loaded")
if args[:1] == ["bootstrap"] and os.environ.get("STANDIN_LAUNCHD_REFUSE"):
    sys.stderr.write("Bootstrap failed: 5: Input/output error\n")
    sys.exit(5)
if args[:1] == ["bootstrap"]:
    open(loaded, "w").write(args[2])
elif args[:1] == ["bootout"] and os.path.exists(loaded):
    os.unlink(loaded)
elif args[:1] == ["list"]:
    if not os.path.exists(loaded):
        sys.stderr.write('Could not find service "%s" in domain for port\n' % args[1])
        sys.exit(113)
    print('{\n\t"Label" = "%s";\n};' % args[1])
"""


@dataclass
class Standins:
    bin: Path
    state: Path

    def calls(self) -> list[list[str]]:
        log = self.state / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def crontab(self) -> str | None:
        table = self.state / "crontab"
        return table.read_text() if table.exists() else None


def _script(folder: Path, name: str, source: str) -> None:
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{source}")
    path.chmod(0o755)


@pytest.fixture
def standins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Standins]:
    """systemctl and launchctl always stand in; crontab only if the machine has none."""
    folder = tmp_path / "standin-bin"
    state = tmp_path / "standin-state"
    folder.mkdir()
    state.mkdir()
    if shutil.which("crontab") is None:
        _script(folder, "crontab", _CRONTAB)
    _script(folder, "systemctl", _SYSTEMCTL)
    _script(folder, "launchctl", _LAUNCHCTL)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_STATE", str(state))
    monkeypatch.setenv("STANDIN_SYSTEMD_UP", "1")  # a user manager runs; a test may stop it
    yield Standins(folder, state)


@pytest.fixture
def real_crontab_kept() -> Iterator[None]:
    """Where a real crontab binary edits the real user's table, put that table back after."""
    program = shutil.which("crontab")
    if program is None or "standin-bin" in program:
        yield
        return
    listed = subprocess.run([program, "-l"], capture_output=True, text=True, check=False)
    try:
        yield
    finally:
        if listed.returncode == 0:
            subprocess.run([program, "-"], input=listed.stdout, text=True, check=True)
        else:
            subprocess.run([program, "-r"], capture_output=True, check=False)
