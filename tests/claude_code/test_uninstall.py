"""Issue 46, item 3: `clarity uninstall` takes out in one command what clarity put in (the
/clarity skill and its hooks, the weekly run) and says which of its folders are left,
each with the command that removes it; nothing of the person's own is touched."""

from __future__ import annotations

import json
from pathlib import Path

from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.standins import Standins


def test_uninstall_takes_out_the_skill_the_hooks_and_the_weekly_run(
    cli, isolated_home: Path, standins: Standins, real_crontab_kept
) -> None:
    claude = isolated_home / ".claude"
    make_files(claude / "plans", {"done-plan.md": Plan("# Done plan COMPLETED\n", age_days=3)})
    settings = claude / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"model": "opus", "hooks": {}}))  # the person's own
    assert cli("install-command", "--hook").exit_code == 0
    assert cli("schedule", "install", "--scheduler", "cron").exit_code == 0
    assert cli("apply", "--rescan", "--yes", "--now", NOW_ISO).exit_code == 0

    removed = cli("uninstall")

    assert removed.exit_code == 0, removed.stderr
    assert not (claude / "skills" / "clarity").exists()
    assert json.loads(settings.read_text())["model"] == "opus"
    assert "clarity" not in settings.read_text()
    assert "removed the weekly run from cron" in removed.stdout
    assert "clarity" not in cli("schedule", "show").stdout.split("no clarity schedule")[0]
    archive = claude / "plans-archive"
    state = isolated_home / ".local" / "state" / "clarity"
    said = removed.stdout
    assert f"  {archive}  (rm -r {archive})" in said
    assert f"  {state}  (rm -r {state})" in said
    assert "uninstall clarity-plans" in said  # as this clarity was installed (a venv here)
    assert list(archive.rglob("done-plan.md"))  # the archive is the person's record: kept

    again = cli("uninstall")  # nothing left to take out: it says only what remains
    assert again.exit_code == 0
    assert "removed" not in again.stdout and "Left in place" in again.stdout


def test_install_command_refuses_to_double_what_the_enabled_plugin_gives(
    cli, isolated_home: Path
) -> None:
    """Issue 46: with the plugin enabled, install-command --hook would add a second
    /clarity skill and the same hooks; it says so in one line (exit 2) and writes nothing,
    unless --force."""
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"enabledPlugins": {"clarity@clarity": True}}))
    refused = cli("install-command", "--hook")
    assert refused.exit_code == 2
    assert "the clarity plugin is enabled in Claude Code" in refused.stderr
    assert not (isolated_home / ".claude" / "skills").exists()
    assert json.loads(settings.read_text()) == {"enabledPlugins": {"clarity@clarity": True}}
    forced = cli("install-command", "--hook", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert (isolated_home / ".claude" / "skills" / "clarity" / "SKILL.md").exists()


def test_uninstall_leaves_a_settings_file_the_person_had_even_an_empty_one(
    cli, isolated_home: Path
) -> None:
    """A `{}` settings.json was the person's before the hooks went in: it stays, `{}`. One
    clarity made for its hooks alone goes with them."""
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{}\n")
    assert cli("install-command", "--hook").exit_code == 0
    assert cli("uninstall-command", "--hook").exit_code == 0
    assert json.loads(settings.read_text()) == {}
    settings.unlink()
    assert cli("install-command", "--hook").exit_code == 0  # made by clarity, this time
    assert cli("uninstall").exit_code == 0
    assert not settings.exists()


def test_the_remove_command_uninstall_prints_removes_a_folder_with_a_tab_in_its_name(
    cli, isolated_home: Path, monkeypatch
) -> None:
    """The rm line is for pasting: a folder whose name holds a tab and a quote is written
    as bash reads it ($'...'), not shlex's quotes around a character the terminal escapes."""
    import re
    import subprocess

    archive = isolated_home / "plan's\tarchive"
    monkeypatch.setenv("CLARITY_ARCHIVE_DIR", str(archive))
    make_files(isolated_home / ".claude" / "plans", {"done.md": Plan("# Done COMPLETED\n", 3)})
    assert cli("apply", "--rescan", "--yes", "--now", NOW_ISO).exit_code == 0
    assert list(archive.rglob("done.md"))

    said = cli("uninstall").stdout
    [command] = re.findall(r"\((rm -r \$'[^\n]*archive')\)", said)
    subprocess.run(["bash", "-c", command], check=True, cwd=isolated_home)

    assert not archive.exists()
    assert (isolated_home / ".claude" / "plans").is_dir()  # nothing else went
