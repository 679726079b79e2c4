"""What Claude Code 2.1.328 itself writes, judged (issue 22): transcripts and plans the
real client left in each scenario, driven in tmux against a scripted fake API
(fixtures/claude_code/regenerate.py), laid out here under the test's own home."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parents[2] / "fixtures" / "claude_code" / "2.1.328"

# scenario -> (class, how the reason starts[, what else it says]), for its one plan
EXPECTED: dict[str, tuple[str, ...]] = {
    "01-approve-auto": ("completed", "implemented in session {session}"),
    "02-approve-manual": ("completed", "implemented in session {session}"),
    "03-clear-context": ("completed", 'implemented in session {session} ({day}) after "clear'),
    "04-refused": ("dormant", "untouched for 20.0 days > 14; not trashed"),
    "05-approved-no-edits": ("dormant", "untouched for 20.0 days > 14; session {session}"),
    "06-revised-then-approved": ("completed", "implemented in session {session}"),
    "07-subagent": ("completed", "implemented in session {session}"),
    "08-edited-after": (
        "dormant",
        "untouched for 20.0 days > 14; session {session}",
        "; the plan was edited after the session;",  # a line a person added, mtime or not
    ),
    "10-posttooluse-hook": ("completed", "implemented in session {session}"),
    "11-clear-context-chain": (
        "completed",
        'implemented in session {session} ({day}) after "clear context"',
    ),
}


def lay_out(scenario: Path, home: Path, project: Path) -> tuple[Path, datetime, dict[str, Any]]:
    """The scenario's plans and transcripts under home, its paths rewritten to home and
    project; the plans dir, and the time of the last record."""
    meta = json.loads((scenario / "scenario.json").read_text())
    plans = home / ".claude" / "plans"
    plans.mkdir(parents=True)
    project.mkdir(parents=True, exist_ok=True)
    folder = str(project).replace("/", "-").replace(".", "-")
    latest = ""
    written = []
    for source in sorted((scenario / "projects").rglob("*.jsonl")):
        text = source.read_text(encoding="utf-8")
        text = text.replace(meta["home"], str(home)).replace(meta["project_dir"], str(project))
        inside = source.relative_to(scenario / "projects").parts[1:]
        target = home / ".claude" / "projects" / folder / Path(*inside)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
        times = (json.loads(line).get("timestamp") for line in text.splitlines())
        latest = max([latest, *(time for time in times if isinstance(time, str))])
    end = datetime.fromisoformat(latest.replace("Z", "+00:00"))
    for target in written:  # git keeps no mtimes: each as of the session's last record
        os.utime(target, (end.timestamp(), end.timestamp()))
    for source in (scenario / "plans").iterdir():
        shutil.copyfile(source, plans / source.name)
        # As of the session's end, whatever a person did to it since: its text tells.
        os.utime(plans / source.name, (end.timestamp(), end.timestamp()))
    return plans, end, meta


def test_every_scenario_the_client_wrote_is_judged_here() -> None:
    scenarios = {path.name for path in FIXTURES.iterdir() if path.is_dir()}
    # mcp-search, mcp-resources, plugin, 12-hook-events and ledger-walk are no plan-mode
    # scenarios: test_real_client_search.py, test_real_client_resources.py,
    # test_real_client_plugin.py and test_ledger.py read them.
    assert scenarios == {
        *EXPECTED,
        "09-live",
        "mcp-search",
        "mcp-resources",
        "plugin",
        "12-hook-events",
        "ledger-walk",
    }


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_what_the_real_client_wrote_is_judged_as_a_person_would(
    cli, isolated_home: Path, tmp_path: Path, name: str
) -> None:
    _judged_as_expected(cli, FIXTURES / name, isolated_home, tmp_path)


def _judged_as_expected(cli, scenario: Path, home: Path, tmp_path: Path) -> dict[str, Any]:
    """Scan the scenario laid out in home 20 days after its end: its one plan judged as
    EXPECTED says; the scenario's record."""
    plans, end, meta = lay_out(scenario, home, tmp_path / "proj")
    now = (end + timedelta(days=20)).isoformat()
    result = cli("scan", "--plans-dir", str(plans), "--now", now, "--json")
    assert result.exit_code == 0, result.stderr
    (plan,) = [p for p in result.json()["plans"] if p["parent"] is None]
    sessions = sorted(path.stem for path in (home / ".claude").rglob("*.jsonl"))
    kind, start, *said = EXPECTED[scenario.name]
    assert plan["class"] == kind, plan["reason"]
    assert all(words in plan["reason"] for words in said), plan["reason"]
    assert any(
        plan["reason"].startswith(start.format(session=s[:8], day=end.date())) for s in sessions
    ), plan["reason"]
    return meta


