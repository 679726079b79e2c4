"""Issue 32, part 3: the approval ledger. The plugin's hooks (and install-command --hook)
record, the moment they happen, a plan shown (PreToolUse of ExitPlanMode), approved
(PostToolUse) and the session "clear context" starts (SessionStart, source clear); the
scan weighs the ledger beside the transcripts, and keeps its texts as versions.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.builders.claude_home import Session
from tests.builders.hook import run_hook
from tests.builders.sessions import OTHER, PLAN, SESSION

PROJECT = "/home/dev/project"


def _state(home: Path) -> Path:
    return home / ".local" / "state" / "clarity"


def _ledger(home: Path) -> list[dict[str, Any]]:
    path = _state(home) / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _event(name: str, session: str, **more: Any) -> str:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": f"/home/dev/.claude/projects/-home-dev-project/{session}.jsonl",
            "cwd": PROJECT,
            "hook_event_name": name,
            **more,
        }
    )


def _shown(plan: Path, text: str = PLAN, session: str = SESSION, **more: Any) -> str:
    tool_input = {"plan": text, "planFilePath": str(plan)}
    return _event("PreToolUse", session, tool_name="ExitPlanMode", tool_input=tool_input, **more)


def _hook(home: Path, stdin: str) -> None:
    ran = run_hook(home / "work", stdin=stdin)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")  # never a word in the way


def test_the_hook_records_a_plan_shown_approved_and_a_clear_start(isolated_home: Path) -> None:
    plan = isolated_home / ".claude" / "plans" / "misty-sleeping-cherny.md"
    _hook(isolated_home, _shown(plan))
    approved = {"plan": PLAN, "filePath": str(plan), "isAgent": False}
    _hook(
        isolated_home,
        _event(
            "PostToolUse", SESSION, tool_name="ExitPlanMode", tool_input={}, tool_response=approved
        ),
    )
    _hook(isolated_home, _event("SessionStart", OTHER, source="clear"))
    _hook(
        isolated_home, _event("PreToolUse", SESSION, tool_name="Bash", tool_input={"command": "ls"})
    )
    _hook(isolated_home, _event("SessionStart", OTHER, source="compact"))

    lines = _ledger(isolated_home)
    assert [(line["event"], line["session"]) for line in lines] == [
        ("presented", SESSION),
        ("approved", SESSION),
        ("cleared", OTHER),
    ]
    shown, answered, cleared = lines
    assert shown["plan"] == answered["plan"] == str(plan)
    assert shown["sha256"] == answered["sha256"] != ""
    assert cleared["plan"] is None and cleared["cwd"] == PROJECT
    text = _state(isolated_home) / "ledger-texts" / f"{shown['sha256']}.md"
    assert text.read_text() == PLAN


PROMPT = "a1ca7caa-65df-4c44-b29e-918cdf0c64e2"  # the prompt that had the plan presented


def _silent_chain(home: Path) -> tuple[Path, tuple[str, ...], datetime]:
    """A plan the planning session showed (no answer: 2.1.3xx writes none), and a session
    that a "clear" started in the same project, whose transcript carries no "Implement the
    following plan" (a format clarity has not seen) and only edits files: without the
    ledger nothing ties the two. The scan's arguments, two days on."""
    claude_dir = home / ".claude"
    plans_dir = claude_dir / "plans"
    plans_dir.mkdir(parents=True)
    plan = plans_dir / "misty-sleeping-cherny.md"
    now = datetime.now(UTC)
    planning = Session(SESSION, start=now - timedelta(minutes=10), cwd=PROJECT)
    planning.user("Plan a cache").plan_mode(plan).write_plan(plan, PLAN)
    plan.write_text(PLAN)
    planning.present(plan, PLAN)
    planning.save(claude_dir)
    os.utime(plan, (planning.time, planning.time))
    working = Session(OTHER, start=now + timedelta(seconds=30), cwd=PROJECT)
    working.edit(f"{PROJECT}/src/cache.py").edit(f"{PROJECT}/src/api.py")
    working.save(claude_dir)
    later = (now + timedelta(days=2)).isoformat()  # past protect_hours, past "today"
    return plan, ("--plans-dir", str(plans_dir), "--now", later, "--json"), now


