"""`clarity schedule`: install, show and remove with cron, systemd and launchd, and the
installed command line really runs in a scheduler's bare environment."""

from __future__ import annotations

import json
import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.builders.files import Plan, make_files
from tests.builders.scheduler_syntax import (
    CRON_MAX_COMMAND,
    cron_command,
    read_service,
    recorded,
    systemd_reads,
    write_recorder,
)
from tests.builders.standins import Standins

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
    assert " scan --no-record --format markdown --output " in line and " apply" not in line

    ran = run_line(line.split(" ", 5)[5], isolated_home)

    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["done.md", "live.md", "stub.md"]
    assert report.read_text().startswith(f"## clarity: Plans in {plans}")
    assert "`done.md`" in report.read_text()
    cli("schedule", "remove")


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

    read = read_service(service)
    argv, env = read.argv, read.env
    assert Path(argv[0]).is_absolute()
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
    monkeypatch.delenv("STANDIN_SYSTEMD_UP")
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


# Hostile values (issue 16): a plans dir can come from a cloned repository's
# .claude/settings.json, and any path or variable can hold what a scheduler reads as
# syntax. Control characters are refused before anything is written; everything
# else reaches the scheduled run byte for byte, and nothing it holds is run.

CONTROL = {
    "newline": "\n",
    "CR": "\r",
    "ESC": "\x1b[31m",
    "tab": "\t",
    "DEL": "\x7f",
    "C1 NEL": "\x85",
    "line separator": "\u2028",
}
PRINTABLE = {
    "single quote": "it's",
    "double quote": 'say "hi"',
    "backslash": "back\\slash",
    "trailing backslash": "ends\\",
    "percent": "100% done",
    "backslash percent": "a\\%b",
    "specifiers": "%%n%h%",
    "command substitution": "$(touch PWNED)",
    "backticks": "`touch PWNED`",
    "semicolon": "a; touch PWNED;",
    "spaces": " two  spaces ",
    "dollar HOME": "$HOME",
    "dollar braces": "${HOME}x",
    "double dollar": "$$",
    "non-ASCII": "plans-é日本🙂",
    "glob, comment, tilde": "#*?[a]~!&|<>",
}
SCHEDULERS = ("cron", "systemd", "launchd")
CARRIED = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
SLOTS = ("--plans-dir", "--archive-dir", *CARRIED, "CLAUDE_CONFIG_DIR", "CLARITY_AGENT_MODEL")


