"""The real freedesktop trash under a temp XDG_DATA_HOME: refusals, namesakes, undo."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from tests.builders.files import NOW_ISO, Plan, make_files, trash_files
from tests.builders.plans import PLANS


def test_a_trashed_plan_has_a_trashinfo_naming_where_it_came_from(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    make_files(plans_dir, {"stub.md": Plan("# stub\n", 10)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert cli("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    info = trash_files(isolated_home).parent / "info" / "stub.md.trashinfo"
    assert f"Path={quote(str(plans_dir / 'stub.md'))}" in info.read_text().splitlines()


def test_when_the_trash_refuses_the_plan_stays_and_apply_exits_1(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    trash = trash_files(isolated_home).parent
    trash.parent.mkdir(parents=True)
    trash.write_text("a file where the trash folder should be\n")
    make_files(plans_dir, PLANS)
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert result.exit_code == 1
    by_name = {item["name"]: item for item in result.json()["results"]}
    assert by_name["stub.md"]["status"] == "failed"
    assert "the trash refused it" in by_name["stub.md"]["error"]
    assert (plans_dir / "stub.md").read_text() == "# stub\n"
    assert by_name["done-a.md"]["status"] == "done"  # the rest went on

    table = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--rescan", "--now", NOW_ISO)
    assert table.exit_code == 1
    assert "FAILED    stub.md: the trash refused it" in table.stdout


def test_a_namesake_already_in_the_trash_is_not_mistaken_for_the_plan(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    files = trash_files(isolated_home)
    make_files(files, {"stub.md": "someone else's stub\n"})
    info = files.parent / "info"
    make_files(info, {"stub.md.trashinfo": "[Trash Info]\nPath=/elsewhere/stub.md\n"})
    make_files(plans_dir, {"stub.md": Plan("# stub\n", 10)})
    cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert result.json()["results"][0]["destination"] == str(files / "stub 1.md")

    assert cli("undo", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    assert (plans_dir / "stub.md").read_text() == "# stub\n"
    assert (files / "stub.md").read_text() == "someone else's stub\n"
    assert (info / "stub.md.trashinfo").exists()
    assert not (info / "stub 1.md.trashinfo").exists()