def _verdict(cli, args: tuple[str, ...], plan: Path) -> dict[str, Any]:
    found: dict[str, Any] = {p["name"]: p for p in cli("scan", *args).json()["plans"]}
    verdict: dict[str, Any] = found[plan.name]
    return verdict


def test_a_clear_context_approval_the_ledger_saw_decides_where_the_transcript_is_silent(
    cli, isolated_home: Path
) -> None:
    plan, args, _ = _silent_chain(isolated_home)
    assert _verdict(cli, args, plan)["class"] != "completed"  # the transcripts alone

    # What Claude Code 2.1.328 sends (fixtures/claude_code/2.1.328/12-hook-events/b-...):
    # the plan shown in a prompt, that prompt's session ended by "clear", the new one started.
    _hook(isolated_home, _shown(plan, prompt_id=PROMPT))
    _hook(isolated_home, _event("SessionEnd", SESSION, reason="clear", prompt_id=PROMPT))
    _hook(isolated_home, _event("SessionStart", OTHER, source="clear"))

    after = _verdict(cli, args, plan)
    assert after["class"] == "completed", after["reason"]
    assert after["reason"].startswith(f"implemented in session {OTHER[:8]}")
    assert after["reason"].endswith('after "clear context": 2 files edited')


def test_a_persons_own_clear_after_a_refusal_approves_nothing(cli, isolated_home: Path) -> None:
    # Escape at the plan, then /clear (12-hook-events/c-...): the same SessionEnd "clear"
    # and SessionStart "clear", but the ending's prompt is a new one, not the plan's.
    plan, args, _ = _silent_chain(isolated_home)
    _hook(isolated_home, _shown(plan, prompt_id=PROMPT))
    ended = _event("SessionEnd", SESSION, reason="clear", prompt_id="82687209-b05e-4e9d")
    _hook(isolated_home, ended)
    _hook(isolated_home, _event("SessionStart", OTHER, source="clear"))

    verdict = _verdict(cli, args, plan)
    assert verdict["class"] != "completed", verdict["reason"]


def test_the_ledgers_texts_are_kept_as_versions_by_the_next_apply(cli, isolated_home: Path) -> None:
    claude_dir = isolated_home / ".claude"
    plans_dir = claude_dir / "plans"
    plans_dir.mkdir(parents=True)
    plan = plans_dir / "misty-sleeping-cherny.md"
    first = PLAN.replace("read-through", "write-behind")
    plan.write_text(PLAN)
    _hook(isolated_home, _shown(plan, first))  # shown, then the file rewritten by hand
    _hook(isolated_home, _shown(plan, PLAN))
    dirs = ("--plans-dir", str(plans_dir))

    assert cli("scan", *dirs).exit_code == 0  # sets the ledger's texts aside
    assert cli("apply", "--yes", *dirs).exit_code == 0  # keeps them
    listed = cli("history", "misty-sleeping-cherny", *dirs, "--json").json()
    sources = [v["source"] for v in listed["versions"]]
    assert sources == [f"presented in session {SESSION[:8]}"] * 2
    assert cli("show", "misty-sleeping-cherny", "--version", "1", *dirs).stdout == first
    # A second scan and apply keep nothing twice and set nothing aside again.
    assert cli("scan", *dirs).exit_code == 0 and cli("apply", "--yes", *dirs).exit_code == 0
    assert len(cli("history", "misty-sleeping-cherny", *dirs, "--json").json()["versions"]) == 2
    state_texts = list(_state(isolated_home).rglob("plan-texts/*.md"))
    assert state_texts == []


