"""`clarity schedule`: install, show and remove with cron, systemd and launchd, and the
installed command line really runs in a scheduler's bare environment."""

from __future__ import annotations

import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import Plan, make_files
from tests.standins import Standins

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX schedulers")

USER_CRONTAB = "MAILTO=me@example.com\n# my backups\n17 3 * * * /usr/local/bin/backup --quiet\n"
CRON_BEGIN = "# >>> clarity schedule"
CRON_END = "# <<< clarity schedule <<<"


def crontab(*args: str, text: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["crontab", *args], input=text, capture_output=True, text=True, check=False
    )


def crontab_text() -> str:
    listed = crontab("-l")
    return listed.stdout if listed.returncode == 0 else ""


@pytest.fixture
def plans(plans_dir: Path) -> Path:
    """Plans aged against the real clock: the scheduled run classifies as of now."""
    make_files(
        plans_dir,
        {
            "done.md": Plan("# Cache layer COMPLETED\n\nAdded the cache.\n", 20),
            "stub.md": Plan("# Quick idea\n", 10),
            "live.md": Plan("# Working on it\n", 0),
        },
        now=datetime.now(UTC),
    )
    return plans_dir


def bare_env(home: Path) -> dict[str, str]:
    """Roughly what cron, systemd and launchd give a job: HOME, a short PATH, no XDG."""
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C"}


