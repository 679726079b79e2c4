"""`clarity scan` end to end: formats, options, and errors a user can cause."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from clarity.judge.proposal import load_proposal
from clarity.state import DirState
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.processes import run_process

# SPEC 6, the example document: these names are the contract (fields may be
# added, never renamed).
SPEC_TOP_LEVEL = {"schema_version", "plans_dir", "now", "plans", "counts", "skipped"}
SPEC_PLAN_FIELDS = {
    "name", "path", "class", "action", "reason", "size", "mtime", "age_days",
    "title", "parent", "subplans", "warnings",
}  # fmt: skip
SPEC_COUNTS = {"active", "completed", "stale", "dormant"}


def test_json_matches_spec_6_field_for_field(cli, plans_dir: Path, tmp_path: Path) -> None:
    foo = "# Foo migration COMPLETED\n\nMoved the foo table.\n"
    sub = "# Research for foo\n"
    make_files(plans_dir, {"foo.md": Plan(foo, 19 + 1 / 24), "foo-agent-a1b2c3.md": Plan(sub, 19)})
    (plans_dir / "link.md").symlink_to(tmp_path / "nowhere.md")

    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")

    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert set(document) >= SPEC_TOP_LEVEL
    assert all(set(plan) >= SPEC_PLAN_FIELDS for plan in document["plans"])
    assert set(document["counts"]) == SPEC_COUNTS
    recorded = load_proposal(DirState.for_plans_dir(plans_dir))
    assert recorded is not None
    assert document.pop("proposal") == {"id": recorded.id, "scanned_at": NOW_ISO}
    assert document == {
        "schema_version": 1,
        "plans_dir": str(plans_dir),
        "archive_dir": str(plans_dir.parent / "plans-archive"),
        "now": "2026-11-21T10:00:00+00:00",
        "plans": [
            {
                "name": "foo-agent-a1b2c3.md",
                "path": str(plans_dir / "foo-agent-a1b2c3.md"),
                "class": "completed",
                "action": "archive",
                "reason": "follows parent foo.md",
                "size": len(sub),
                "mtime": "2026-11-02T10:00:00+00:00",
                "age_days": 19.0,
                "title": "Research for foo",
                "parent": "foo.md",
                "subplans": [],
                "warnings": [],
                "project": None,
                "decided_by": "its parent",
                "agent": "claude-code",  # whose plan (issue 44): added, as SPEC 6 allows
            },
            {
                "name": "foo.md",
                "path": str(plans_dir / "foo.md"),
                "class": "completed",
                "action": "archive",
                "reason": 'H1 marker "COMPLETED"',
                "size": len(foo),
                "mtime": "2026-11-02T09:00:00+00:00",
                "age_days": 19.04,
                "title": "Foo migration COMPLETED",
                "parent": None,
                "subplans": ["foo-agent-a1b2c3.md"],
                "warnings": [],
                "project": None,
                "decided_by": "terminal marker",
                "agent": "claude-code",
            },
        ],
        "counts": {"active": 0, "completed": 2, "stale": 0, "dormant": 0},
        "decided_by": {"terminal marker": 1},
        "skipped": [{"path": str(plans_dir / "link.md"), "reason": "symlink: not followed"}],
        "notes": [],
        "cleanup_period_days": None,  # not Claude Code's own plans dir: never cleaned
    }


def test_format_json_equals_the_json_flag(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"a.md": Plan("# A\n", 3)})
    flag = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    option = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--format", "json")
    assert flag.stdout == option.stdout


def test_an_empty_plans_directory(cli, plans_dir: Path) -> None:
    document = cli("scan", "--plans-dir", str(plans_dir), "--json").json()
    assert document["plans"] == []
    assert document["counts"] == {"active": 0, "completed": 0, "stale": 0, "dormant": 0}
    table = cli("scan", "--plans-dir", str(plans_dir))
    assert table.exit_code == 0
    assert "0 plans" in table.stdout


def sample_tree() -> dict[str, Plan]:
    return {
        "done.md": Plan("# Ship it COMPLETED\n", 10),
        "done-agent-ab12.md": Plan("# helper\n", 10),
        "stub.md": Plan("# stub\n", 9),
        "old.md": Plan("# Old idea\n" + "words " * 600, 30),
        "live.md": Plan("# Live\n", 0),
    }


def test_markdown_report(cli, plans_dir: Path) -> None:
    make_files(plans_dir, sample_tree())
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--format", "markdown")
    assert result.exit_code == 0
    text = result.stdout
    assert text.startswith("## clarity: Plans in ")
    assert "**5 plans: 1 active (keep), 2 completed (archive), 1 stale (trash), 1 dormant" in text
    sections = [line for line in text.splitlines() if line.startswith("### ")]
    assert sections == [
        "### Active: keep (1)",
        "### Completed: archive (2)",
        "### Stale: send to trash (1)",
        "### Dormant: for you to review (left in place) (1)",
    ]
    lines = text.splitlines()
    parent_row = next(i for i, line in enumerate(lines) if line.startswith("| `done.md`"))
    assert lines[parent_row + 1].startswith("| ↳ `done-agent-ab12.md`")
    assert "| follows parent |" in lines[parent_row + 1]


def test_markdown_escapes_pipes_and_backticks(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"we`ird.md": Plan("# a | b COMPLETED\n", 3)})
    text = cli("scan", "--plans-dir", str(plans_dir), "--format", "markdown").stdout
    row = next(line for line in text.splitlines() if "ird.md" in line)
    assert "``we`ird.md``" in row
    assert "a \\| b COMPLETED" in row


def test_table_report_groups_by_class_with_sub_plans_under_their_parent(
    cli, plans_dir: Path
) -> None:
    make_files(plans_dir, sample_tree())
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert result.exit_code == 0
    out = result.stdout
    assert "5 plans: 1 active (keep), 2 completed (archive)" in out
    # What stays, what apply moves; last, the plans that need a decision, then the commands.
    titles = ("was decided", "Active:", "Completed: archive", "Stale:", "Dormant:", "--proposal")
    order = [out.index(title) for title in titles]
    assert order == sorted(order)
    assert "└ …-agent-ab12.md" in out
    assert 'H1 marker "COMPLETED"' in out


def test_names_are_never_read_as_markup(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"[bold]x.md": Plan("# [red]t[/red]\n", 3)})
    out = cli("scan", "--plans-dir", str(plans_dir)).stdout
    assert "[bold]x.md" in out
    assert "[red]t[/red]" in out


def test_skipped_and_warnings_are_shown(cli, plans_dir: Path, tmp_path: Path) -> None:
    make_files(plans_dir, {"bad.md": Plan("---\nstatus: [x\n---\n# T\n", 3)})
    (plans_dir / "link.md").symlink_to(tmp_path)
    out = cli("scan", "--plans-dir", str(plans_dir)).stdout
    assert "Skipped (1)" in out
    assert "link.md: symlink: not followed" in out
    assert "bad.md: malformed frontmatter ignored" in out


def test_thresholds_from_options(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"a.md": Plan("# A\n" + "x" * 3000, 5)})
    args = ("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    assert cli(*args).json()["plans"][0]["class"] == "active"
    assert cli(*args, "--stale-days", "4", "--stale-bytes", "4000").json()["plans"][0]["class"] == (
        "stale"
    )
    assert cli(*args, "--dormant-days", "4").json()["plans"][0]["class"] == "dormant"


def test_current_plan_by_name_path_or_env(cli, plans_dir: Path, monkeypatch) -> None:
    make_files(plans_dir, {"cur.md": Plan("# x COMPLETED\n", 30), "other.md": Plan("# y\n", 30)})
    args = ("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")

    def classes(*extra: str) -> dict[str, str]:
        return {p["name"]: p["class"] for p in cli(*args, *extra).json()["plans"]}

    assert classes()["cur.md"] == "completed"
    assert classes("--current", "cur.md")["cur.md"] == "active"
    assert classes("--current", str(plans_dir / "cur.md"))["cur.md"] == "active"
    assert classes("--current", "/somewhere/else/cur.md")["cur.md"] == "completed"
    both = classes("--current", "cur.md", "--current", "other.md")
    assert both == {"cur.md": "active", "other.md": "active"}
    monkeypatch.setenv("CLARITY_CURRENT_PLAN", str(plans_dir / "cur.md"))
    assert classes()["cur.md"] == "active"


def test_naive_now_is_local_time(cli, plans_dir: Path, monkeypatch) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        make_files(plans_dir, {"a.md": Plan("# a\n", 0)})
        document = cli("scan", "--plans-dir", str(plans_dir), "--now", "2026-11-21T10:00", "--json")
        assert document.json()["now"] == "2026-11-21T10:00:00+09:00"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_plans_dir_from_env_and_archive_dir_option(
    cli, plans_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CLARITY_PLANS_DIR", str(plans_dir))
    document = cli("scan", "--json", "--archive-dir", str(tmp_path / "arch")).json()
    assert document["plans_dir"] == str(plans_dir)
    assert document["archive_dir"] == str(tmp_path / "arch")


def test_claude_config_dir_finds_the_plans(cli, tmp_path: Path, monkeypatch) -> None:
    make_files(tmp_path / "cc" / "plans", {"a.md": Plan("# a\n", 1)})
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    document = cli("scan", "--json").json()
    assert document["plans_dir"] == str(tmp_path / "cc" / "plans")
    assert [p["name"] for p in document["plans"]] == ["a.md"]


# Errors: one line, exit 2, nothing changed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--plans-dir", "{missing}"],
            "plans directory {missing} does not exist (from option --plans-dir)",
        ),
        (["--plans-dir", "{file}"], "plans directory {file} is not a directory"),
        (["--now", "yesterday"], "--now: 'yesterday' is not an ISO-8601 date-time"),
        (["--stale-days", "-1"], "--stale-days: must be a number of days >= 0, not -1"),
        (["--stale-bytes", "-1"], "--stale-bytes: must be a number of bytes >= 0, not -1"),
        (["--dormant-days", "-0.5"], "--dormant-days: must be a number of days >= 0, not -0.5"),
        (["--stale-days", "abc"], "Invalid value for '--stale-days'"),
        (["--json", "--format", "markdown"], "--json and --format markdown/table disagree"),
        (["--format", "yaml"], "'yaml' is not one of"),
        (["--no-such-option"], "No such option: --no-such-option"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    cli, plans_dir: Path, tmp_path: Path, args, message
) -> None:
    (tmp_path / "a-file").write_text("x")
    values = {"missing": str(tmp_path / "missing"), "file": str(tmp_path / "a-file")}
    args = [arg.format(**values) for arg in args]
    if "--plans-dir" not in args:
        args += ["--plans-dir", str(plans_dir)]
    result = cli("scan", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("clarity: error: ")
    assert message.format(**values) in result.stderr


def test_a_first_run_with_no_plans_yet_is_no_error(cli, isolated_home: Path) -> None:
    # Issue 36, item 10: Claude Code makes ~/.claude/plans in its first plan mode; before
    # that, a new user's first scan is not an error. A folder the person names still is.
    result = cli("scan")
    assert result.exit_code == 0
    assert result.stderr == (
        f"clarity: no plans yet in {isolated_home / '.claude' / 'plans'} (Claude Code writes "
        "them in plan mode); try clarity demo to see what clarity does\n"
    )
    assert not (isolated_home / ".claude").exists()  # nothing made
    named = cli("scan", "--plans-dir", str(isolated_home / ".claude" / "plans"))
    assert named.exit_code == 2 and "does not exist (from option --plans-dir)" in named.stderr


def test_errors_in_a_real_process_have_no_traceback(tmp_path: Path) -> None:
    cases = [
        ["scan", "--plans-dir", str(tmp_path / "missing")],
        ["scan", "--plans-dir", str(tmp_path), "--now", "not-a-date"],
        ["scan", "--plans-dir", str(tmp_path), "--stale-days", "x"],
        ["scan", "--bogus"],
        ["bogus-command"],
    ]
    for args in cases:
        result = run_process(*args)
        assert result.exit_code == 2, (args, result)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stdout == ""


def test_a_bad_config_file_stops_a_scan_in_a_real_process(
    tmp_path: Path, isolated_home: Path
) -> None:
    config = isolated_home / ".config" / "clarity" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("stale_days = [\n")
    result = run_process("scan", "--plans-dir", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"clarity: error: {config}: not valid TOML")
    assert len(result.stderr.strip().splitlines()) == 1


def test_python_dash_m_and_help(tmp_path: Path) -> None:
    make_files(tmp_path / "plans", {"a.md": Plan("# a\n", 1)})
    result = run_process("scan", "--plans-dir", str(tmp_path / "plans"), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["plans"][0]["name"] == "a.md"
    helped = run_process("--help")
    assert helped.exit_code == 0
    for command in ("scan", "config", "demo"):
        assert command in helped.stdout


def test_a_run_that_builds_only_its_command_parses_like_the_whole_app(cli) -> None:
    """main() builds only the command argv names; help and mistakes must not notice."""
    from clarity.cli import app, command_name

    every = {command_name(info) for info in app.registered_commands}
    listed = cli("--help")
    assert listed.exit_code == 0
    assert every <= set(listed.stdout.replace("│", " ").split())  # every command listed
    helped = cli("scan", "--help")
    assert helped.exit_code == 0
    assert "Usage: clarity scan [OPTIONS]" in helped.stdout
    assert "--plans-dir" in helped.stdout
    typo = cli("scna")
    assert typo.exit_code == 2
    assert "No such command 'scna'. Did you mean 'scan'?" in typo.stderr
    wrong = cli("scan", "--nope")
    assert wrong.exit_code == 2
    assert "No such option: --nope" in wrong.stderr
    nested = cli("schedule", "--help")
    assert nested.exit_code == 0
    assert "Usage: clarity schedule" in nested.stdout


def test_piping_into_a_closed_reader_is_quiet(tmp_path: Path) -> None:
    make_files(tmp_path / "plans", {f"p{i}.md": Plan(f"# plan {i}\n", i % 30) for i in range(300)})
    read_fd, write_fd = os.pipe()
    os.close(read_fd)  # the reader is gone before clarity writes
    import subprocess
    import sys

    completed = subprocess.run(
        [sys.executable, "-m", "clarity", "scan", "--plans-dir", str(tmp_path / "plans"), "--json"],
        stdout=write_fd,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )
    os.close(write_fd)
    assert "Traceback" not in completed.stderr


@pytest.mark.parametrize(
    "extra",
    [(), ("--agent",)],  # --agent without ANTHROPIC_API_KEY: one note, and still no SDK
)
def test_scan_never_imports_the_agent_sdk(tmp_path: Path, extra: tuple[str, ...]) -> None:
    make_files(tmp_path / "plans", {"a.md": Plan("---\nstatus: done\n---\n# a\n", 1)})
    import subprocess
    import sys

    completed = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "clarity",
            "scan",
            "--plans-dir",
            str(tmp_path / "plans"),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    imported = {
        line.split("|")[-1].strip() for line in completed.stderr.splitlines() if "|" in line
    }
    assert "typer" in imported  # the measurement works
    assert not {name for name in imported if name.split(".")[0] == "anthropic"}


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="undecodable names are a Linux matter")
def test_a_name_that_is_not_utf8_survives_json_exactly(cli, plans_dir: Path) -> None:
    raw = os.fsencode(plans_dir) + b"/caf\xe9.md"
    fd = os.open(raw, os.O_WRONLY | os.O_CREAT, 0o644)  # bytes path: pathlib cannot spell it
    os.write(fd, b"# T\n")
    os.close(fd)
    result = cli("scan", "--plans-dir", str(plans_dir), "--json")
    assert result.exit_code == 0
    assert os.fsencode(result.json()["plans"][0]["name"]) == b"caf\xe9.md"
    table = cli("scan", "--plans-dir", str(plans_dir))
    assert table.exit_code == 0
    assert "caf\ufffd.md" in table.stdout


def test_output_replaces_only_a_report_clarity_wrote(cli, plans_dir: Path, tmp_path: Path):
    # scan is what the /clarity skill runs unasked: it must change nothing of the person's
    make_files(plans_dir, {"a.md": Plan("# A COMPLETED\n", 20)})
    precious = tmp_path / ".bashrc"
    precious.write_text("export PATH=precious\n")
    args = ("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)

    refused = cli(*args, "--output", str(precious))

    assert refused.exit_code == 2
    assert "is there already and is not a report clarity wrote" in refused.stderr
    assert precious.read_text() == "export PATH=precious\n"
    report = tmp_path / "report.md"
    for output_format in ("markdown", "json", "table", "markdown"):  # each replaces the last
        written = cli(*args, "--format", output_format, "--output", str(report))
        assert written.exit_code == 0, written.stderr


def test_a_scan_with_nothing_to_move_offers_no_apply(cli, plans_dir: Path, tmp_path: Path) -> None:
    make_files(plans_dir, sample_tree())
    elsewhere = tmp_path / "no-sessions-here"
    elsewhere.mkdir()

    result = cli("scan", "--plans-dir", str(plans_dir), "--project", str(elsewhere))

    assert result.exit_code == 0, result.stderr
    assert "0 plans" in result.stdout
    assert "clarity apply" not in result.stdout + result.stderr
    assert "Nothing for apply to do" in result.stdout
    assert f"--project {elsewhere}: no plan's session worked there" in result.stdout


def test_output_into_a_folder_that_is_not_there_is_refused_not_made(
    cli, plans_dir: Path, tmp_path: Path
) -> None:
    # Issue 36, item 3: it said "report written" and made /nonexistent/dir/.
    make_files(plans_dir, {"a.md": Plan("# A COMPLETED\n", 20)})
    missing = tmp_path / "nonexistent" / "dir" / "r.md"
    result = cli("scan", "--plans-dir", str(plans_dir), "--output", str(missing))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert f"there is no folder {missing.parent}" in result.stderr
    assert not (tmp_path / "nonexistent").exists()


def test_how_each_plan_was_decided_adds_up_to_the_plans_counted(cli, plans_dir: Path) -> None:
    # Issue 36, item 12: the counts line counts every file; the line under it left the
    # sub-plans out, so the two did not add up.
    make_files(plans_dir, sample_tree())
    shown = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).stdout
    counted = re.search(r"^(\d+) plans: ", shown, re.M)
    decided = re.search(r"^How each plan was decided: (.*)$", shown, re.M)
    assert counted and decided
    parts = [int(part.split()[0]) for part in decided.group(1).split(", ")]
    assert sum(parts) == int(counted.group(1))
    assert "following their parent" in decided.group(1) or "following its parent" in (
        decided.group(1)
    )
