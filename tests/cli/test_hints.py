"""Every hint repeats the options that chose its directories (SPEC 6): run as printed, it
acts on the same plans."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot

PLANS = {
    "done.md": Plan("# Cache layer COMPLETED\n\nDone.\n" + "x" * 3000, 20),
    "idle.md": Plan("# Idle\n\n" + "y" * 3000, 25),
}
ODD = "my plans $(touch pwned) 'q' %s"  # what a shell must not read as anything but a name


def _hinted(stderr: str) -> list[str]:
    """The clarity command inside the scan's closing hint, split as a shell would."""
    line = next(line for line in stderr.splitlines() if line.startswith("Review the above"))
    command = line.removeprefix("Review the above, then run ").removesuffix(
        " to carry out exactly this scan."
    )
    return shlex.split(command)


def test_the_apply_hint_after_scan_acts_on_the_scanned_directories(cli, tmp_path: Path):
    plans_dir = tmp_path / ODD
    archive_dir = tmp_path / f"{ODD} archive"
    make_files(plans_dir, PLANS)
    dirs = ("--plans-dir", str(plans_dir), "--archive-dir", str(archive_dir))

    scanned = cli("scan", *dirs, "--now", NOW_ISO)
    words = _hinted(scanned.stderr)

    assert words[:2] == ["clarity", "apply"]
    assert words[-4:] == list(dirs)
    applied = cli(*words[1:], "--yes")
    assert applied.exit_code == 0, applied.stderr
    assert sorted(p.name for p in plans_dir.iterdir()) == ["idle.md"]
    assert (archive_dir / "index.jsonl").exists()
    assert not any(tmp_path.rglob("pwned"))


def test_the_footer_and_cleanup_hints_carry_the_options_too(cli, isolated_home: Path):
    plans_dir = isolated_home / ".claude" / "plans"  # Claude Code's own: the countdown shows
    make_files(plans_dir, PLANS)

    table = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).stdout

    quoted = shlex.quote(str(plans_dir))
    assert "--proposal " in table and f"--plans-dir {quoted}" in table
    assert f"keep a plan with: clarity archive NAME --plans-dir {quoted}" in table


def test_a_directory_chosen_by_the_environment_is_not_repeated(cli, tmp_path, monkeypatch):
    plans_dir = tmp_path / "plans"
    make_files(plans_dir, PLANS)
    monkeypatch.setenv("CLARITY_PLANS_DIR", str(plans_dir))

    words = _hinted(cli("scan", "--now", NOW_ISO).stderr)

    assert words[:3] == ["clarity", "apply", "--proposal"]
    assert len(words) == 4  # the same shell chooses the same directory again


@pytest.mark.parametrize(
    ("option", "value"), [("--stale-days", "1"), ("--stale-bytes", "10"), ("--dormant-days", "2")]
)
def test_apply_refuses_a_threshold_only_a_rescan_would_use(cli, plans_dir, option, value):
    make_files(plans_dir, PLANS)
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    before = snapshot(plans_dir)

    refused = cli("apply", "--plans-dir", str(plans_dir), option, value, "--yes")

    assert refused.exit_code == 2
    assert refused.stderr.count("\n") == 1
    assert f"{option} changes how plans are classified" in refused.stderr
    assert f"clarity scan {option} {value} --plans-dir {plans_dir}" in refused.stderr
    assert snapshot(plans_dir) == before
    rescanned = cli("apply", "--plans-dir", str(plans_dir), option, value, "--rescan", "--yes")
    assert rescanned.exit_code == 0, rescanned.stderr


def test_apply_and_its_errors_name_commands_for_the_same_directory(cli, plans_dir: Path):
    make_files(plans_dir, PLANS)
    dirs = ("--plans-dir", str(plans_dir))

    unscanned = cli("apply", *dirs, "--yes")
    assert f"run clarity scan --plans-dir {plans_dir}, review it" in unscanned.stderr
    assert f"(or clarity apply --rescan --plans-dir {plans_dir} to do both)" in unscanned.stderr

    applied = cli("apply", *dirs, "--rescan", "--yes", "--now", NOW_ISO)
    assert f"Changed your mind? clarity undo --plans-dir {plans_dir} puts" in applied.stdout


def test_apply_of_an_older_scan_keeps_the_plan_named_current(cli, plans_dir: Path):
    make_files(plans_dir, PLANS)
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0

    applied = cli("apply", "--plans-dir", str(plans_dir), "--current", "done.md", "--yes")

    assert applied.exit_code == 0, applied.stderr
    assert (plans_dir / "done.md").exists()  # taken up again since the scan: left alone
    assert "done.md" in applied.stdout and "current session's plan" in applied.stdout


@pytest.mark.parametrize(
    "name",
    [
        "tab\tname.md",
        "esc\x1b[2Jclear.md",
        "two\nlines.md",
        "it's a \\ plan.md",
        "ok.md",
        "bytes\udcff\udcfe-not-utf8.md",  # as Python holds a name's bytes: \xff, not \udcff
    ],
)
def test_a_hint_names_a_file_with_control_characters_as_bash_reads_it(name: str):
    import subprocess
    import sys

    from clarity.hints import clarity_command
    from clarity.printable import printable

    hint = clarity_command("restore", f"2026-Q4/{name}")
    assert printable(hint) == hint  # the terminal shows it as it is, nothing escaped away
    words = hint.removeprefix("clarity ")
    script = f"{sys.executable} -c 'import sys; sys.stdout.write(repr(sys.argv[1:]))' {words}"
    read = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert read.stdout == repr(["restore", f"2026-Q4/{name}"])


def test_hints_name_the_clarity_that_ran_when_path_does_not_find_it(tmp_path: Path) -> None:
    # Issue 36, item 6: after README's first command clarity is .venv/bin/clarity, not on
    # PATH, and the demo's hint `clarity scan ...` was "command not found".
    import subprocess
    import sys

    script = Path(sys.executable).with_name("clarity")
    env = {**os.environ, "HOME": str(tmp_path)}

    def demo(path: str, folder: str) -> str:
        ran = subprocess.run(
            [str(script), "demo", "--dir", str(tmp_path / folder)],
            env={**env, "PATH": path},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return ran.stdout + ran.stderr

    assert f"  {script} scan --plans-dir {tmp_path / 'one'}" in demo("/usr/bin:/bin", "one")
    on_path = demo(f"{script.parent}:/usr/bin:/bin", "two")
    assert f"  clarity scan --plans-dir {tmp_path / 'two'}" in on_path


@pytest.mark.parametrize(
    "command", ["scan", "apply", "undo", "archive", "archived", "show", "restore", "history",
                "diff", "search", "config", "demo", "install-command", "uninstall-command"]
)  # fmt: skip
def test_help_names_each_value_as_a_person_would(cli, command: str) -> None:
    # Issue 36, item 12: `--output <str>`, `--limit <int range>`.
    shown = cli(command, "--help")
    assert shown.exit_code == 0
    assert (
        "<str>" not in shown.stdout and "<int" not in shown.stdout and "<float" not in shown.stdout
    )