class Setup:
    """A `schedule install --mode report` whose every path and carried variable can hold
    a hostile value, and what the scheduled run must then receive."""

    def __init__(self, base: Path, monkeypatch, value: str, slots: tuple[str, ...]) -> None:
        def name(slot: str) -> str:
            return value if slot in slots else "plain"

        self.plans = base / "p" / name("--plans-dir")
        self.plans.mkdir(parents=True)
        archive = base / "a" / name("--archive-dir")
        self.env: dict[str, str] = {}
        for variable, folder in zip((*CARRIED, "CLAUDE_CONFIG_DIR"), "csdkh", strict=True):
            self.env[variable] = str(base / folder / name(variable))
        self.env["CLARITY_AGENT_MODEL"] = name("CLARITY_AGENT_MODEL")
        self.env["CLARITY_STALE_DAYS"] = "30"
        for variable, text in self.env.items():
            monkeypatch.setenv(variable, text)
        state = Path(self.env["XDG_STATE_HOME"]) / "clarity"
        self.log = state / "schedule.log"
        report = state / "report.md"
        archive_words = ["--archive-dir", str(archive)]
        self.options = ["--mode", "report", "--plans-dir", str(self.plans), *archive_words]
        self.argv = ["scan", "--no-record", "--format", "markdown", "--output", str(report)]
        self.argv += ["--plans-dir", str(self.plans), *archive_words]
        self.unit_dir = Path(self.env["XDG_CONFIG_HOME"]) / "systemd" / "user"


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path: cron reads at most 999 bytes of a command, and pytest's
    tmp_path is some 70 before a test adds its own."""
    folder = Path(tempfile.mkdtemp(prefix="cl-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def stand_in_for_clarity(folder: Path, monkeypatch) -> tuple[Path, Path]:
    """clarity as the schedule will name it: a recorder at folder/clarity, started as
    the console script would be (its argv[0])."""
    record = folder.parent / "record.json"
    script = write_recorder(folder / "clarity", record)
    monkeypatch.setattr(sys, "argv", [str(script)])
    return script, record


def plist_file(home: Path) -> Path:
    return home / "Library" / "LaunchAgents" / "dev.clarity.plans.plist"


def run_as_scheduled(scheduler: str, setup: Setup, home: Path) -> subprocess.CompletedProcess[str]:
    """Run what was installed the way the scheduler would run it."""
    if scheduler == "cron":
        line = next(row for row in crontab_text().splitlines() if row.startswith("0 10 "))
        command, stdin = cron_command(line)
        assert stdin == "", f"cron would cut the command at an unescaped %: {line!r}"
        assert len(command.encode()) <= CRON_MAX_COMMAND
        return subprocess.run(
            ["/bin/sh", "-c", command],
            env=bare_env(home),
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    if scheduler == "systemd":
        text = (setup.unit_dir / "clarity-plans.service").read_text(encoding="utf-8")
        service = read_service(text)
        own = systemd_reads(text)
        if own is not None:  # systemd's own parser agrees with the reference reading
            assert own.warnings == []
            assert (own.argv, own.env, own.stdout) == (service.argv, service.env, service.stdout)
        argv, env, out, err = service.argv, service.env, service.stdout, service.stderr
    else:
        agent = plistlib.loads(plist_file(home).read_bytes())
        argv, env = agent["ProgramArguments"], agent.get("EnvironmentVariables", {})
        out, err = agent["StandardOutPath"], agent["StandardErrorPath"]
    assert out == err == str(setup.log)
    with Path(out).open("a") as log:
        return subprocess.run(
            argv,
            env={**bare_env(home), **env},
            cwd=home,
            stdout=log,
            stderr=log,
            text=True,
            timeout=120,
            check=False,
        )


def assert_arrived_exactly(setup: Setup, script: Path, record: Path, *roots: Path) -> None:
    argv, env = recorded(record)
    assert argv == [os.fsencode(word) for word in (str(script), *setup.argv)]
    for variable, text in setup.env.items():
        assert env.get(os.fsencode(variable)) == os.fsencode(text), variable
    assert "clarity stand-in ran" in setup.log.read_text(encoding="utf-8")
    assert not [path for root in roots for path in root.rglob("PWNED")]


def installed_files(*roots: Path) -> list[Path]:
    """Any systemd unit or launchd plist of clarity's under roots."""
    patterns = ("clarity-plans.*", "dev.clarity.plans.plist")
    return [path for root in roots for pattern in patterns for path in root.rglob(pattern)]


