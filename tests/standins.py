"""Recorded stand-ins for the scheduler programs a machine lacks (crontab, systemctl,
launchctl): each is a real executable on PATH that keeps its state in a folder and
logs every call, so tests check what clarity asked of it. Nothing else is faked."""

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

_RECORDER = r"""
import json, os, sys
state = os.environ["STANDIN_STATE"]
with open(os.path.join(state, "calls.jsonl"), "a") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\n")
if sys.argv[1:] == ["--user", "show-environment"] and not os.environ.get("STANDIN_SYSTEMD_UP"):
    sys.stderr.write("Failed to connect to bus: No medium found\n")
    sys.exit(1)
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
    _script(folder, "systemctl", _RECORDER)
    _script(folder, "launchctl", _RECORDER)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_STATE", str(state))
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
