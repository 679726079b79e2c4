"""The terminal report: the width there is, reasons wrapped whole, long lists folded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.builders.claude_home import plan_mode, write_transcript
from tests.builders.files import NOW_ISO, Plan, make_files

SESSION = "6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b"
LONG_TITLE = "Move the search index onto the new storage engine without downtime"  # 66


def table(cli, plans_dir: Path, columns: int, *args: str) -> list[str]:
    import os

    os.environ["COLUMNS"] = str(columns)  # isolated_home's monkeypatch restores the env
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, *args)
    assert result.exit_code == 0, result.stderr
    lines: list[str] = result.stdout.splitlines()
    return lines


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def _words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


@pytest.mark.usefixtures("columns")
def test_at_60_columns_reasons_wrap_whole_and_names_stay_whole(cli, plans_dir: Path):
    name = "a-rather-long-plan-name-for-sixty.md"
    status = "**Status:** Phase 1, 2 Complete, Phase 3 In Progress"
    make_files(plans_dir, {name: Plan(f"# {LONG_TITLE}\n\n{status}\n\n" + "x" * 3000, 20)})

    lines = table(cli, plans_dir, 60)

    section = lines[lines.index("Dormant: for you to review (left in place) (1)") :]
    rows = section[: section.index("")]
    assert all(len(line) <= 60 for line in rows)
    assert any(name in line for line in rows)
    reason = 'untouched for 20.0 days > 14; status field "Phase 1, 2 Complete, Phase 3 In Progress"'
    assert reason in _words(rows)  # wrapped, every word kept


@pytest.mark.usefixtures("columns")
def test_at_160_columns_titles_use_the_width(cli, plans_dir: Path):
    make_files(plans_dir, {"roadmap.md": Plan(f"# {LONG_TITLE}\n\n" + "x" * 3000, 20)})

    lines = table(cli, plans_dir, 160)

    assert any(line.strip() == LONG_TITLE for line in lines)  # not cut at the name's width
    assert max(len(line) for line in lines) > 84


@pytest.mark.usefixtures("columns")
def test_a_session_id_is_never_split(cli, plans_dir: Path, isolated_home: Path):
    # Reasons name a session by its first 8 characters, kept whole on one line.
    make_files(plans_dir, {"search.md": Plan("# Search\n\n" + "x" * 3000, 20)})
    write_transcript(
        isolated_home / ".claude", SESSION, [plan_mode(SESSION, plans_dir / "search.md")]
    )

    for width in (60, 80, 120):
        lines = table(cli, plans_dir, width)
        assert any(f"session {SESSION[:8]}" in line for line in lines), width


@pytest.mark.usefixtures("columns")
def test_long_lists_apply_handles_fold_while_dormant_plans_are_listed_whole(cli, plans_dir):
    plans = {f"done-{n:02}.md": Plan(f"# Done {n} COMPLETED\n", 20 + n / 10) for n in range(40)}
    plans |= {f"idle-{n:02}.md": Plan("# Idle\n\n" + "y" * 3000, 20 + n / 10) for n in range(25)}
    make_files(plans_dir, plans)

    lines = table(cli, plans_dir, 100)
    everything = table(cli, plans_dir, 100, "--full")

    shown_done = [line for line in lines if re.search(r"done-\d\d\.md", line)]
    assert [line.split()[0] for line in shown_done] == [f"done-{n:02}.md" for n in range(10)]
    again = f"clarity scan --full --now {NOW_ISO} --plans-dir {plans_dir}"  # as it was scanned
    fold = f"  ... and 30 more completed; {again} lists them"
    assert fold in lines
    assert len([line for line in lines if re.search(r"idle-\d\d\.md", line)]) == 25
    assert len([line for line in everything if re.search(r"done-\d\d\.md", line)]) == 40
    assert not any("more completed" in line for line in everything)


@pytest.mark.usefixtures("columns")
def test_a_plan_claude_code_is_about_to_delete_is_shown_past_the_fold(cli, isolated_home):
    plans_dir = isolated_home / ".claude" / "plans"  # Claude Code's own: its cleanup applies
    pinned = "---\npinned: true\n---\n# Roadmap\n" + "z" * 3000
    plans = {f"busy-{n:02}.md": Plan("# Busy\n\n" + "w" * 3000, 1 + n / 10) for n in range(20)}
    make_files(plans_dir, {**plans, "roadmap.md": Plan(pinned, 27)})

    lines = table(cli, plans_dir, 100)

    assert any("roadmap.md" in line for line in lines)
    assert "Claude Code deletes it in 3 days" in _words(lines)
    assert any("... and 10 more active" in line for line in lines)
