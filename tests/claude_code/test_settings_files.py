"""Settings files that are not what they seem (issue 26 item 6): clarity's config.toml and
Claude Code's settings files as a FIFO, a link to a device, a link loop.

Whatever a repository or a config holds, clarity says one line and exits, or passes
over a file of Claude Code's it cannot read; it never hangs. The runs that could hang
are separate processes with a timeout, so that a regression fails here rather than
stopping the suite.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from clarity.settings.config import load_settings
from tests.builders.files import Plan, make_files

HANG_SECONDS = 20  # each run takes well under a second; past this it hung


def run(argv: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv, input=stdin, capture_output=True, text=True, cwd=cwd, timeout=HANG_SECONDS
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{shlex.join(argv)} hung (still running after {HANG_SECONDS} s)")


def clarity(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "clarity", *args], cwd)


def fifo(path: Path) -> None:
    os.mkfifo(path)


def to_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def to_urandom(path: Path) -> None:
    path.symlink_to("/dev/urandom")


def loop(path: Path) -> None:
    other = path.with_name(path.name + ".other")
    other.symlink_to(path.name)
    path.symlink_to(other.name)


def to_nothing(path: Path) -> None:
    path.symlink_to(path.with_name("moved-away.toml"))


NOT_REGULAR: list[Callable[[Path], None]] = [fifo, to_zero, to_urandom]


def one_error_line(ran: subprocess.CompletedProcess[str], *names: str) -> str:
    assert ran.returncode == 2, ran.stderr
    (said,) = ran.stderr.splitlines()
    assert said.startswith("clarity: error: ")
    assert "internal error" not in said
    for name in names:
        assert name in said
    return said


@pytest.fixture
def project(isolated_home: Path) -> Path:
    """A project with a .claude/ folder, and the user's plans where clarity looks by default."""
    make_files(isolated_home / ".claude" / "plans", {"a.md": Plan("# A plan\n")}, datetime.now(UTC))
    root = isolated_home / "work" / "repo"
    (root / ".claude").mkdir(parents=True)
    return root


def scanned_plans_dir(project: Path) -> str:
    ran = clarity("scan", "--json", "--print-only", cwd=project)
    assert ran.returncode == 0, ran.stderr
    plans_dir: str = json.loads(ran.stdout)["plans_dir"]
    return plans_dir


@pytest.mark.parametrize("make", [*NOT_REGULAR, loop, to_nothing])
def test_a_config_file_clarity_cannot_read_is_an_error_naming_it(
    isolated_home: Path, project: Path, make: Callable[[Path], None]
):
    config = isolated_home / ".config" / "clarity" / "config.toml"
    config.parent.mkdir(parents=True)
    make(config)

    said = one_error_line(clarity("scan", "--print-only", cwd=project), str(config))

    assert "fix or remove it" in said


@pytest.mark.parametrize("make", NOT_REGULAR)
@pytest.mark.parametrize(
    "where", [".claude/settings.local.json", ".claude/settings.json", "user's settings.json"]
)
def test_a_claude_code_settings_file_that_is_not_a_file_is_no_setting(
    isolated_home: Path, project: Path, where: str, make: Callable[[Path], None]
):
    settings = isolated_home / ".claude" / "settings.json"
    if where != "user's settings.json":
        settings = project / where
    make(settings)

    assert scanned_plans_dir(project) == str(isolated_home / ".claude" / "plans")


def test_a_linked_claude_code_settings_file_is_read_through_its_link(
    isolated_home: Path, project: Path
):
    dotfiles = isolated_home / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"plansDirectory": "docs/plans"}')
    (project / ".claude" / "settings.json").symlink_to(dotfiles)

    settings = load_settings({}, {}, project)

    assert settings.plans_dir == project / "docs" / "plans"


@pytest.mark.parametrize("make", [fifo, to_zero])
@pytest.mark.parametrize("whose", ["config", "user", "project"])
def test_the_session_start_hook_never_hangs_on_them(
    isolated_home: Path, project: Path, whose: str, make: Callable[[Path], None]
):
    path = {
        "config": isolated_home / ".config" / "clarity" / "config.toml",
        "user": isolated_home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
    }[whose]
    path.parent.mkdir(parents=True, exist_ok=True)
    make(path)
    event = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart"})

    # Not `python -I`, which Claude Code's command uses: -I would drop the PYTHONPATH that
    # points these tests at the clarity under test. test_hook covers the command itself.
    ran = run([sys.executable, "-m", "clarity.hook"], project, stdin=event)

    assert ran.returncode == 0
    assert ran.stderr == ""


@pytest.mark.parametrize("make", NOT_REGULAR)
def test_install_command_leaves_a_settings_file_that_is_not_a_file_alone(
    isolated_home: Path, make: Callable[[Path], None]
):
    claude = isolated_home / ".claude"
    claude.mkdir()
    make(claude / "settings.json")

    said = one_error_line(
        clarity("install-command", "--hook", cwd=isolated_home), str(claude / "settings.json")
    )

    assert "not a regular file" in said
    assert sorted(path.name for path in claude.iterdir()) == ["settings.json"]  # nothing written


# Nested deeper than Python's parsers go: a RecursionError, unless clarity catches it.

DEEP = 100_000
DEEP_JSON = ["[" * DEEP, '{"a":' * DEEP, '{"a":' * DEEP + "1" + "}" * DEEP]


@pytest.mark.parametrize("text", DEEP_JSON, ids=["arrays", "objects", "objects, closed"])
def test_a_projects_settings_nested_too_deep_are_no_setting(
    cli, isolated_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, text: str
):
    (project / ".claude" / "settings.json").write_text(text)
    monkeypatch.chdir(project)

    scanned = cli("scan", "--json", "--print-only")

    assert scanned.exit_code == 0, scanned.stderr
    assert scanned.json()["plans_dir"] == str(isolated_home / ".claude" / "plans")


@pytest.mark.parametrize("text", DEEP_JSON, ids=["arrays", "objects", "objects, closed"])
def test_install_command_leaves_settings_nested_too_deep_alone(cli, isolated_home: Path, text: str):
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)

    result = cli("install-command", "--hook")

    assert result.exit_code == 2
    assert result.stderr == (
        f"clarity: error: {settings}: nested too deeply to read; "
        "clarity leaves it alone: fix it, then try again\n"
    )
    assert settings.read_text() == text
    assert sorted(path.name for path in settings.parent.iterdir()) == ["settings.json"]


def test_a_config_nested_too_deep_is_an_error_naming_it(cli, isolated_home: Path):
    config = isolated_home / ".config" / "clarity" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("stale_days = " + "[" * DEEP + "\n")

    result = cli("scan", "--print-only")

    assert result.exit_code == 2
    assert result.stderr == (
        f"clarity: error: {config}: nested too deeply to read; fix or remove the file\n"
    )


@pytest.mark.parametrize("make", NOT_REGULAR, ids=lambda make: make.__name__)
@pytest.mark.parametrize("where", ["skills/clarity/SKILL.md", "commands/clarity.md"])
def test_a_skill_file_that_is_not_a_file_is_one_line_or_kept_never_a_hang(
    isolated_home: Path, make: Callable[[Path], None], where: str
) -> None:
    target = isolated_home / ".claude" / where
    target.parent.mkdir(parents=True)
    make(target)
    ran = clarity("install-command", cwd=isolated_home)
    if where.startswith("skills"):
        one_error_line(ran, str(target))
    else:  # the old command's place: not clarity's to remove, so it is kept and said
        assert ran.returncode == 0, ran.stderr
    assert target.is_symlink() or target.is_fifo()