def nothing_installed(standins: Standins, *roots: Path) -> bool:
    """No crontab written, no scheduler asked to load anything, no unit or plist."""
    calls = standins.calls()
    written = [call for call in calls if call[:2] in (["crontab", "-"], ["crontab", "-r"])]
    asked = (["systemctl", "--user", "show-environment"],)  # whether it can: changes nothing
    loaded = [call for call in calls if call[0] in ("systemctl", "launchctl")]
    loaded = [call for call in loaded if call not in asked]
    return (
        not written
        and not loaded
        and not installed_files(*roots)
        and (CRON_BEGIN not in crontab_text())
    )


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("value", PRINTABLE.values(), ids=PRINTABLE.keys())
def test_a_hostile_but_printable_value_reaches_the_run_exactly(
    scheduler: str,
    value: str,
    cli,
    standins: Standins,
    real_crontab_kept,
    short_tmp: Path,
    isolated_home: Path,
    monkeypatch,
):
    setup = Setup(short_tmp, monkeypatch, value, SLOTS)
    # clarity's own path too, where the scheduler can run it (systemd refuses quotes,
    # backslashes and $ in the executable's path: tested below)
    in_path = scheduler != "systemd" or not set(value) & set("\"'\\$")
    script, record = stand_in_for_clarity(
        short_tmp / "bïn" / (value if in_path else "x"), monkeypatch
    )

    installed = cli("schedule", "install", "--scheduler", scheduler, *setup.options)

    assert installed.exit_code == 0, installed.stderr
    ran = run_as_scheduled(scheduler, setup, isolated_home)
    assert ran.returncode == 0, ran.stderr
    assert_arrived_exactly(setup, script, record, short_tmp, isolated_home)
    assert cli("schedule", "remove").exit_code == 0
    assert not installed_files(short_tmp, isolated_home) and CRON_BEGIN not in crontab_text()


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("slot", SLOTS)
def test_a_control_character_anywhere_is_refused_and_nothing_is_installed(
    scheduler: str,
    slot: str,
    cli,
    standins: Standins,
    real_crontab_kept,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch,
):
    for case, char in CONTROL.items():
        setup = Setup(tmp_path / case, monkeypatch, f"bad{char}name", (slot,))

        refused = cli("schedule", "install", "--scheduler", scheduler, *setup.options)

        assert refused.exit_code == 2, (case, refused.stdout, refused.stderr)
        assert refused.stdout == ""
        [line] = refused.stderr.splitlines()
        assert line.startswith("clarity: error: ") and slot in line, line
        assert ascii(char)[1:-1].split("[")[0] in line, line  # the character, escaped
        assert "control character" in line
        if slot == "XDG_STATE_HOME":
            assert not Path(setup.env[slot]).exists()  # not even the state dir
    assert nothing_installed(standins, tmp_path, isolated_home)


def test_a_plans_directory_from_a_cloned_repository_cannot_add_a_cron_line(
    cli, standins: Standins, real_crontab_kept, tmp_path: Path, monkeypatch
):
    project = tmp_path / "cloned"
    hostile = "plans\n* * * * * touch PWNED\n"
    (project / hostile).mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"plansDirectory": hostile}))
    monkeypatch.chdir(project)
    assert crontab("-", text=USER_CRONTAB).returncode == 0

    # named, the folder would be in the line: refused
    refused = cli(
        "schedule", "install", "--scheduler", "cron", "--plans-dir", str(project / hostile)
    )

    assert refused.exit_code == 2
    assert len(refused.stderr.splitlines()) == 1
    assert "plans dir" in refused.stderr and "\\n" in refused.stderr
    assert crontab_text() == USER_CRONTAB

    # found by --all at each run, it never is (issue 33): one line, no job of its own
    installed = cli("schedule", "install", "--scheduler", "cron")
    assert installed.exit_code == 0, installed.stderr
    block = crontab_text()[len(USER_CRONTAB) :].splitlines()
    assert len(block) == 3 and "PWNED" not in "".join(block) and "--all" in block[1]


@pytest.mark.parametrize("char", ["'", '"', "\\", "$"])
def test_systemd_refuses_an_executable_path_it_would_misread(
    char: str, cli, standins: Standins, tmp_path: Path, monkeypatch, isolated_home: Path
):
    setup = Setup(tmp_path, monkeypatch, "plain", ())
    stand_in_for_clarity(tmp_path / f"bin{char}dir", monkeypatch)

    refused = cli("schedule", "install", "--scheduler", "systemd", *setup.options)

    assert refused.exit_code == 2
    [line] = refused.stderr.splitlines()
    assert "systemd" in line and f"bin{char}dir" in line
    assert nothing_installed(standins, tmp_path, isolated_home)


