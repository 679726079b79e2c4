"""Each precondition message names the real missing step (issue 17, item 9): without a
terminal, apply with no scan says to scan, undo with nothing to undo says so, and only
a command that has something to do asks for a terminal or --yes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.builders.files import (
    NOW_ISO,
    Plan,
    contents,
    make_files,
    quarters_of,
    snapshot,
    trash_files,
)
from tests.builders.plans import PLANS
from tests.builders.processes import Result, run_process


def without_terminal(*args: str) -> Result:
    """clarity as cron or a pipe runs it: stdin is not a terminal, whatever pytest's is."""
    done = subprocess.run(
        [sys.executable, "-m", "clarity", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def test_apply_with_no_scan_says_to_scan_not_that_there_is_no_terminal(plans_dir: Path):
    make_files(plans_dir, PLANS)

    result = without_terminal("apply", "--plans-dir", str(plans_dir))

    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"clarity: error: no scan of {plans_dir} is recorded; run clarity scan")
    assert "--rescan" in line and "terminal" not in line


def test_undo_with_nothing_to_undo_says_so_without_a_terminal(plans_dir: Path):
    make_files(plans_dir, PLANS)

    result = without_terminal("undo", "--plans-dir", str(plans_dir))

    assert (result.exit_code, result.stderr) == (0, "")
    assert "nothing to undo" in result.stdout and "scan" not in result.stdout


def test_apply_of_a_scan_already_applied_says_so_without_a_terminal(plans_dir: Path):
    make_files(plans_dir, PLANS)
    assert without_terminal("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    assert without_terminal("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0

    again = without_terminal("apply", "--plans-dir", str(plans_dir))

    assert (again.exit_code, again.stderr) == (0, "")
    assert "was already applied" in again.stdout


def test_only_a_command_with_something_to_do_asks_for_a_terminal(plans_dir: Path):
    make_files(plans_dir, PLANS)
    assert without_terminal("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    before = snapshot(plans_dir.parent)

    apply = without_terminal("apply", "--plans-dir", str(plans_dir))

    assert apply.exit_code == 2
    assert apply.stderr == (
        "clarity: error: clarity apply asks before it moves anything, and there is no terminal "
        "to ask at; run the same command again with --yes to go ahead without the question\n"
    )
    assert snapshot(plans_dir.parent) == before
    assert without_terminal("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0

    undo = without_terminal("undo", "--plans-dir", str(plans_dir))

    assert undo.exit_code == 2
    [line] = undo.stderr.splitlines()
    assert "clarity undo asks before" in line and "--yes" in line and "clarity scan" not in line


# -- issue 23 item 2: an empty path never means the current folder -----------------


def test_an_empty_plans_or_archive_dir_is_an_error_never_the_current_folder(
    cli, plans_dir: Path, monkeypatch
) -> None:
    project = make_files(Path.cwd(), {"README.md": Plan("# Readme\n", 40)})
    for args in (["--plans-dir", ""], ["--archive-dir", " "]):
        result = cli("apply", "--rescan", "--yes", *args)
        assert result.exit_code == 2
        assert "is empty (an unset shell variable?)" in result.stderr
        assert result.stderr.count("\n") == 1
    monkeypatch.setenv("CLARITY_PLANS_DIR", "")
    result = cli("apply", "--rescan", "--yes")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "clarity: error: CLARITY_PLANS_DIR is set but empty; unset it, or give a path\n"
    )
    assert (project / "README.md").read_text() == "# Readme\n"


def test_apply_refuses_a_folder_that_is_plainly_a_project(cli, tmp_path: Path) -> None:
    files = {"README.md": Plan("# Web\n", 40), "CHANGELOG.md": Plan("# Changes\n", 40)}
    project = make_files(tmp_path / "web", {**files, "DESIGN.md": Plan("# D COMPLETED\n", 40)})
    (project / ".git").mkdir()
    result = cli("apply", "--rescan", "--yes", "--plans-dir", str(project))
    assert result.exit_code == 2
    assert "it looks like a project, not a plans directory" in result.stderr
    assert "--trust-plans-dir" in result.stderr
    assert sorted(p.name for p in project.iterdir()) == [
        ".git",
        "CHANGELOG.md",
        "DESIGN.md",
        "README.md",
    ]
    # A real plans dir may keep a README of its own; and a person may insist.
    docs_plans = make_files(
        tmp_path / "docs" / "plans",
        {"README.md": "# Our plans\n", "a.md": Plan("# A COMPLETED\n", 20)},
    )
    assert cli("apply", "--rescan", "--yes", "--plans-dir", str(docs_plans)).exit_code == 0
    trusted = cli("apply", "--rescan", "--yes", "--plans-dir", str(project), "--trust-plans-dir")
    assert trusted.exit_code == 0


def test_an_apply_that_failed_is_done_by_the_next_one(plans_dir: Path) -> None:
    # Issue 23 item 1: a failed move was counted as applied, and the weekly job never
    # archived those plans (a rescan gives the same proposal, "already applied").
    make_files(plans_dir, PLANS)
    before = contents(plans_dir)
    assert run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    plans_dir.chmod(0o555)
    try:
        failed = run_process("apply", "--plans-dir", str(plans_dir), "--yes", unprivileged=True)
    finally:
        plans_dir.chmod(0o755)
    assert failed.exit_code == 1 and "FAILED" in failed.stdout
    again = run_process("apply", "--plans-dir", str(plans_dir), "--yes", "--json")
    assert again.exit_code == 0, again.stdout
    moved = {item["name"] for item in again.json()["results"] if item["status"] == "done"}
    assert {"done-a.md", "stub.md"} <= moved
    quarters = quarters_of(plans_dir.parent / "plans-archive")
    assert contents(plans_dir, *quarters, trash_files(Path.home())) == before
    last = run_process("apply", "--plans-dir", str(plans_dir), "--yes")
    assert "was already applied" in last.stdout


def test_current_takes_the_name_the_report_shows_and_says_when_it_names_no_plan(
    cli, plans_dir: Path
) -> None:
    # Issue 23 item 7: `--current fix-auth` and a path that names no plan were ignored
    # without a word.
    make_files(plans_dir, {"fix-auth.md": Plan("# Fix auth COMPLETED\n", 20)})
    args = ("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    for value in ("fix-auth", "fix-auth.md", str(plans_dir / "fix-auth.md")):
        found = cli(*args, "--current", value).json()
        assert [(p["class"], p["reason"]) for p in found["plans"]] == [
            ("active", "current session's plan")
        ]
        assert found.get("notes", []) == []
    missing = cli(*args, "--current", "fix-auht").json()
    assert missing["plans"][0]["class"] == "completed"
    assert missing["notes"] == [
        f"--current fix-auht: no such plan in {plans_dir}; nothing kept for it"
    ]


def test_no_path_option_takes_an_empty_value_for_the_current_folder(cli, plans_dir: Path) -> None:
    # The review of issue 23 item 2: demo --dir "" laid the sample out in an empty
    # current folder; scan --project "" and --output "" meant the current folder too.
    make_files(plans_dir, {"a.md": Plan("# A\n", 3)})
    for args in (
        ["demo", "--dir", ""],
        ["scan", "--plans-dir", str(plans_dir), "--project", " "],
        ["scan", "--plans-dir", str(plans_dir), "--output", ""],
    ):
        result = cli(*args)
        assert result.exit_code == 2, args
        assert result.stderr.endswith("is empty (an unset shell variable?); give a path\n")
        assert list(Path.cwd().iterdir()) == []


def test_apply_of_a_scan_id_that_was_never_recorded_says_so(cli, plans_dir: Path) -> None:
    # Issue 36, item 12: it said "a scan ran since the one you reviewed".
    make_files(plans_dir, PLANS)
    none_yet = cli("apply", "--proposal", "deadbeef", "--plans-dir", str(plans_dir), "--yes")
    assert none_yet.exit_code == 2
    assert f"no scan deadbeef is recorded for {plans_dir}; run clarity scan" in none_yet.stderr
    assert cli("scan", "--plans-dir", str(plans_dir)).exit_code == 0
    other = cli("apply", "--proposal", "deadbeef", "--plans-dir", str(plans_dir), "--yes")
    assert other.exit_code == 2 and other.stderr.count("\n") == 1
    assert f"no scan deadbeef is recorded for {plans_dir} (the latest is" in other.stderr
