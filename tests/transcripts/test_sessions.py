"""Living beside Claude Code (SPEC 9): plans of live sessions, the current session,
and the countdown to Claude Code's own cleanup, on a realistic fake ~/.claude."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clarity.model import PlanSessions
from clarity.transcripts.sessions import find_plan_sessions
from tests.builders.claude_home import (
    HOUR,
    plan_mode,
    tool_result,
    tool_use,
    user_text,
    write_settings,
    write_transcript,
)
from tests.builders.files import NOW, NOW_ISO, Plan, make_files

SESSION = "6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b"
OTHER = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

DORMANT = "# Search rewrite\n\nMove search to the new index.\n\n" + "Detail. " * 400
STUB = "# Quick idea\n"
DONE = "# Cache layer COMPLETED\n\nAdded the cache.\n"


@pytest.fixture
def claude_dir(isolated_home: Path) -> Path:
    return isolated_home / ".claude"  # Claude Code's config dir when CLAUDE_CONFIG_DIR is unset


def scan(cli, plans_dir: Path, *args: str) -> dict[str, dict[str, Any]]:
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json", *args)
    assert result.exit_code == 0, result.stderr
    return {plan["name"]: plan for plan in result.json()["plans"]}


def test_a_plan_a_live_session_entered_plan_mode_on_stays_active(cli, plans_dir, claude_dir):
    make_files(plans_dir, {"search.md": Plan(DORMANT, 30), "idle.md": Plan(DORMANT, 30)})
    before = scan(cli, plans_dir)
    assert before["search.md"]["class"] == "dormant"

    write_transcript(
        claude_dir,
        SESSION,
        [user_text(SESSION, "plan the search work"), plan_mode(SESSION, plans_dir / "search.md")],
        age_hours=2,
    )
    after = scan(cli, plans_dir)

    assert after["search.md"]["class"] == "active"
    assert after["search.md"]["action"] == "keep"
    assert after["search.md"]["reason"] == f"in use by session {SESSION[:8]}"
    assert after["idle.md"]["class"] == "dormant"  # only the referenced plan


def test_write_and_edit_into_the_plans_dir_protect_but_other_paths_do_not(
    cli, plans_dir, claude_dir, tmp_path
):
    make_files(
        plans_dir,
        {
            "written.md": Plan(DONE, 20),
            "edited.md": Plan(STUB, 20),
            "read-only.md": Plan(DONE, 20),
            "elsewhere.md": Plan(DONE, 20),
        },
    )
    other_dir = tmp_path / "other" / "plans"
    write_transcript(
        claude_dir,
        SESSION,
        [
            tool_use(SESSION, "Write", plans_dir / "written.md", content="# Cache layer\n"),
            tool_use(SESSION, "Edit", plans_dir / "edited.md", old_string="a", new_string="b"),
            tool_use(SESSION, "Read", plans_dir / "read-only.md"),
            tool_use(SESSION, "Write", other_dir / "elsewhere.md", content="x"),
        ],
    )
    plans = scan(cli, plans_dir)

    assert plans["written.md"]["reason"] == f"in use by session {SESSION[:8]}"
    assert plans["edited.md"]["reason"] == f"in use by session {SESSION[:8]}"
    assert plans["read-only.md"]["class"] == "completed"  # reading a plan is not using it
    assert plans["elsewhere.md"]["class"] == "completed"  # same name, another directory


def test_apply_never_moves_a_plan_a_live_session_uses(cli, plans_dir, claude_dir):
    make_files(
        plans_dir,
        {
            "cache.md": Plan(DONE, 20),
            "cache-agent-a1b2.md": Plan("# Research\n", 20),
            "other.md": Plan(DONE, 20),
        },
    )
    write_transcript(claude_dir, OTHER, [plan_mode(OTHER, plans_dir / "cache-agent-a1b2.md")])

    result = cli("apply", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--rescan", "--yes")

    assert result.exit_code == 0, result.stderr
    # The parent is archived; its sub-plan, in use, stands on its own and stays.
    assert sorted(p.name for p in plans_dir.iterdir()) == ["cache-agent-a1b2.md"]


def test_a_plan_a_session_took_up_after_the_scan_is_skipped_by_apply(cli, plans_dir, claude_dir):
    make_files(
        plans_dir,
        {
            "cache.md": Plan(DONE, 20),
            "cache-agent-a1b2.md": Plan("# Research\n", 20),
            "other.md": Plan(DONE, 20),
            "stub.md": Plan(STUB, 10),
        },
    )
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    # After the review, a session picks up the sub-plan and another session a stub.
    write_transcript(claude_dir, OTHER, [plan_mode(OTHER, plans_dir / "cache-agent-a1b2.md")])
    write_transcript(claude_dir, SESSION, [tool_use(SESSION, "Edit", plans_dir / "stub.md")])

    result = cli("apply", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--yes", "--json")

    assert result.exit_code == 0, result.stderr
    by_name = {r["name"]: r for r in result.json()["results"]}
    assert by_name["other.md"]["status"] == "done"
    assert by_name["cache.md"]["status"] == "skipped"
    assert by_name["cache.md"]["reason"] == (
        f"its sub-plan cache-agent-a1b2.md: in use by session {OTHER[:8]}"
    )
    assert by_name["cache-agent-a1b2.md"]["status"] == "skipped"
    assert by_name["stub.md"]["reason"] == f"in use by session {SESSION[:8]}"
    assert sorted(p.name for p in plans_dir.iterdir()) == [
        "cache-agent-a1b2.md",
        "cache.md",
        "stub.md",
    ]


def test_protection_lasts_protect_hours_from_the_transcripts_last_change(
    cli, plans_dir, claude_dir
):
    make_files(plans_dir, {"search.md": Plan(DORMANT, 30)})
    write_transcript(
        claude_dir, SESSION, [plan_mode(SESSION, plans_dir / "search.md")], age_hours=30
    )

    assert scan(cli, plans_dir)["search.md"]["class"] == "dormant"  # 30 h > the 24 h default
    widened = scan(cli, plans_dir, "--protect-hours", "48")
    assert widened["search.md"]["reason"] == f"in use by session {SESSION[:8]}"
    (claude_dir.parent / ".config" / "clarity").mkdir(parents=True)
    (claude_dir.parent / ".config" / "clarity" / "config.toml").write_text("protect_hours = 31\n")
    assert scan(cli, plans_dir)["search.md"]["class"] == "active"  # from the config file
    assert scan(cli, plans_dir, "--protect-hours", "0")["search.md"]["class"] == "dormant"


def test_the_latest_session_to_use_a_plan_is_named(cli, plans_dir, claude_dir):
    make_files(plans_dir, {"search.md": Plan(DORMANT, 30)})
    write_transcript(claude_dir, OTHER, [plan_mode(OTHER, plans_dir / "search.md")], age_hours=5)
    write_transcript(
        claude_dir, SESSION, [plan_mode(SESSION, plans_dir / "search.md")], age_hours=1
    )

    assert scan(cli, plans_dir)["search.md"]["reason"] == f"in use by session {SESSION[:8]}"


def test_malformed_and_torn_lines_are_skipped_and_the_rest_still_counts(cli, plans_dir, claude_dir):
    make_files(
        plans_dir,
        {"good.md": Plan(DORMANT, 30), "torn.md": Plan(DORMANT, 30), "junk.md": Plan(DORMANT, 30)},
    )
    torn = json.dumps(plan_mode(SESSION, plans_dir / "torn.md"))
    write_transcript(
        claude_dir,
        SESSION,
        [
            "this is not json",
            b"\xff\xfe binary \x00 noise",
            '{"planFilePath": ',  # cut short
            '["planFilePath", "' + str(plans_dir / "junk.md") + '"]',  # a list, not a record
            tool_result(SESSION, "x" * 300_000),  # a big line with no evidence
            plan_mode(SESSION, plans_dir / "good.md"),
            torn[: len(torn) // 2 + 40],  # the last line, torn mid-write
        ],
    )
    (claude_dir / "projects" / "-home-dev-project" / "empty.jsonl").write_bytes(b"")
    (claude_dir / "projects" / "-home-dev-project" / "folder.jsonl").mkdir()

    plans = scan(cli, plans_dir)

    assert plans["good.md"]["class"] == "active"
    assert plans["torn.md"]["class"] == "dormant"
    assert plans["junk.md"]["class"] == "dormant"


def test_session_option_makes_that_sessions_plans_current_however_old(cli, plans_dir, claude_dir):
    make_files(
        plans_dir,
        {
            "mine.md": Plan(STUB, 10),
            "mine-agent-ff01.md": Plan(STUB, 10),
            "theirs.md": Plan(STUB, 10),
        },
    )
    # The session last wrote 10 days ago: far outside the protection window.
    write_transcript(
        claude_dir, SESSION, [plan_mode(SESSION, plans_dir / "mine.md")], age_hours=240
    )
    write_transcript(
        claude_dir,
        SESSION,
        [tool_use(SESSION, "Write", plans_dir / "mine-agent-ff01.md", content="# Research\n")],
        age_hours=240,
        subagent="a91f",
    )
    write_transcript(claude_dir, OTHER, [plan_mode(OTHER, plans_dir / "theirs.md")], age_hours=240)

    plain = scan(cli, plans_dir)
    assert {plain[name]["class"] for name in plain} == {"stale"}

    plans = scan(cli, plans_dir, "--session", SESSION)
    assert plans["mine.md"]["reason"] == "current session's plan"
    assert plans["mine-agent-ff01.md"]["reason"] == "current session's plan"
    assert plans["theirs.md"]["class"] == "stale"


def test_an_unknown_or_empty_session_is_a_note_not_an_error(cli, plans_dir, claude_dir):
    make_files(plans_dir, {"mine.md": Plan(STUB, 10)})
    write_transcript(claude_dir, OTHER, [plan_mode(OTHER, plans_dir / "mine.md")], age_hours=240)

    result = cli(
        "scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json", "--session", SESSION
    )
    assert result.exit_code == 0
    assert result.json()["notes"] == [
        f"session {SESSION}: no transcript found under {claude_dir / 'projects'}"
    ]
    empty = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json", "--session=")
    assert empty.exit_code == 0
    assert empty.json()["notes"] == []


def test_a_plans_dir_reached_through_a_link_matches_the_real_path(
    cli, plans_dir, claude_dir, tmp_path
):
    make_files(plans_dir, {"search.md": Plan(DORMANT, 30)})
    link = tmp_path / "linked-plans"
    link.symlink_to(plans_dir)
    write_transcript(claude_dir, SESSION, [plan_mode(SESSION, plans_dir.resolve() / "search.md")])

    assert scan(cli, link)["search.md"]["class"] == "active"


def test_old_transcripts_are_read_once_and_only_new_lines_after(plans_dir, claude_dir, tmp_path):
    make_files(plans_dir, {"search.md": Plan(DORMANT, 30)})
    for number in range(300):
        session = f"old-{number:04d}"
        write_transcript(
            claude_dir,
            session,
            [plan_mode(session, plans_dir / "search.md")],
            age_hours=48 + number,
            project=f"-home-dev-p{number % 7}",
        )
    live = write_transcript(claude_dir, SESSION, [plan_mode(SESSION, plans_dir / "search.md")])
    store = tmp_path / "sessions.json"

    def look() -> PlanSessions:
        return find_plan_sessions(
            claude_dir / "projects", plans_dir, NOW.timestamp(), 24, None, store
        )

    first = look()
    assert first.transcripts_read == 301
    assert dict(first.in_use) == {"search.md": SESSION}  # old sessions are not live ones

    again = look()
    assert (again.transcripts_read, again.bytes_read) == (0, 0)
    assert dict(again.in_use) == {"search.md": SESSION}

    line = json.dumps(user_text(SESSION, "carry on"), separators=(",", ":")).encode() + b"\n"
    with live.open("ab") as stream:
        stream.write(line)
    appended = look()
    assert (appended.transcripts_read, appended.bytes_read) == (1, len(line))


# The countdown to Claude Code's own cleanup (only of <claude config dir>/plans)


def test_dormant_plans_show_the_days_left_before_claude_code_deletes_them(cli, claude_dir):
    plans_dir = claude_dir / "plans"
    make_files(
        plans_dir,
        {
            "young.md": Plan(DORMANT, 16.5),
            "overdue.md": Plan(DORMANT, 25),
            "done.md": Plan(DONE, 16),
            "pinned.md": Plan("---\npinned: true\n---\n# Roadmap\n" + "z" * 3000, 18),
            "fresh.md": Plan(DORMANT, 3),
        },
    )
    write_settings(claude_dir, {"cleanupPeriodDays": 20, "model": "opus"})

    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    document = result.json()
    plans = {plan["name"]: plan for plan in document["plans"]}

    assert document["cleanup_period_days"] == 20
    assert plans["young.md"]["cleanup_in_days"] == 3  # 3.5 days left: whole days, rounded down
    assert plans["overdue.md"]["cleanup_in_days"] == -5
    assert "cleanup_in_days" not in plans["done.md"]  # archived by apply: out of reach

    table = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert "Claude Code deletes it in 3 days" in table.stdout
    assert "past Claude Code's cleanup age: deleted at its next start" in table.stdout
    assert "Claude Code deletes plans older than 20 days" in table.stdout
    rows = table.stdout.splitlines()
    pinned = rows.index(next(row for row in rows if "pinned.md" in row))
    assert "Claude Code deletes it in 2 days" in rows[pinned + 1]  # kept active, yet at risk
    fresh = rows.index(next(row for row in rows if "fresh.md" in row))
    assert "deletes" not in rows[fresh] + rows[fresh + 1]  # 17 days left: no alarm
    assert plans["fresh.md"]["cleanup_in_days"] == 17
    assert "clarity archive NAME" in table.stdout
    markdown = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--format", "markdown")
    young_row = next(line for line in markdown.stdout.splitlines() if "`young.md`" in line)
    assert young_row.endswith("— Claude Code deletes it in 3 days |")


def test_every_format_gives_the_same_whole_days(cli, claude_dir):
    # 30 days less an age of exactly 20 is 10 in the table, the markdown and the JSON alike
    plans_dir = claude_dir / "plans"
    make_files(plans_dir, {"idle.md": Plan(DORMANT, 20)})
    args = ("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert cli(*args, "--json").json()["plans"][0]["cleanup_in_days"] == 10
    assert "Claude Code deletes it in 10 days" in cli(*args).stdout
    assert "Claude Code deletes it in 10 days" in cli(*args, "--format", "markdown").stdout


def test_no_countdown_for_a_plans_dir_claude_code_does_not_clean(cli, claude_dir, plans_dir):
    make_files(plans_dir, {"idle.md": Plan(DORMANT, 29)})
    write_settings(claude_dir, {"cleanupPeriodDays": 20})

    document = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json").json()
    table = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).stdout

    assert "cleanup_in_days" not in document["plans"][0]
    assert document["cleanup_period_days"] is None
    assert "deletes" not in table


def test_the_projects_cleanup_period_wins_over_the_users(cli, claude_dir, tmp_path, monkeypatch):
    plans_dir = claude_dir / "plans"
    make_files(plans_dir, {"idle.md": Plan(DORMANT, 20)})
    write_settings(claude_dir, {"cleanupPeriodDays": 60})
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"cleanupPeriodDays": 40}')
    (project / ".claude" / "settings.local.json").write_text('{"cleanupPeriodDays": 0}')
    monkeypatch.chdir(project)

    document = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json").json()

    # 0 is below Claude Code's minimum of 1: passed over for the next file's value
    assert document["cleanup_period_days"] == 40
    assert document["plans"][0]["cleanup_in_days"] == 20


@pytest.mark.parametrize(
    "settings",
    [None, "{not json", {"cleanupPeriodDays": "soon"}, {"cleanupPeriodDays": 0.5}],
)
def test_without_a_usable_setting_the_countdown_uses_claude_codes_default(
    cli, claude_dir, settings
):
    plans_dir = claude_dir / "plans"
    make_files(plans_dir, {"idle.md": Plan(DORMANT, 20)})
    if settings is not None:
        write_settings(claude_dir, settings)

    document = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json").json()

    assert document["cleanup_period_days"] == 30
    assert document["plans"][0]["cleanup_in_days"] == 10


def test_claude_config_dir_env_moves_settings_and_transcripts(
    cli, plans_dir, tmp_path, monkeypatch
):
    elsewhere = tmp_path / "claude-profile"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(elsewhere))
    plans_dir = elsewhere / "plans"
    make_files(plans_dir, {"search.md": Plan(DORMANT, 20)})
    write_settings(elsewhere, {"cleanupPeriodDays": 45})
    write_transcript(elsewhere, SESSION, [plan_mode(SESSION, plans_dir / "search.md")], age_hours=1)

    document = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json").json()

    assert document["cleanup_period_days"] == 45
    assert document["plans"][0]["reason"] == f"in use by session {SESSION[:8]}"


def test_transcript_ages_are_measured_from_now(plans_dir, claude_dir):
    make_files(plans_dir, {"search.md": Plan(DORMANT, 30)})
    write_transcript(
        claude_dir, SESSION, [plan_mode(SESSION, plans_dir / "search.md")], age_hours=5
    )
    later = NOW.timestamp() + 20 * HOUR  # the transcript is now 25 hours old

    assert find_plan_sessions(claude_dir / "projects", plans_dir, later, 26).in_use
    assert not find_plan_sessions(claude_dir / "projects", plans_dir, later, 24).in_use