def test_systemd_refuses_a_log_path_it_would_not_normalize(
    cli, standins: Standins, tmp_path: Path, monkeypatch, isolated_home: Path
):
    setup = Setup(tmp_path, monkeypatch, "plain", ())
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state" / ".." / "state"))

    refused = cli("schedule", "install", "--scheduler", "systemd", *setup.options)

    assert refused.exit_code == 2
    [line] = refused.stderr.splitlines()
    assert "schedule.log" in line and ".." in line
    assert nothing_installed(standins, tmp_path, isolated_home)


def test_a_cron_line_cron_would_cut_short_is_refused(
    cli, standins: Standins, real_crontab_kept, tmp_path: Path, monkeypatch
):
    plans = tmp_path.joinpath(*["a-long-folder-name-" * 10] * 6)
    plans.mkdir(parents=True)
    assert crontab("-", text=USER_CRONTAB).returncode == 0

    refused = cli("schedule", "install", "--scheduler", "cron", "--plans-dir", str(plans))

    assert refused.exit_code == 2
    assert len(refused.stderr.splitlines()) == 1
    assert "cron" in refused.stderr and str(CRON_MAX_COMMAND) in refused.stderr
    assert crontab_text() == USER_CRONTAB


@pytest.mark.skipif(sys.platform != "linux", reason="systemd's own parser")
def test_systemds_own_parser_reads_a_tricky_service_as_the_reference_reader_does():
    text = (
        "[Service]\nType=oneshot\n"
        'Environment="A=it\'s $$ 100%% \\"q\\" \\\\ é"\n'
        'ExecStart="/bin/my dir/echo" "a b" $$HOME "50%%" "\\\\" "" ";" `x`\n'
        'StandardOutput=append:/tmp/a b/it\'s "q" $HOME 100%%/log\n'
        "StandardError=append:/tmp/log\n"
    )
    own = systemd_reads(text)
    if own is None:
        pytest.skip("systemd's test mode cannot run here")
    reference = read_service(text)
    assert own.warnings == []
    assert (
        own.argv
        == reference.argv
        == ["/bin/my dir/echo", "a b", "$HOME", "50%", "\\", "", ";", "`x`"]
    )
    assert own.env == reference.env == {"A": 'it\'s $$ 100% "q" \\ é'}
    assert own.stdout == reference.stdout == '/tmp/a b/it\'s "q" $HOME 100%/log'


# The user's CLARITY_* settings (SPEC 7: env beats the config file) hold in the scheduled
# run too. Not carried: the plans and archive dirs (the command names them, absolute),
# CLARITY_CURRENT_PLAN (one session's plan, not next week's), and the knobs for a
# person at a terminal or a test (CLARITY_DEBUG, CLARITY_LOCK_WAIT, CLARITY_PROGRESS_DELAY).
SETTINGS_ENV = {
    "CLARITY_STALE_DAYS": "30",
    "CLARITY_STALE_BYTES": "4096",
    "CLARITY_DORMANT_DAYS": "40",
    "CLARITY_MARKERS": "FINI,-- Done",
    "CLARITY_PROTECT_HOURS": "12",
    "CLARITY_KEEP_DAYS": "10",
    "CLARITY_AGENT": "no",
    "CLARITY_AGENT_MODEL": "claude-haiku-5-5",
    "CLARITY_AGENT_BUDGET": "1000",
    "CLARITY_AGENT_PLAN_BYTES": "5000",
    "CLARITY_AGENT_ARCHIVES": "no",
    "CLARITY_AGENT_MIN_CONFIDENCE": "0.9",
    "CLARITY_CLAUDE_CONFIG_DIRS": "/nonexistent/claude-work",
}
NOT_CARRIED_ENV = {
    "CLARITY_PLANS_DIR": "somewhere/else",
    "CLARITY_ARCHIVE_DIR": "somewhere/else-archive",
    "CLARITY_CURRENT_PLAN": "live.md",
    "CLARITY_DEBUG": "1",
    "CLARITY_LOCK_WAIT": "5",
    "CLARITY_PROGRESS_DELAY": "0",
}


