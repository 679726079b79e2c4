"""The SessionStart hook: its entry in Claude Code's settings.json, and what it says."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from clarity.claude_code.hook import line
from clarity.claude_code.hook_settings import hook_command
from clarity.cli import main
from clarity.errors import ClarityError
from tests.builders.files import Plan, make_files
from tests.builders.hook import DONE, first_said, run_hook, said

OPEN = "# Open plan\n\n" + "still to decide\n" * 200  # large: dormant when old, not stale
DAY = 86400


@pytest.fixture
def claude_dir(isolated_home: Path) -> Path:
    return isolated_home / ".claude"


@pytest.fixture
def settings_file(claude_dir: Path) -> Path:
    return claude_dir / "settings.json"


# settings.json


USERS_SETTINGS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo hello"}]}],
    },
    "cleanupPeriodDays": 45,
}


def test_the_hook_joins_the_users_settings_and_leaves_them_as_they_were(cli, settings_file: Path):
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(json.dumps(USERS_SETTINGS))

    added = cli("install-command", "--hook")

    assert added.exit_code == 0, added.stderr
    assert f"added clarity's hooks to {settings_file}" in added.stdout
    settings = json.loads(settings_file.read_text())
    assert list(settings) == list(USERS_SETTINGS)  # every key, in its order
    assert {k: v for k, v in settings.items() if k != "hooks"} == {
        k: v for k, v in USERS_SETTINGS.items() if k != "hooks"
    }
    ours_hook = [{"type": "command", "command": hook_command(sys.executable), "timeout": 5}]
    theirs, ours = settings["hooks"]["SessionStart"]
    assert theirs == USERS_SETTINGS["hooks"]["SessionStart"][0]
    assert ours == {"matcher": "startup|resume|clear", "hooks": ours_hook}
    # ExitPlanMode shown and approved: the approval ledger's (issue 32), beside theirs
    their_audit, ledger = settings["hooks"]["PreToolUse"]
    assert their_audit == USERS_SETTINGS["hooks"]["PreToolUse"][0]
    assert ledger == {"matcher": "ExitPlanMode", "hooks": ours_hook}
    assert settings["hooks"]["PostToolUse"] == [{"matcher": "ExitPlanMode", "hooks": ours_hook}]
    assert settings["hooks"]["SessionEnd"] == [{"hooks": ours_hook}]  # "clear" told apart

    before = settings_file.read_bytes()
    again = cli("install-command", "--hook")
    assert "clarity's hooks are already in" in again.stdout
    assert settings_file.read_bytes() == before

    removed = cli("uninstall-command", "--hook")
    assert removed.exit_code == 0
    assert f"removed clarity's hooks from {settings_file}" in removed.stdout
    assert json.loads(settings_file.read_text()) == USERS_SETTINGS
    assert (settings_file.parent / "skills" / "clarity" / "SKILL.md").is_file()  # only the hook


def test_uninstall_takes_out_the_skill_and_the_hook(cli, settings_file: Path):
    cli("install-command", "--hook")

    removed = cli("uninstall-command")

    assert removed.exit_code == 0
    assert "removed /clarity" in removed.stdout
    assert "removed clarity's hooks" in removed.stdout
    # Issue 36, item 12: no `{}` and no empty skills/ left behind.
    assert not settings_file.exists()
    assert not (settings_file.parent / "skills").exists()


def test_a_moved_clarity_updates_its_hook_in_place(cli, settings_file: Path):
    settings_file.parent.mkdir(parents=True)
    old = {"type": "command", "command": "/old/venv/bin/python -m clarity.hook", "timeout": 60}
    settings_file.write_text(
        json.dumps({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [old]}]}})
    )

    result = cli("install-command", "--hook")

    assert "updated clarity's hooks in" in result.stdout
    (group,) = json.loads(settings_file.read_text())["hooks"]["SessionStart"]
    assert group["hooks"] == [
        {"type": "command", "command": hook_command(sys.executable), "timeout": 5}
    ]


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "",
        "[1, 2]",
        '{"hooks": []}',
        '{"hooks": {"SessionStart": {}}}',
        # Not JSON: Claude Code's parser rejects them, so clarity must not write them back.
        '{"x": NaN}',
        '{"x": [Infinity]}',
        '{"x": {"y": -Infinity}}',
    ],
)
def test_settings_clarity_cannot_read_are_refused_with_nothing_written(
    cli, settings_file: Path, text: str
):
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(text)

    for args in (("install-command", "--hook"), ("uninstall-command",)):
        result = cli(*args)

        assert result.exit_code == 2
        assert len(result.stderr.splitlines()) == 1
        assert "clarity leaves it alone" in result.stderr
        assert settings_file.read_text() == text
        assert not (settings_file.parent / "skills").exists()


SPELT = (
    '{"huge": 1e999999, "tiny": -1.0E-400, "kept": 1.10, "exp": 2E+3, "minus zero": -0,\n'
    ' "long": 123456789012345678901234567890, "lone": "\\ud800", "list": [0.50, 7]}'
)


def spelt(text: str) -> Any:
    """The JSON's values with each number as its text: what Claude Code parses, spelling and all."""
    return json.loads(text, parse_float=lambda s: ("number", s), parse_int=lambda s: ("number", s))