def test_a_live_session_keeps_its_plan_active(cli, isolated_home: Path, tmp_path: Path) -> None:
    plans, end, _ = lay_out(FIXTURES / "09-live", isolated_home, tmp_path / "proj")
    now = end + timedelta(days=2)
    moment = (now - timedelta(minutes=1)).timestamp()
    for transcript in (isolated_home / ".claude" / "projects").rglob("*.jsonl"):
        os.utime(transcript, (moment, moment))  # still being written: a minute ago
    result = cli("scan", "--plans-dir", str(plans), "--now", now.isoformat(), "--json")
    (plan,) = [p for p in result.json()["plans"] if p["parent"] is None]
    assert plan["class"] == "active"
    assert plan["reason"].startswith("in use by session")


def test_a_chain_of_two_plans_on_one_slug_is_done_by_the_third_session(
    cli, isolated_home: Path, tmp_path: Path
) -> None:
    # Planned, approved with "clear context"; the new session implemented it, planned
    # again into the same file, and was cleared in turn: the third session implemented
    # the second plan, the text the file holds.
    plans, end, _ = lay_out(FIXTURES / "11-clear-context-chain", isolated_home, tmp_path / "proj")
    (plan_file,) = plans.iterdir()
    assert plan_file.read_text().startswith("# Plan: say goodbye too")
    firsts = {}
    for transcript in (isolated_home / ".claude" / "projects").rglob("*.jsonl"):
        records = [json.loads(line) for line in transcript.read_text().splitlines()]
        (first,) = [r for r in records if r.get("type") == "user"][:1]
        firsts[transcript.stem] = str(first["message"]["content"])
    (third,) = [s for s, text in firsts.items() if "# Plan: say goodbye too" in text]
    assert len(firsts) == 3 and firsts[third].startswith("Implement the following plan")
    now = (end + timedelta(days=20)).isoformat()
    result = cli("scan", "--plans-dir", str(plans), "--now", now, "--json")
    assert result.exit_code == 0, result.stderr
    (plan,) = [p for p in result.json()["plans"] if p["parent"] is None]
    assert plan["class"] == "completed", plan["reason"]
    assert plan["reason"].startswith(
        f'implemented in session {third[:8]} ({end.date()}) after "clear context"'
    ), plan["reason"]


@pytest.mark.parametrize("name", ["03-clear-context", "11-clear-context-chain"])
def test_a_plan_whose_transcripts_claude_code_deleted_is_still_judged_implemented(
    cli, isolated_home: Path, tmp_path: Path, name: str
) -> None:
    # Issue 32: Claude Code deletes transcripts too; what a scan learned of them is kept in
    # clarity's state folder, so the evidence outlives them.
    plans, end, _ = lay_out(FIXTURES / name, isolated_home, tmp_path / "proj")
    now = (end + timedelta(days=20)).isoformat()
    scan = ("scan", "--plans-dir", str(plans), "--now", now, "--json")
    before = [p for p in cli(*scan).json()["plans"] if p["parent"] is None]
    shutil.rmtree(isolated_home / ".claude" / "projects")  # Claude Code's cleanup

    after = [p for p in cli(*scan).json()["plans"] if p["parent"] is None]
    assert [(p["class"], p["reason"]) for p in after] == [(p["class"], p["reason"]) for p in before]
    assert after[0]["class"] == "completed", after[0]["reason"]


# Claude Code 2.1.332, recorded the same way (fixtures/claude_code/2.1.332/): what it writes
# at a plain approval, a "clear context" one and a refusal is judged as 2.1.328's is.
LATER = FIXTURES.parent / "2.1.332"


def test_the_later_client_wrote_only_the_scenarios_judged_here() -> None:
    assert {path.name for path in LATER.iterdir() if path.is_dir()} == {
        "01-approve-auto",
        "03-clear-context",
        "04-refused",
    }


@pytest.mark.parametrize("name", ["01-approve-auto", "03-clear-context", "04-refused"])
def test_what_the_later_client_wrote_is_judged_as_the_earlier_ones(
    cli, isolated_home: Path, tmp_path: Path, name: str
) -> None:
    meta = _judged_as_expected(cli, LATER / name, isolated_home, tmp_path)
    assert meta["claude_code_version"] == "2.1.332"