def run_line(shell_line: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", shell_line],
        env=bare_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def state(home: Path) -> Path:
    return home / ".local" / "state" / "clarity"


def test_cron_install_show_remove_keeps_the_users_own_lines(
    cli, standins: Standins, real_crontab_kept, plans: Path
):
    assert crontab("-", text=USER_CRONTAB).returncode == 0

    installed = cli("schedule", "install", "--scheduler", "cron", "--plans-dir", str(plans))

    assert installed.exit_code == 0, installed.stderr
    assert "installed: a weekly apply with cron, Mondays at 10:00" in installed.stdout
    table = crontab_text()
    assert table.startswith(USER_CRONTAB)
    block = table[len(USER_CRONTAB) :].splitlines()
    assert block[0].startswith(CRON_BEGIN) and block[-1] == CRON_END and len(block) == 3
    fields = block[1].split(" ", 5)
    assert fields[:5] == ["0", "10", "*", "*", "1"]
    words = shlex.split(fields[5])
    command = [word for word in words if "=" not in word or word.startswith("/")]
    assert Path(command[0]).is_absolute()
    assert command[command.index("apply") :][:3] == ["apply", "--rescan", "--yes"]
    assert ["--plans-dir", str(plans)] == words[words.index("--plans-dir") :][:2]
    assert words[-3:] == [">>", str(state(Path.home()) / "schedule.log"), "2>&1"]

    again = cli("schedule", "install", "--scheduler", "cron", "--plans-dir", str(plans))
    assert "already installed, unchanged" in again.stdout
    assert crontab_text() == table

    shown = cli("schedule", "show")
    assert shown.exit_code == 0
    assert "cron:" in shown.stdout and block[1] in shown.stdout

    removed = cli("schedule", "remove")
    assert "removed the clarity schedule from cron" in removed.stdout
    assert crontab_text() == USER_CRONTAB
    assert "no clarity schedule was installed" in cli("schedule", "remove").stdout
    assert "no clarity schedule is installed" in cli("schedule", "show").stdout


def test_the_cron_line_runs_in_crons_bare_environment(
    cli,
    standins: Standins,
    real_crontab_kept,
    plans: Path,
    isolated_home: Path,
    tmp_path,
    monkeypatch,
):
    # The user keeps clarity's state somewhere cron would not look by itself.
    custom_state = tmp_path / "my-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(custom_state))
    cli("schedule", "install", "--scheduler", "cron", "--plans-dir", str(plans))
    line = next(row for row in crontab_text().splitlines() if row.startswith("0 10 "))

    ran = run_line(line.split(" ", 5)[5], isolated_home)

    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["live.md"]
    log = (custom_state / "clarity" / "schedule.log").read_text()
    assert "archived  done.md" in log and "trashed   stub.md" in log
    # The run used the user's state dir: their own clarity undo finds it.
    undone = cli("undo", "--plans-dir", str(plans), "--yes")
    assert undone.exit_code == 0, undone.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["done.md", "live.md", "stub.md"]
    cli("schedule", "remove", "--scheduler", "cron")


def test_report_mode_only_scans_and_saves_the_markdown_report(
    cli, standins: Standins, real_crontab_kept, plans: Path, isolated_home: Path
):
    installed = cli(
        "schedule", "install", "--scheduler", "cron", "--mode", "report", "--plans-dir", str(plans)
    )
    assert installed.exit_code == 0, installed.stderr
    report = state(isolated_home) / "report.md"
    assert f"report: {report}" in installed.stdout
    line = next(row for row in crontab_text().splitlines() if row.startswith("0 10 "))
    assert " scan --format markdown --output " in line and " apply" not in line

    ran = run_line(line.split(" ", 5)[5], isolated_home)

    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["done.md", "live.md", "stub.md"]
    assert report.read_text().startswith(f"## clarity: Plans in {plans}")
    assert "`done.md`" in report.read_text()
    cli("schedule", "remove")


def systemd_words(line: str) -> list[str]:
    """An ExecStart= or Environment= value as systemd splits it (for our quoting)."""
    return [word.replace("$$", "$").replace("%%", "%") for word in shlex.split(line)]


def test_systemd_units_install_show_run_and_remove(
    cli, standins: Standins, plans: Path, isolated_home: Path
):
    result = cli("schedule", "install", "--scheduler", "systemd", "--plans-dir", str(plans))

    assert result.exit_code == 0, result.stderr
    units = isolated_home / ".config" / "systemd" / "user"
    service = (units / "clarity-plans.service").read_text()
    timer = (units / "clarity-plans.timer").read_text()
    assert "OnCalendar=Mon *-*-* 10:00:00" in timer and "WantedBy=timers.target" in timer
    assert ["systemctl", "--user", "enable", "--now", "clarity-plans.timer"] in standins.calls()
    assert ["systemctl", "--user", "daemon-reload"] in standins.calls()
    log = state(isolated_home) / "schedule.log"
    assert f"StandardOutput=append:{log}" in service

    exec_start = re.search(r"^ExecStart=(.*)$", service, re.MULTILINE)
    assert exec_start is not None
    argv = systemd_words(exec_start.group(1))
    assert Path(argv[0]).is_absolute()
    env = dict(
        word.split("=", 1)
        for line in re.findall(r"^Environment=(.*)$", service, re.MULTILINE)
        for word in systemd_words(line)
    )
    assert env["XDG_STATE_HOME"] == str(isolated_home / ".local" / "state")
    ran = subprocess.run(
        argv, env={**bare_env(isolated_home), **env}, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["live.md"]

    again = cli("schedule", "install", "--scheduler", "systemd", "--plans-dir", str(plans))
    assert "already installed, unchanged" in again.stdout
    assert "clarity-plans.service" in cli("schedule", "show").stdout

    removed = cli("schedule", "remove", "--scheduler", "systemd")
    assert "removed the clarity schedule from systemd" in removed.stdout
    assert not (units / "clarity-plans.service").exists()
    assert not (units / "clarity-plans.timer").exists()
    assert ["systemctl", "--user", "disable", "--now", "clarity-plans.timer"] in standins.calls()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_timers_calendar(cli, standins: Standins, plans: Path, isolated_home):
    cli("schedule", "install", "--scheduler", "systemd", "--plans-dir", str(plans))
    timer = (isolated_home / ".config" / "systemd" / "user" / "clarity-plans.timer").read_text()
    calendar = re.search(r"^OnCalendar=(.*)$", timer, re.MULTILINE)
    assert calendar is not None
    checked = subprocess.run(
        ["/usr/bin/systemd-analyze", "calendar", calendar.group(1)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    assert "Mon *-*-* 10:00:00" in checked.stdout


def test_an_edited_unit_is_not_clobbered(cli, standins: Standins, plans: Path, isolated_home):
    cli("schedule", "install", "--scheduler", "systemd", "--plans-dir", str(plans))
    timer = isolated_home / ".config" / "systemd" / "user" / "clarity-plans.timer"
    timer.write_text(timer.read_text().replace("10:00:00", "07:30:00"))

    refused = cli("schedule", "install", "--scheduler", "systemd", "--plans-dir", str(plans))

    assert refused.exit_code == 2
    assert "was changed since clarity wrote it" in refused.stderr
    assert "07:30:00" in timer.read_text()


def test_launchd_plist_install_show_run_and_remove(
    cli, standins: Standins, plans: Path, isolated_home: Path
):
    result = cli("schedule", "install", "--scheduler", "launchd", "--plans-dir", str(plans))

    assert result.exit_code == 0, result.stderr
    path = isolated_home / "Library" / "LaunchAgents" / "dev.clarity.plans.plist"
    agent = plistlib.loads(path.read_bytes())
    assert agent["Label"] == "dev.clarity.plans"
    assert agent["StartCalendarInterval"] == {"Weekday": 1, "Hour": 10, "Minute": 0}
    assert agent["StandardOutPath"] == str(state(isolated_home) / "schedule.log")
    argv = agent["ProgramArguments"]
    assert Path(argv[0]).is_absolute() and "apply" in argv
    domain = f"gui/{os.getuid()}"
    assert ["launchctl", "bootstrap", domain, str(path)] in standins.calls()

    ran = subprocess.run(
        argv,
        env={**bare_env(isolated_home), **agent.get("EnvironmentVariables", {})},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["live.md"]
    assert "launchd:" in cli("schedule", "show").stdout

    assert "from launchd" in cli("schedule", "remove").stdout
    assert not path.exists()
    assert ["launchctl", "bootout", f"{domain}/dev.clarity.plans"] in standins.calls()


@pytest.mark.skipif(sys.platform == "darwin", reason="auto is launchd on macOS")
def test_auto_picks_a_running_systemd_user_manager_else_cron(
    cli, standins: Standins, real_crontab_kept, plans: Path, monkeypatch
):
    chose_cron = cli("schedule", "install", "--plans-dir", str(plans))
    assert "with cron" in chose_cron.stdout
    cli("schedule", "remove")

    monkeypatch.setenv("STANDIN_SYSTEMD_UP", "1")
    chose_systemd = cli("schedule", "install", "--plans-dir", str(plans))
    assert "with systemd" in chose_systemd.stdout
    cli("schedule", "remove")


def test_no_scheduler_at_all_is_one_line(cli, plans: Path, tmp_path: Path, monkeypatch):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))

    result = cli("schedule", "install", "--plans-dir", str(plans))

    if sys.platform != "darwin":
        assert result.exit_code == 2
        assert "no scheduler found" in result.stderr
        assert len(result.stderr.splitlines()) == 1


def test_a_missing_plans_dir_installs_nothing(cli, standins: Standins, tmp_path: Path):
    result = cli("schedule", "install", "--scheduler", "cron", "--plans-dir", str(tmp_path / "no"))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr
    assert crontab("-l").returncode != 0 or CRON_BEGIN not in crontab_text()