def test_numbers_and_strings_are_written_back_as_they_were_written(cli, settings_file: Path):
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(SPELT)

    assert cli("install-command", "--hook").exit_code == 0

    written = settings_file.read_text(encoding="utf-8")
    assert '"huge": 1e999999' in written and "Infinity" not in written
    kept = spelt(written)
    assert "SessionStart" in kept.pop("hooks")
    assert kept == spelt(SPELT)
    assert list(kept) == list(spelt(SPELT))
    assert cli("uninstall-command", "--hook").exit_code == 0
    assert spelt(settings_file.read_text(encoding="utf-8")) == spelt(SPELT)


def test_a_projects_hook_goes_to_its_local_settings(cli, isolated_home: Path, monkeypatch):
    project = isolated_home / "work" / "shop"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)

    assert cli("install-command", "--project", "--hook").exit_code == 0

    local = project / ".claude" / "settings.local.json"
    assert json.loads(local.read_text())["hooks"]["SessionStart"]
    assert not (project / ".claude" / "settings.json").exists()
    assert not (isolated_home / ".claude" / "settings.json").exists()
    assert cli("uninstall-command", "--project").exit_code == 0
    assert not local.exists()  # only clarity's hooks were in it: no `{}` left


HOSTILE_DIRS = ["my tools", "it's", 'say "hi"', "$(touch PWNED)", "`touch PWNED`", "100%", "a;b"]