def test_every_setting_clarity_reads_from_the_environment_is_listed_here():
    from clarity.settings.config import KEYS

    every = {key.env for key in KEYS.values()}
    assert every == set(SETTINGS_ENV) | {"CLARITY_PLANS_DIR", "CLARITY_ARCHIVE_DIR"}


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_the_users_clarity_settings_reach_the_scheduled_run(
    scheduler: str,
    cli,
    standins: Standins,
    real_crontab_kept,
    short_tmp: Path,
    isolated_home: Path,
    monkeypatch,
):
    setup = Setup(short_tmp, monkeypatch, "plain", ())
    for variable, text in {**SETTINGS_ENV, **NOT_CARRIED_ENV}.items():
        monkeypatch.setenv(variable, text)
    _, record = stand_in_for_clarity(short_tmp / "bin", monkeypatch)

    installed = cli("schedule", "install", "--scheduler", scheduler, *setup.options)

    assert installed.exit_code == 0, installed.stderr
    assert run_as_scheduled(scheduler, setup, isolated_home).returncode == 0
    argv, env = recorded(record)
    assert argv[1:] == [os.fsencode(word) for word in setup.argv]
    carried = {name: value for name, value in env.items() if name.startswith(b"CLARITY_")}
    assert carried == {name.encode(): value.encode() for name, value in SETTINGS_ENV.items()}


def test_a_scheduled_run_classifies_with_the_users_stale_days(
    cli, standins: Standins, real_crontab_kept, plans: Path, isolated_home: Path, monkeypatch
):
    monkeypatch.setenv("CLARITY_STALE_DAYS", "30")  # stub.md, 10 days old, is not stale yet
    cli("schedule", "install", "--scheduler", "cron", "--plans-dir", str(plans))
    line = next(row for row in crontab_text().splitlines() if row.startswith("0 10 "))

    ran = run_line(cron_command(line)[0], isolated_home)

    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in plans.iterdir()) == ["live.md", "stub.md"]
    cli("schedule", "remove")


# Issue 17, item 1: an install the scheduler refuses leaves nothing behind (no unit, no
# plist, no state folder), and `schedule show` says whether the scheduler has the job.


def left_behind(home: Path) -> list[Path]:
    """Anything under home but the work dir the tests start in."""
    return sorted(path for path in home.rglob("*") if path != home / "work")


@pytest.mark.parametrize("refusal", ["no user bus", "no launchctl"])
def test_a_scheduler_that_cannot_take_the_job_is_refused_before_anything_is_written(
    refusal: str, cli, standins: Standins, plans: Path, isolated_home: Path, monkeypatch
):
    if refusal == "no user bus":
        monkeypatch.delenv("STANDIN_SYSTEMD_UP")
        scheduler, said = "systemd", "no systemd user manager to run the timer"
    else:
        (standins.bin / "launchctl").unlink()  # as on Linux
        scheduler, said = "launchd", "launchd is macOS's"

    refused = cli("schedule", "install", "--scheduler", scheduler, "--plans-dir", str(plans))

    assert refused.exit_code == 2
    [line] = refused.stderr.splitlines()
    assert line.startswith(f"clarity: error: {said}") and "nothing was installed" in line
    assert "--scheduler cron" in line  # what to do instead
    assert left_behind(isolated_home) == []  # no unit, no plist, not even the state folder
    assert nothing_installed(standins, isolated_home)
    assert "no clarity schedule is installed" in cli("schedule", "show").stdout


@pytest.mark.parametrize("scheduler", ["systemd", "launchd"])
def test_a_scheduler_that_refuses_the_job_after_it_is_written_gets_nothing_left(
    scheduler: str, cli, standins: Standins, plans: Path, isolated_home: Path, monkeypatch
):
    monkeypatch.setenv(f"STANDIN_{scheduler.upper()}_REFUSE", "1")

    refused = cli("schedule", "install", "--scheduler", scheduler, "--plans-dir", str(plans))

    assert refused.exit_code == 2
    [line] = refused.stderr.splitlines()
    assert "failed" in line and line.endswith("; nothing was installed")
    assert left_behind(isolated_home) == []
    assert "no clarity schedule is installed" in cli("schedule", "show").stdout


