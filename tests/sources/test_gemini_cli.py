"""Issue 44: Gemini CLI's plans, from what the real Gemini CLI 0.61.0 wrote
(fixtures/gemini_cli, recorded offline against a scripted API). Its session plans
folders are found, a plan approved and carried out is completed, a rejected or cancelled
one is not, nothing is ever written inside Gemini CLI's store, its text is kept at each
apply, and once Gemini CLI's own cleanup has deleted the session, search, show, archived
and restore still find the plan."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.builders.files import snapshot
from tests.builders.gemini_home import FIXTURES, Laid, lay_out
from tests.builders.processes import json_of

PLAN = "greeting-plan.md"


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


@pytest.fixture
def gemini(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Laid]:
    """One project, four sessions of it, as Gemini CLI left them: approved and carried
    out, rejected, revised then approved, cancelled."""
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    project = isolated_home / "work" / "greeter"
    return {
        name: lay_out(name, isolated_home, project)
        for name in (
            "01-approved-implemented",
            "02-rejected",
            "03-revised-then-approved",
            "04-cancelled",
        )
    }


def _now(gemini: dict[str, Laid], days: float = 1.0) -> str:
    return _iso(max(laid.last_activity for laid in gemini.values()) + days * 86400)


def _rows(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each plan of a `scan --all --json`, by its session folder's name."""
    return {Path(plan["path"]).parent.parent.name: plan for plan in document["plans"]}


def test_roots_names_each_session_plans_folder_and_its_agent(
    cli: Any, gemini: dict[str, Laid], isolated_home: Path
) -> None:
    roots = {Path(r["plans_dir"]): r for r in json_of(cli, "roots")["roots"]}
    for laid in gemini.values():
        root = roots[laid.plans_dir]
        assert root["agent"] == "gemini-cli"
        assert root["project"] == os.fspath(laid.project)
        # its archive is the user's, never a folder inside Gemini CLI's store
        archive = Path(root["archive_dir"])
        assert archive.is_relative_to(isolated_home / ".claude" / "plans-archive" / "gemini-cli")
        assert not archive.is_relative_to(isolated_home / ".gemini")


def test_a_plan_approved_and_carried_out_is_completed_and_the_others_are_not(
    cli: Any, gemini: dict[str, Laid]
) -> None:
    rows = _rows(json_of(cli, "scan", "--all", "--now", _now(gemini)))
    done = rows[gemini["01-approved-implemented"].session]
    assert done["class"] == "completed"
    assert done["agent"] == "gemini-cli"
    assert done["reason"].startswith(
        f"implemented in session {gemini['01-approved-implemented'].session[:8]} ("
    )
    assert "approved, 1 file edited" in done["reason"]
    assert done["action"] == "report"  # never archived: its text is kept in place
    revised = rows[gemini["03-revised-then-approved"].session]
    assert revised["class"] == "completed"  # the file holds the text approved the second time
    for refused in ("02-rejected", "04-cancelled"):
        row = rows[gemini[refused].session]
        assert row["class"] == "active", row  # a day old, and never approved
        assert "implemented" not in row["reason"]