def venv_at(folder: Path) -> Path:
    """This test's virtual environment, reached from folder: its Python, the pyvenv.cfg
    beside it and its lib (links), so that folder's path is what the shell must quote."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("needs the tests to run in a virtual environment")
    venv = Path(sys.prefix)
    (folder / "bin").mkdir(parents=True)
    shutil.copy(venv / "pyvenv.cfg", folder / "pyvenv.cfg")
    (folder / "lib").symlink_to(venv / "lib")
    python = folder / "bin" / "python"
    python.symlink_to(os.path.realpath(sys.executable))
    return python


@pytest.mark.parametrize("name", HOSTILE_DIRS)
def test_the_hook_command_runs_clarity_from_any_path(
    isolated_home: Path, tmp_path: Path, name: str
):
    python = venv_at(tmp_path / name / "venv")
    plans = make_files(
        isolated_home / ".claude" / "plans",
        {f"done-{i}.md": Plan(DONE, 3) for i in range(3)},
        now=datetime.now(UTC),
    )

    ran = run_hook(tmp_path, python=str(python))

    assert said(ran) == "clarity: 3 plans done: /clarity to review them"
    assert not list(tmp_path.rglob("PWNED"))
    assert plans.is_dir()


@pytest.mark.parametrize("character", ["\n", "\r", "\t", "\x1b", "\x7f"])
def test_a_python_path_with_a_control_character_is_refused(character: str):
    with pytest.raises(ClarityError, match="control character"):
        hook_command(f"/opt/py{character}thon/bin/python")


# What the hook says


def test_the_line(isolated_home: Path):
    now = 1_000_000_000.0
    assert line(2, [], now) is None  # two done plans are not worth a line
    assert line(3, [], now) == "clarity: 3 plans done: /clarity to review them"
    assert line(0, [now + 9 * DAY], now) is None  # beyond the week
    assert line(1, [now + 2.5 * DAY, now + 0.5 * DAY], now) == (
        "clarity: 1 plan done; Claude Code will delete 2 plans within 2 days, the first "
        "within a day: /clarity to review them"
    )  # whole days rounded down, the figure the scan report gives each plan
    assert line(0, [now + 2.5 * DAY], now) == (
        "clarity: Claude Code will delete 1 plan in 2 days: /clarity to review them"
    )
    assert line(0, [now + 0.5 * DAY], now) == (
        "clarity: Claude Code will delete 1 plan within a day: /clarity to review them"
    )
    assert line(0, [now - DAY], now) == (
        "clarity: Claude Code will delete 1 plan at its next start: /clarity to review them"
    )
    # The hostile trial's "20 deleted by Claude Code within 6 days", 8 of them past due:
    due = [now - DAY] * 8 + [now + (n % 6 + 0.5) * DAY for n in range(12)]
    assert line(0, due, now) == (
        "clarity: Claude Code will delete 20 plans within 5 days, 8 of them at its next "
        "start: /clarity to review them"
    )
    # What clarity kept of them is said too (issue 32): all, or how many.
    assert line(0, [now + 2.5 * DAY], now, kept=1) == (
        "clarity: Claude Code will delete 1 plan in 2 days (clarity kept its text): "
        "/clarity to review them"
    )
    assert line(0, due, now, kept=20) == (
        "clarity: Claude Code will delete 20 plans within 5 days, 8 of them at its next "
        "start (clarity kept their text): /clarity to review them"
    )
    assert str(line(0, due, now, kept=3)).endswith(
        "(clarity kept the text of 3): /clarity to review them"
    )


def test_it_says_what_is_done_and_what_claude_code_will_delete(
    isolated_home: Path, claude_dir: Path
):
    now = datetime.now(UTC)
    plans = make_files(
        claude_dir / "plans",
        {
            **{f"done-{i}.md": Plan(DONE, 3) for i in range(3)},
            "done-3.md": Plan(DONE, 3),
            "done-3-agent-a1.md": Plan("# its sub-plan\n", 3),  # counted, as the scan does
            "nearly-gone.md": Plan(OPEN, 27.5),
            "young.md": Plan(OPEN, 3),
            "stub.md": Plan("# stub\n", 28),  # for the trash: nothing to keep
        },
        now,
    )
    work = isolated_home / "work"

    first = said(run_hook(work))
    again = said(run_hook(work))

    assert first == (
        "clarity: 5 plans done; Claude Code will delete 1 plan in 2 days (clarity kept its "
        "text): /clarity to review them"
    )
    assert again is None  # said once a day ...
    make_files(plans, {"done-9.md": Plan(DONE, 3)}, now)
    assert said(run_hook(work)) is None  # ... a plan done since is no news that day ...
    make_files(plans, {"old-idea.md": Plan(OPEN, 26.5)}, now)
    assert said(run_hook(work)) == (  # ... a plan newly due is
        "clarity: 6 plans done; Claude Code will delete 2 plans within 3 days, the first "
        "in 2 days (clarity kept their text): /clarity to review them"
    )
    # A change to Claude Code's settings is seen: a longer cleanup period, nothing at risk.
    (claude_dir / "settings.json").write_text('{"cleanupPeriodDays": 90}')
    assert said(run_hook(work)) is None  # and nothing new is due
    memo = isolated_home / ".local" / "state" / "clarity" / "session-start.json"
    memo.write_text(memo.read_text().replace(f'"day": "{now.astimezone():%Y-%m-%d}"', '"day": "x"'))
    assert said(run_hook(work)) == "clarity: 6 plans done: /clarity to review them"  # next day


def test_it_keeps_the_text_of_plans_near_claude_codes_cleanup_and_only_those(
    cli, isolated_home: Path, claude_dir: Path
):
    now = datetime.now(UTC)
    plans = claude_dir / "plans"
    make_files(plans, {"nearly-gone.md": Plan(OPEN, 27.5), "young.md": Plan(OPEN, 3)}, now)
    work = isolated_home / "work"

    # A deadline too short to reach any plan: nothing wedged, nothing said wrong; what it
    # could not do is handed on (issue 45: detached), and it says what it knows at once:
    # the plan Claude Code is about to delete, by its age, and that its text is being kept.
    short = run_hook(work, command=f"CLARITY_HOOK_DEADLINE=0.000001 {hook_command(sys.executable)}")
    assert (short.returncode, short.stderr) == (0, "")
    assert said(short) == (
        "clarity: Claude Code will delete 1 plan in 2 days (clarity is keeping its text "
        "now): /clarity to review them"
    )
    versions = claude_dir / "plans-archive" / "versions"
    # The text is kept (the plan stays where it is), and the next start to speak says the
    # whole finding once, though nothing newly due.
    assert first_said(work)[0] == (
        "clarity: Claude Code will delete 1 plan in 2 days (clarity kept its text): "
        "/clarity to review them"
    )
    (kept,) = (versions / "nearly-gone").glob("*.md")
    assert kept.read_text() == OPEN and (plans / "nearly-gone.md").read_text() == OPEN
    assert not (versions / "young").exists()  # far from the cleanup: the hook keeps nothing

    (plans / "nearly-gone.md").unlink()  # Claude Code's cleanup, two days later
    listed = cli("archived", "--json").json()
    assert [plan["name"] for plan in listed["kept"]] == ["nearly-gone.md"]


def test_it_is_quiet_when_nothing_is_worth_saying(isolated_home: Path, claude_dir: Path):
    make_files(
        claude_dir / "plans",
        {"done.md": Plan(DONE, 3), "young.md": Plan(OPEN, 3)},
        datetime.now(UTC),
    )

    assert said(run_hook(isolated_home / "work")) is None


@pytest.mark.parametrize(
    "stdin", ["", "not json", "[]", '{"cwd": 7}', '{"cwd": "relative/dir"}', "\x00" * 10]
)
def test_whatever_claude_code_sends_it_never_fails(isolated_home: Path, stdin: str):
    assert said(run_hook(isolated_home / "work", stdin=stdin)) is None


def test_a_broken_setup_is_silence_not_a_failed_session(isolated_home: Path, claude_dir: Path):
    make_files(
        claude_dir / "plans", {f"d{i}.md": Plan(DONE, 3) for i in range(5)}, datetime.now(UTC)
    )
    config = isolated_home / ".config" / "clarity" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("stale_days = 'soon'\n")  # clarity refuses this config
    state = isolated_home / ".local" / "state"
    state.mkdir(parents=True)
    (state / "clarity").write_text("a file where the state folder should be")

    assert said(run_hook(isolated_home / "work")) is None
    assert said(run_hook(isolated_home / "no such folder")) is None


def test_a_project_cannot_put_its_own_modules_in_clarity_s_place(
    isolated_home: Path, claude_dir: Path, tmp_path: Path
):
    project = tmp_path / "project"
    project.mkdir()
    for module in ("json.py", "zlib.py", "clarity.py"):
        (project / module).write_text("open('PWNED', 'w').close()\n")
    make_files(
        claude_dir / "plans", {f"d{i}.md": Plan(DONE, 3) for i in range(3)}, datetime.now(UTC)
    )

    assert said(run_hook(project)) is not None
    assert not (project / "PWNED").exists()


def test_a_linked_private_settings_file_stays_linked_and_private(
    isolated_home: Path, claude_dir: Path
):
    dotfiles = isolated_home / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir(parents=True)
    dotfiles.write_text('{"model": "opus"}')
    dotfiles.chmod(0o600)
    claude_dir.mkdir(parents=True, exist_ok=True)
    (claude_dir / "settings.json").symlink_to(dotfiles)

    assert main(["install-command", "--hook"]) == 0

    assert (claude_dir / "settings.json").is_symlink()
    settings = json.loads(dotfiles.read_text())
    assert settings["model"] == "opus" and "SessionStart" in settings["hooks"]
    assert stat.S_IMODE(dotfiles.stat().st_mode) == 0o600
    assert main(["uninstall-command", "--hook"]) == 0
    assert stat.S_IMODE(dotfiles.stat().st_mode) == 0o600
    assert (claude_dir / "settings.json").is_symlink()


def test_an_enabled_plugin_says_the_line_and_the_installed_hook_keeps_quiet(
    isolated_home: Path, claude_dir: Path
):
    make_files(
        claude_dir / "plans", {f"done-{i}.md": Plan(DONE, 3) for i in range(3)}, datetime.now(UTC)
    )
    work = isolated_home / "work"
    (claude_dir / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"clarity@clarity": True, "other@x": True}})
    )

    assert said(run_hook(work)) is None  # install-command's hook: the plugin's says it
    plugins = shlex.join([sys.executable, "-I", "-m", "clarity.hook", "--plugin"])
    assert said(run_hook(work, command=plugins)) == (
        "clarity: 3 plans done: /clarity to review them"
    )


def test_a_hook_left_behind_by_an_uninstalled_clarity_says_nothing(isolated_home: Path):
    # Issue 36, item 4: after `uv tool uninstall`, the settings still name a Python that is
    # gone; the hook runs at every session start and every plan shown, and must end well.
    gone = hook_command(str(isolated_home / "gone-venv" / "bin" / "python"))
    for event in ("SessionStart", "PreToolUse"):
        ran = run_hook(
            isolated_home / "work", stdin=json.dumps({"hook_event_name": event}), command=gone
        )
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")


def test_the_hooks_join_settings_in_the_indent_the_person_wrote(cli, settings_file: Path):
    # Issue 36, item 12: a file written with four spaces came back with two.
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(json.dumps(USERS_SETTINGS, indent=4) + "\n")
    assert cli("install-command", "--hook").exit_code == 0
    text = settings_file.read_text()
    assert '\n    "model": "opus",\n' in text
    assert json.loads(text)["model"] == "opus"
    assert cli("uninstall-command", "--hook").exit_code == 0
    assert settings_file.read_text() == json.dumps(USERS_SETTINGS, indent=4) + "\n"


def test_a_project_with_its_own_plans_hears_of_them_and_of_the_users_own_only(
    isolated_home: Path, claude_dir: Path
):
    # issue 33: the project's plansDirectory and the user's default, never another project
    now = datetime.now(UTC)
    make_files(claude_dir / "plans", {"nearly-gone.md": Plan(OPEN, 27.5)}, now)
    here, other = isolated_home / "here", isolated_home / "other"
    for project in (here, other):
        (project / ".claude").mkdir(parents=True)
        (project / ".claude" / "settings.json").write_text('{"plansDirectory": "plans"}')
    make_files(here / "plans", {f"done-{i}.md": Plan(DONE, 3) for i in range(3)}, now)
    make_files(other / "plans", {f"done-{i}.md": Plan(DONE, 3) for i in range(5)}, now)

    assert said(run_hook(here)) == (
        "clarity: 3 plans done; Claude Code will delete 1 plan in 2 days (clarity kept its "
        "text): /clarity to review them"
    )


def test_a_project_whose_plans_folder_is_not_made_yet_still_hears_of_the_users_own(
    isolated_home: Path, claude_dir: Path
):
    now = datetime.now(UTC)
    make_files(claude_dir / "plans", {"nearly-gone.md": Plan(OPEN, 27.5)}, now)
    fresh = isolated_home / "fresh"
    (fresh / ".claude").mkdir(parents=True)
    (fresh / ".claude" / "settings.json").write_text('{"plansDirectory": "plans"}')

    assert said(run_hook(fresh)) == (
        "clarity: Claude Code will delete 1 plan in 2 days (clarity kept its text): "
        "/clarity to review them"
    )


def test_plans_due_within_a_day_some_past_are_never_said_within_0_days() -> None:
    """A hostile trial with cleanupPeriodDays 1: 'will delete 300 plans within 0 days'."""
    from clarity.claude_code.hook import line

    now = 1_800_000_000.0
    assert line(0, [now - 3600, now + 3600], now) == (
        "clarity: Claude Code will delete 2 plans within a day, 1 of them at its next start: "
        "/clarity to review them"
    )
