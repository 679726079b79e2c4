"""`clarity demo` and the shipped sample: ages from the fixture, not from git."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from clarity.workflows.demo import sample_dir, sample_plans
from tests.builders.files import DAY, make_files
from tests.builders.processes import run_process


def test_every_sample_file_has_an_age_and_an_expected_class() -> None:
    on_disk = sorted(path.name for path in (sample_dir() / "plans").iterdir())
    declared = sorted(plan.name for plan in sample_plans())
    assert on_disk == declared
    assert {plan.expect for plan in sample_plans()} == {"active", "completed", "stale", "dormant"}


def test_demo_classifies_the_sample_as_its_manifest_says(cli, tmp_path: Path) -> None:
    result = cli("demo", "--dir", str(tmp_path / "sample"), "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    got = {plan["name"]: plan["class"] for plan in document["plans"]}
    assert got == {plan.name: plan.expect for plan in sample_plans()}
    assert document["skipped"] == []


def test_demo_sets_each_files_age_from_the_manifest(cli, tmp_path: Path) -> None:
    before = time.time()
    cli("demo", "--dir", str(tmp_path / "sample"), "--json")
    for plan in sample_plans():
        mtime = (tmp_path / "sample" / plan.name).stat().st_mtime
        age_days = (before - mtime) / DAY
        assert abs(age_days - plan.age_days) < 0.01, plan.name


def test_demo_copies_the_bytes_of_the_sample(cli, tmp_path: Path) -> None:
    cli("demo", "--dir", str(tmp_path / "sample"), "--format", "markdown")
    for plan in sample_plans():
        original = (sample_dir() / "plans" / plan.name).read_bytes()
        assert (tmp_path / "sample" / plan.name).read_bytes() == original


def test_demo_in_a_temporary_directory_leaves_nothing_behind(cli, tmp_path, monkeypatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    tempfile.tempdir = None  # read TMPDIR again
    try:
        result = cli("demo")
    finally:
        tempfile.tempdir = None
    assert result.exit_code == 0
    assert "Completed: archive" in result.stdout
    assert "clarity demo --dir clarity-demo" in result.stderr
    assert list(scratch.iterdir()) == []
    # No command points at the folder just removed (it said "apply needs --rescan").
    lines = (result.stdout + result.stderr).splitlines()
    assert not any("--rescan" in line or f"clarity {scratch}" in line for line in lines)
    assert not any(" --plans-dir " in line and str(scratch) in line for line in lines)


def test_demo_shows_the_defaults_whatever_this_machine_is_set_to(
    cli, tmp_path, isolated_home, monkeypatch
) -> None:
    # a user's thresholds, plans dir and Claude Code cleanup period are theirs, not the sample's
    config = isolated_home / ".config" / "clarity" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("stale_days = 1000\ndormant_days = 1000\n")
    monkeypatch.setenv("CLARITY_STALE_BYTES", "1")
    claude = isolated_home / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text('{"cleanupPeriodDays": 2}')

    document = cli("demo", "--dir", str(tmp_path / "sample"), "--json").json()

    got = {plan["name"]: plan["class"] for plan in document["plans"]}
    assert got == {plan.name: plan.expect for plan in sample_plans()}
    assert document["cleanup_period_days"] is None
    assert not (isolated_home / ".local" / "state").exists()  # nothing recorded for the sample


def test_demo_refuses_a_directory_that_is_not_empty(cli, tmp_path: Path) -> None:
    make_files(tmp_path / "busy", {"mine.md": "# mine\n"})
    result = cli("demo", "--dir", str(tmp_path / "busy"))
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"clarity: error: --dir {tmp_path / 'busy'} must be a new or empty directory\n"
    )
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["mine.md"]


def test_demo_runs_as_a_new_user_would(tmp_path: Path) -> None:
    result = run_process("demo", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert f"{len(sample_plans())} plans" in result.stdout