@pytest.mark.parametrize("scheduler", ["systemd", "launchd"])
def test_a_refused_update_leaves_the_earlier_schedule_as_it_was(
    scheduler: str, cli, standins: Standins, plans: Path, isolated_home: Path, monkeypatch
):
    assert (
        cli("schedule", "install", "--scheduler", scheduler, "--plans-dir", str(plans)).exit_code
        == 0
    )
    before = {path: path.read_bytes() for path in left_behind(isolated_home) if path.is_file()}
    monkeypatch.setenv(f"STANDIN_{scheduler.upper()}_REFUSE", "1")

    refused = cli(
        "schedule", "install", "--scheduler", scheduler, "--mode", "report",
        "--plans-dir", str(plans),
    )  # fmt: skip

    assert refused.exit_code == 2
    assert refused.stderr.rstrip().endswith("; the schedule was left as it was")
    after = {path: path.read_bytes() for path in left_behind(isolated_home) if path.is_file()}
    assert after == before
    if scheduler == "launchd":  # the earlier agent is loaded again
        assert standins.calls()[-1][:2] == ["launchctl", "bootstrap"]
    else:  # systemd reads the earlier units again
        assert standins.calls()[-1] == ["systemctl", "--user", "daemon-reload"]


def test_show_says_whether_each_scheduler_has_the_job(
    cli, standins: Standins, real_crontab_kept, plans: Path, monkeypatch
):
    for scheduler in SCHEDULERS:
        installed = cli("schedule", "install", "--scheduler", scheduler, "--plans-dir", str(plans))
        assert installed.exit_code == 0, installed.stderr

    shown = cli("schedule", "show")

    assert shown.exit_code == 0, shown.stderr
    heads = [line for line in shown.stdout.splitlines() if line.startswith(SCHEDULERS)]
    assert heads == [
        "cron: in your crontab (crontab -l lists it), so cron runs it",
        "systemd: clarity-plans.timer is enabled and active (systemctl --user), so systemd runs it",
        "launchd: loaded (launchctl list dev.clarity.plans), so launchd runs it",
    ]

    # The schedulers lose the job (or the means to ask them): show says so.
    for program, *args in (
        ["systemctl", "--user", "disable", "--now", "clarity-plans.timer"],
        ["launchctl", "bootout", f"gui/{os.getuid()}/dev.clarity.plans"],
    ):
        subprocess.run([standins.bin / program, *args], check=True)
    lost = cli("schedule", "show").stdout
    assert (
        "systemd: written, but clarity-plans.timer is disabled and inactive (systemctl --user): "
        "systemd will not run it; clarity schedule install --scheduler systemd enables it"
    ) in lost
    assert "launchd: written, but not loaded (launchctl list dev.clarity.plans)" in lost

    monkeypatch.delenv("STANDIN_SYSTEMD_UP")
    (standins.bin / "launchctl").unlink()
    unreachable = cli("schedule", "show").stdout
    assert (
        "systemd: written, but systemd cannot be asked (no user manager: Failed to connect to "
        "bus: No medium found); the timer runs only where one does"
    ) in unreachable
    assert "launchd: written, but launchd is not on this system (no launchctl)" in unreachable
    assert "clarity schedule remove --scheduler launchd takes it out" in unreachable
    monkeypatch.setenv("STANDIN_SYSTEMD_UP", "1")
    assert cli("schedule", "remove").exit_code == 0


@pytest.mark.parametrize(
    "word, said",
    [
        ("status", "(did you mean clarity schedule show?)"),
        ("help", "(to see its commands: clarity schedule --help)"),
    ],
)
def test_a_word_people_type_for_a_schedule_command_gets_a_pointer(cli, word: str, said: str):
    # Issue 36, item 12.
    result = cli("schedule", word)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.rstrip().endswith(said)