FIXTURES = Path(__file__).parents[2] / "fixtures" / "claude_code" / "2.1.328" / "12-hook-events"
OURS = ("SessionStart", "PreToolUse", "PostToolUse", "SessionEnd")  # the events we hook


def _replay(home: Path, fixture: str, plans_dir: Path) -> list[dict[str, Any]]:
    """The hook inputs the real client sent in one run, sent to clarity's hook in order
    (those of the events clarity hooks), with the run's folders made this test's."""
    events = []
    for raw in (FIXTURES / fixture).read_text().splitlines():
        text = raw.replace("<plans>", str(plans_dir)).replace("<project>", PROJECT)
        event = json.loads(text.replace("<home>", str(home)))
        if event["hook_event_name"] in OURS:
            _hook(home, json.dumps(event))
            events.append(event)
    return events


def test_what_the_real_client_sent_is_recorded_and_tells_clear_context_from_clear(
    cli, isolated_home: Path
) -> None:
    plans_dir = isolated_home / ".claude" / "plans"
    plans_dir.mkdir(parents=True)
    approved = _replay(isolated_home, "b-clear-context.jsonl", plans_dir)
    refused = _replay(isolated_home, "c-refused-then-clear.jsonl", plans_dir)

    lines = _ledger(isolated_home)
    assert [line["event"] for line in lines] == [
        "presented", "ended", "cleared",  # "clear context": no PostToolUse
        "presented", "ended", "cleared",  # Escape, then the person's /clear
    ]  # fmt: skip
    shown = next(e for e in approved if e["hook_event_name"] == "PreToolUse")
    plan = Path(shown["tool_input"]["planFilePath"])
    assert lines[0]["plan"] == str(plan) and lines[0]["prompt"] == lines[1]["prompt"]
    assert lines[3]["prompt"] != lines[4]["prompt"]

    from clarity.transcripts.ledger_facts import ledger_facts
    from clarity.transcripts.lines import PlanPaths

    facts, _ = ledger_facts(str(_state(isolated_home)), PlanPaths(plans_dir))
    started = {e["session_id"] for e in approved if e.get("source") == "clear"}
    after_clear = {e["session_id"] for e in refused if e.get("source") == "clear"}
    implementing = {f.session for f in facts if any(ev.kind == "implementing" for ev in f.events)}
    assert implementing == started and not implementing & after_clear


def test_the_ledger_the_real_client_wrote_through_the_plugin_pairs_only_clear_context(
    isolated_home: Path,
) -> None:
    # fixtures/claude_code/2.1.328/ledger-walk: the plugin installed in the real client,
    # its hooks writing clarity's ledger in three sessions: "clear context", Escape then
    # the person's /clear, a plain approval.
    from clarity.transcripts.ledger_facts import ledger_facts
    from clarity.transcripts.lines import PlanPaths

    walk = json.loads((FIXTURES.parent / "ledger-walk" / "walk.json").read_text())
    plans_dir = isolated_home / ".claude" / "plans"
    plans_dir.mkdir(parents=True)
    state = _state(isolated_home)
    state.mkdir(parents=True)
    lines = []
    for entry in walk["ledger"]:
        text = json.dumps(entry["line"]).replace("<plans>", str(plans_dir))
        lines.append(text.replace("<project>", PROJECT).replace("<home>", str(isolated_home)))
    (state / "ledger.jsonl").write_text("".join(line + "\n" for line in lines))

    facts, _ = ledger_facts(str(state), PlanPaths(plans_dir))
    by_scenario = {
        entry["scenario"]: entry["line"]["session"]
        for entry in walk["ledger"]
        if entry["line"]["event"] == "cleared"
    }
    implementing = {f.session for f in facts if any(e.kind == "implementing" for e in f.events)}
    approved = {f.session for f in facts if any(e.kind == "approved" for e in f.events)}
    assert implementing == {by_scenario["a-clear-context"]}
    assert len(approved) == 1  # the plain approval's PostToolUse


