"""The /clarity slash command: a file Claude Code can load, installed without clobbering."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import frontmatter
import pytest

from clarity.managed import CommentStyle, stamped
from tests.claude_home import plan_mode, write_transcript
from tests.conftest import NOW_ISO, Plan, make_files

SESSION = "6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b"
# The frontmatter keys Claude Code reads in a command file.
CLAUDE_CODE_KEYS = {
    "description",
    "argument-hint",
    "allowed-tools",
    "model",
    "disable-model-invocation",
}


@pytest.fixture
def command_file(isolated_home: Path) -> Path:
    return isolated_home / ".claude" / "commands" / "clarity.md"


def injected_commands(body: str) -> list[str]:
    """The shell commands Claude Code runs when the command is invoked (!`...`)."""
    return re.findall(r"^!`([^`]+)`$", body, flags=re.MULTILINE)


def test_the_command_file_is_what_claude_code_expects(cli, command_file: Path):
    result = cli("install-command")

    assert result.exit_code == 0, result.stderr
    assert f"installed /clarity: {command_file}" in result.stdout
    command = frontmatter.loads(command_file.read_text())
    assert set(command.metadata) <= CLAUDE_CODE_KEYS
    assert {"description", "argument-hint", "allowed-tools"} <= set(command.metadata)
    assert all(isinstance(value, str) and value for value in command.metadata.values())

    allowed = str(command.metadata["allowed-tools"]).split(", ")
    patterns = [re.fullmatch(r"Bash\((.+) (\w+):\*\)", rule) for rule in allowed]
    assert all(patterns), allowed  # Bash rules only
    programs = {match.group(1) for match in patterns if match}
    assert len(programs) == 1  # one program: clarity, and nothing else
    clarity = programs.pop()
    assert shlex.split(clarity)[-1] == "clarity" or shlex.split(clarity)[0].endswith("clarity")
    assert {match.group(2) for match in patterns if match} == {"scan", "apply", "archive", "undo"}

    injected = injected_commands(command.content)
    assert injected == [
        f"{clarity} scan --format markdown --session=${{CLAUDE_SESSION_ID}} $ARGUMENTS"
    ]
    assert all(line.startswith(f"{clarity} scan") for line in injected)  # pre-approved
    assert f"`{clarity} apply --yes $ARGUMENTS`" in command.content
    assert "Only if the user agrees" in command.content


def test_the_injected_scan_runs_and_keeps_the_sessions_plan(
    cli, command_file: Path, plans_dir: Path, isolated_home: Path
):
    make_files(plans_dir, {"mine.md": Plan("# Mine\n", 10), "old.md": Plan("# Old\n", 10)})
    write_transcript(
        isolated_home / ".claude",
        SESSION,
        [plan_mode(SESSION, plans_dir / "mine.md")],
        age_hours=300,
    )
    cli("install-command")
    (line,) = injected_commands(frontmatter.loads(command_file.read_text()).content)

    # What Claude Code does: substitute the session id and the arguments, run it in a shell.
    arguments = f"--plans-dir {shlex.quote(str(plans_dir))} --now {NOW_ISO}"
    shell = line.replace("${CLAUDE_SESSION_ID}", SESSION).replace("$ARGUMENTS", arguments)
    ran = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, timeout=60)

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("## clarity: Plans in")
    mine = next(row for row in ran.stdout.splitlines() if "`mine.md`" in row)
    assert "current session's plan" in mine
    old = next(row for row in ran.stdout.splitlines() if "`old.md`" in row)
    assert "small and old" in old


def test_install_is_idempotent(cli, command_file: Path):
    cli("install-command")
    first = command_file.read_bytes()
    first_mtime = command_file.stat().st_mtime_ns

    again = cli("install-command")

    assert again.exit_code == 0
    assert "already installed, unchanged" in again.stdout
    assert command_file.read_bytes() == first
    assert command_file.stat().st_mtime_ns == first_mtime


def test_an_edited_command_is_never_clobbered_without_force(cli, command_file: Path):
    cli("install-command")
    edited = command_file.read_text().replace("in this order", "briefly, in this order")
    command_file.write_text(edited)

    refused = cli("install-command")

    assert refused.exit_code == 2
    assert "was changed since clarity wrote it" in refused.stderr
    assert "--force" in refused.stderr
    assert len(refused.stderr.splitlines()) == 1
    assert command_file.read_text() == edited

    forced = cli("install-command", "--force")
    assert forced.exit_code == 0
    assert "replaced your /clarity" in forced.stdout
    assert command_file.with_name("clarity.md.bak").read_text() == edited
    assert "briefly" not in command_file.read_text()


def test_a_users_own_clarity_command_is_left_alone(cli, command_file: Path):
    command_file.parent.mkdir(parents=True)
    command_file.write_text("---\ndescription: my own thing\n---\nDo my thing.\n")

    assert cli("install-command").exit_code == 2
    assert cli("uninstall-command").exit_code == 2
    assert command_file.read_text().endswith("Do my thing.\n")


def test_an_untouched_older_command_is_updated(cli, command_file: Path):
    command_file.parent.mkdir(parents=True)
    command_file.write_text(
        stamped("---\ndescription: old clarity\n---\nold body\n", CommentStyle.XML)
    )

    result = cli("install-command")

    assert result.exit_code == 0
    assert "updated /clarity" in result.stdout
    assert "old body" not in command_file.read_text()
    assert not command_file.with_name("clarity.md.bak").exists()


def test_uninstall_removes_only_an_untouched_command(cli, command_file: Path):
    assert "not installed" in cli("uninstall-command").stdout
    cli("install-command")
    assert "removed /clarity" in cli("uninstall-command").stdout
    assert not command_file.exists()

    cli("install-command")
    command_file.write_text(command_file.read_text() + "My extra line.\n")
    assert cli("uninstall-command").exit_code == 2
    assert command_file.exists()
    forced = cli("uninstall-command", "--force")
    assert forced.exit_code == 0
    assert not command_file.exists()
    assert command_file.with_name("clarity.md.bak").read_text().endswith("My extra line.\n")


def test_project_command_goes_to_the_projects_claude_dir(cli, isolated_home: Path, monkeypatch):
    project = isolated_home / "work" / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "src" / "api").mkdir(parents=True)
    monkeypatch.chdir(project / "src" / "api")

    result = cli("install-command", "--project")

    assert result.exit_code == 0, result.stderr
    assert (project / ".claude" / "commands" / "clarity.md").is_file()
    assert not (isolated_home / ".claude" / "commands").exists()
    assert cli("uninstall-command", "--project").exit_code == 0
    assert not (project / ".claude" / "commands" / "clarity.md").exists()


def test_claude_config_dir_is_honoured(cli, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "profile"))
    assert cli("install-command").exit_code == 0
    assert (tmp_path / "profile" / "commands" / "clarity.md").is_file()


def test_an_unwritable_commands_dir_is_one_line(cli, isolated_home: Path):
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "commands").write_text("a file where the folder should be")

    result = cli("install-command")

    assert result.exit_code == 2
    assert result.stderr.startswith("clarity: error: cannot read")
    assert "Not a directory; fix or move it" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_forced_installs_never_replace_an_earlier_backup(cli, command_file: Path):
    cli("install-command")
    first = command_file.read_text() + "My first edit.\n"
    command_file.write_text(first)
    assert "clarity.md.bak)" in cli("install-command", "--force").stdout
    second = command_file.read_text() + "My second edit.\n"
    command_file.write_text(second)

    again = cli("install-command", "--force")

    assert again.exit_code == 0
    assert f"(the old text is kept as {command_file.with_name('clarity.md.bak.2')})" in again.stdout
    assert command_file.with_name("clarity.md.bak").read_text() == first
    assert command_file.with_name("clarity.md.bak.2").read_text() == second
    third = command_file.read_text() + "My third edit.\n"
    command_file.write_text(third)
    removed = cli("uninstall-command", "--force")
    assert f"kept as {command_file.with_name('clarity.md.bak.3')}" in removed.stdout
    assert command_file.with_name("clarity.md.bak.3").read_text() == third
    assert command_file.with_name("clarity.md.bak").read_text() == first
    assert not command_file.exists()