def test_a_plan_changed_after_its_approval_is_no_longer_completed(
    cli: Any, gemini: dict[str, Laid]
) -> None:
    plan = gemini["01-approved-implemented"].plans_dir / PLAN
    stat = plan.stat()
    plan.write_text(plan.read_text() + "\n## Later\nSomething else.\n")
    os.utime(plan, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the mtime put back: text decides
    rows = _rows(json_of(cli, "scan", "--all", "--now", _now(gemini)))
    row = rows[gemini["01-approved-implemented"].session]
    assert row["class"] == "active"


def test_apply_keeps_every_text_and_writes_nothing_in_gemini_clis_store(
    cli: Any, gemini: dict[str, Laid], isolated_home: Path
) -> None:
    store = isolated_home / ".gemini"
    before = snapshot(store)
    applied = cli("apply", "--all", "--rescan", "--yes", "--now", _now(gemini))
    assert applied.exit_code == 0, applied.stderr
    assert snapshot(store) == before
    for laid in gemini.values():
        plan = (laid.plans_dir / PLAN).read_bytes()
        history = json_of(cli, "history", PLAN, "--plans-dir", os.fspath(laid.plans_dir))
        assert history["versions"][-1]["sha256"] == hashlib.sha256(plan).hexdigest()
    # named by hand, the folder gets the same archive, never one inside the store
    again = cli("apply", "--rescan", "--yes", "--plans-dir", os.fspath(laid.plans_dir))
    assert again.exit_code == 0, again.stderr
    assert snapshot(store) == before


def test_archiving_or_restoring_into_the_store_is_refused_in_one_line(
    cli: Any, gemini: dict[str, Laid]
) -> None:
    folder = os.fspath(gemini["01-approved-implemented"].plans_dir)
    now = _now(gemini)
    archived = cli("archive", "greeting-plan", "--plans-dir", folder, "--now", now)
    assert archived.exit_code == 2
    assert "Gemini CLI's own folder, where clarity never writes" in archived.stderr
    assert "Traceback" not in archived.stderr
    restored = cli("restore", "greeting-plan", "--plans-dir", folder)
    assert restored.exit_code == 2
    assert "where clarity never writes; put the plan into a folder of yours" in restored.stderr


def test_the_countdown_follows_the_sessions_last_activity_and_the_users_setting(
    cli: Any, gemini: dict[str, Laid], isolated_home: Path
) -> None:
    laid = gemini["02-rejected"]  # not completed: its countdown is shown when near
    now = _iso(laid.last_activity + 25.5 * 86400)
    rows = _rows(json_of(cli, "scan", "--all", "--now", now))
    assert rows[laid.session]["cleanup_in_days"] == 4  # 30 days after the session's last activity
    settings = isolated_home / ".gemini" / "settings.json"
    settings.write_text(
        '{\n  // as a person writes it\n  "general": {"sessionRetention": {"maxAge": "8w"}}\n}\n'
    )
    rows = _rows(json_of(cli, "scan", "--all", "--now", now))
    assert rows[laid.session]["cleanup_in_days"] == 30  # 56 days
    settings.write_text('{"general": {"sessionRetention": {"enabled": false}}}')
    rows = _rows(json_of(cli, "scan", "--all", "--now", now))
    assert "cleanup_in_days" not in rows[laid.session]


def test_a_plan_gemini_cli_deleted_with_its_session_is_still_found(
    cli: Any, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scenario 05: the session aged 40 days, then a start of Gemini CLI deleted it."""
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    project = isolated_home / "work" / "greeter"
    laid = lay_out("05-retention", isolated_home, project, part="before-aged-start/tmp")
    text = (laid.plans_dir / PLAN).read_bytes()
    now = _iso(laid.last_activity + 3600)
    rows = _rows(json_of(cli, "scan", "--all", "--now", now))
    assert rows[laid.session]["cleanup_in_days"] < 0  # Gemini CLI deletes it at its next start
    assert cli("apply", "--all", "--rescan", "--yes", "--now", now).exit_code == 0
    # what the recorded start left: the chat and the session folder gone
    shutil.rmtree(isolated_home / ".gemini" / "tmp")
    lay_out("05-retention", isolated_home, project)
    assert not laid.plans_dir.exists()

    hits = json_of(cli, "search", "greeting")["hits"]
    assert [hit["name"] for hit in hits] == [PLAN]
    shown = cli("show", "greeting-plan")
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout.encode() == text
    listed = cli("archived", "--all")
    assert PLAN in listed.stdout
    scanned = cli("scan", "--all", "--now", now)  # nothing left to scan there: passed by
    assert scanned.exit_code == 2
    assert "no plans folder on this machine yet" in scanned.stderr
    named = cli("scan", "--plans-dir", os.fspath(laid.plans_dir), "--now", now)
    assert named.exit_code == 2
    assert "Gemini CLI deleted" in named.stderr and "clarity kept the texts" in named.stderr

    mine = isolated_home / "mine"
    mine.mkdir()
    archive = next(
        Path(r["archive_dir"]) for r in json_of(cli, "roots")["roots"] if r["agent"] == "gemini-cli"
    )
    restored = cli(
        "restore", "greeting-plan", "--plans-dir", os.fspath(mine), "--archive-dir",
        os.fspath(archive), "--yes",
    )  # fmt: skip
    assert restored.exit_code == 0, restored.stderr
    assert (mine / PLAN).read_bytes() == text
    assert not laid.plans_dir.exists()


def test_the_recordings_are_what_the_real_client_wrote() -> None:
    """The fixtures say which client wrote them, and hold its approval words."""
    for scenario in sorted(FIXTURES.iterdir()):
        recorded = json.loads((scenario / "scenario.json").read_text())
        assert recorded["gemini_cli_version"] == "0.61.0"
    chat = next((FIXTURES / "01-approved-implemented" / "tmp").rglob("session-*.jsonl"))
    assert "The approved implementation plan is stored at: " in chat.read_text()


def test_a_proposal_to_move_a_plan_out_of_the_store_moves_nothing(
    cli: Any, gemini: dict[str, Laid], isolated_home: Path
) -> None:
    """Defence in depth: a recorded proposal that archives a plan of Gemini CLI's store
    (written by hand here; the judge never proposes one) is skipped file by file."""
    laid = gemini["01-approved-implemented"]
    folder = os.fspath(laid.plans_dir)
    now = _now(gemini)
    assert cli("scan", "--plans-dir", folder, "--now", now).exit_code == 0
    state = next((isolated_home / ".local" / "state" / "clarity" / "dirs").glob("plans-*"))
    proposal = json.loads((state / "proposal.json").read_text())
    plan = laid.plans_dir / PLAN
    info = plan.stat()
    proposal["groups"] = [
        {
            "action": "archive",
            "plan": {
                "name": PLAN, "size": info.st_size, "mtime_ns": info.st_mtime_ns,
                "inode": info.st_ino, "ctime_ns": info.st_ctime_ns,
                "sha256": hashlib.sha256(plan.read_bytes()).hexdigest(),
                "title": "Greeting plan", "class": "completed", "reason": "by hand",
                "project": None,
            },
            "subplans": [],
        }
    ]  # fmt: skip
    (state / "proposal.json").write_text(json.dumps(proposal))
    store = isolated_home / ".gemini"
    before = snapshot(store)
    applied = cli("apply", "--plans-dir", folder, "--yes", "--now", now, "--json")
    results = json.loads(applied.stdout)["results"]
    assert [(r["name"], r["status"]) for r in results] == [(PLAN, "skipped")]
    assert "Gemini CLI's own folder" in results[0]["reason"]
    assert snapshot(store) == before


def test_a_draft_the_session_overwrote_is_kept_as_an_earlier_version(
    cli: Any, gemini: dict[str, Laid]
) -> None:
    """Scenario 03: the plan was rejected, rewritten over the same file and approved; the
    first text is in the chat alone, and it is kept all the same (SPEC 6.1)."""
    laid = gemini["03-revised-then-approved"]
    now = _now(gemini)
    assert cli("scan", "--all", "--now", now).exit_code == 0
    assert cli("apply", "--all", "--rescan", "--yes", "--now", now).exit_code == 0
    history = json_of(cli, "history", PLAN, "--plans-dir", os.fspath(laid.plans_dir))
    versions = history["versions"]
    assert len(versions) == 2
    live = hashlib.sha256((laid.plans_dir / PLAN).read_bytes()).hexdigest()
    assert versions[-1]["sha256"] == live
    first = cli("show", PLAN, "--version", "1", "--plans-dir", os.fspath(laid.plans_dir))
    assert first.exit_code == 0, first.stderr
    assert "# Greeting plan" in first.stdout and "NAME" not in first.stdout  # the first draft
    assert "NAME" in (laid.plans_dir / PLAN).read_text()  # the approved text holds it