def test_a_ledger_line_whose_sha256_is_a_path_reads_no_file(isolated_home: Path) -> None:
    # A state file's line is clarity's own, but never trusted as a path: ledger-texts/
    # holds texts by their sha256, and "../../secret" would read a file outside it.
    from clarity.transcripts.ledger_facts import ledger_facts
    from clarity.transcripts.lines import PlanPaths
    from clarity.transcripts.texts_seen import TextsSeen

    plans_dir = isolated_home / ".claude" / "plans"
    plans_dir.mkdir(parents=True)
    plan = plans_dir / "misty-sleeping-cherny.md"
    state = _state(isolated_home)
    (state / "ledger-texts").mkdir(parents=True)
    (isolated_home / "secret.md").write_text("# not a plan: a secret\n")
    traversal = "../../../../" + "./" * 23 + "secret"  # 64 characters, as a sha256 is
    assert len(traversal) == 64
    assert (state / "ledger-texts" / f"{traversal}.md").exists()  # where it would lead
    line = {
        "event": "presented",
        "at": "2026-11-20T10:00:00.000Z",
        "session": SESSION,
        "cwd": PROJECT,
        "plan": str(plan),
        "sha256": traversal,
        "prompt": None,
    }
    (state / "ledger.jsonl").write_text(json.dumps(line) + "\n")

    texts = TextsSeen()
    facts, _ = ledger_facts(str(state), PlanPaths(plans_dir), texts)
    assert texts.found == {}  # nothing read from outside ledger-texts/
    assert [event.text for f in facts for event in f.events] == [""]  # the event, no text


# -- issue 42, case 1: an approval event carries the plan twice ---------------------------


def _big_plan(kib: int) -> str:
    """A real plan's shape, kib KiB long (real plans of 40-70 KiB exist)."""
    step = "- Change the cache's read-through path and measure it again.\n"
    return "# Plan: a long migration\n\n## Steps\n\n" + step * (kib * 1024 // len(step))


@pytest.mark.parametrize("kib", [40, 70, 3000])
def test_a_large_plan_shown_and_approved_is_recorded_and_nothing_is_said(
    isolated_home: Path, kib: int
) -> None:
    # The hook read at most 64 KiB of stdin: a 40 KiB plan, twice in the approval's event,
    # arrived cut off, was taken for a SessionStart, ran a scan and printed its JSON.
    plan = isolated_home / ".claude" / "plans" / "misty-sleeping-cherny.md"
    text = _big_plan(kib)
    shown = _shown(plan, text)
    approved = {"plan": text, "filePath": str(plan), "isAgent": False}
    answer = _event(
        "PostToolUse",
        SESSION,
        tool_name="ExitPlanMode",
        tool_input={"plan": text, "planFilePath": str(plan)},
        tool_response=approved,
    )
    assert len(answer) > 2 * kib * 1000
    _hook(isolated_home, shown)
    _hook(isolated_home, answer)

    assert [line["event"] for line in _ledger(isolated_home)] == ["presented", "approved"]
    (kept,) = (_state(isolated_home) / "ledger-texts").iterdir()
    assert kept.read_text() == text
    assert not (_state(isolated_home) / "session-start.json").exists()  # no scan ran


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "Notification", "Stop"])
def test_an_event_too_large_or_cut_off_is_never_taken_for_a_session_start(
    isolated_home: Path, event: str
) -> None:
    cut = _event(event, SESSION, tool_name="ExitPlanMode", tool_input={"plan": "x" * 100_000})
    for stdin in (cut[:-10], cut[: 70 * 1024]):  # not whole: no event can be read from it
        _hook(isolated_home, stdin)
    _hook(isolated_home, _event(event, SESSION, tool_name="Bash", tool_input={"command": "ls"}))
    assert _ledger(isolated_home) == []
    assert not (_state(isolated_home) / "session-start.json").exists()
