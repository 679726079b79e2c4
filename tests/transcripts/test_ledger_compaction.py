"""Issue 42, case 6: the approval ledger is compacted. At 133 MB every session start ran
past its deadline; nothing trimmed it. A writing run now drops the lines that repeat one
another, and keeps the new ledger only if every plans folder it names reads the same
facts from it; hooks appending meanwhile lose nothing.

What the reader (ledger_facts, weighed as the scan weighs it) makes of a compacted
ledger is compared with what it makes of the whole one, for random ledgers full of
repeats, "clear context" pairs and a person's own /clear."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clarity.transcripts import ledger, ledger_compact
from clarity.transcripts.evidence import SessionFacts, weigh
from clarity.transcripts.ledger_facts import ledger_facts
from clarity.transcripts.lines import PlanPaths
from clarity.transcripts.texts_seen import SeenText, TextsSeen
from tests.builders.files import NOW, Plan, make_files

TEXTS = ["# Plan A\n\n- [ ] one\n", "# Plan A\n\n- [x] one\n", "# Plan B\n\nsteps\n"]
SHAS = [hashlib.sha256(text.encode()).hexdigest() for text in TEXTS]
START = NOW - timedelta(days=3)


def _at(seconds: float) -> str:
    moment = START + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _write(state: Path, lines: list[dict[str, Any]]) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / ledger.TEXTS).mkdir(exist_ok=True)
    for text, sha in zip(TEXTS, SHAS, strict=True):
        (state / ledger.TEXTS / f"{sha}.md").write_text(text)
    data = "".join(json.dumps(line) + "\n" for line in lines)
    (state / ledger.LEDGER).write_text(data)


def _read(state: Path, plans_dir: Path) -> tuple[SessionFacts, list[SeenText]]:
    """The scan's view of one plans folder: the ledger's facts weighed, and the texts it
    sets aside."""
    texts = TextsSeen()
    facts, _ = ledger_facts(str(state), PlanPaths(plans_dir), texts, None)
    now = (NOW + timedelta(days=1)).timestamp()
    return weigh(facts, now, 24.0), sorted(seen for seen, _ in texts.found.values())


_events = st.sampled_from(["presented", "presented", "approved", "ended", "cleared", "cleared"])


@st.composite
def _ledgers(draw: st.DrawFn, folders: tuple[Path, Path]) -> list[dict[str, Any]]:
    lines, moment = [], 0.0
    for _ in range(draw(st.integers(0, 60))):
        moment += draw(st.sampled_from([0.0, 0.01, 1.0, 5.0, 30.0, 3600.0]))
        event = draw(_events)
        folder = draw(st.sampled_from(folders))
        plan = draw(st.sampled_from(["misty.md", "calm.md", "calm-agent-a1.md"]))
        clear = event in ("ended", "cleared")
        lines.append(
            {
                "event": event,
                "at": _at(moment),
                "session": draw(st.sampled_from(["s1", "s2", "s3"])),
                "cwd": draw(st.sampled_from(["/home/dev/one", "/home/dev/two"])),
                "plan": None if clear else str(folder / plan),
                "sha256": "" if clear else draw(st.sampled_from(["", *SHAS])),
                "prompt": draw(st.sampled_from([None, "q1", "q2"])),
                "transcript": None,
            }
        )
    return lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_compacted_ledger_reads_as_the_whole_one_in_every_plans_folder(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    root = tmp_path_factory.mktemp("ledger")
    folders = (root / "home-plans", root / "project-plans")
    lines = data.draw(_ledgers(folders))
    kept = ledger_compact.kept_lines(lines)
    _write(root / "whole", lines)
    _write(root / "compacted", kept)
    for folder in folders:
        assert _read(root / "compacted", folder) == _read(root / "whole", folder)
    assert len(kept) <= len(lines)


def test_a_repeat_just_before_a_clear_context_start_is_kept(tmp_path: Path) -> None:
    """Which plan a "clear context" start approves is the plan its project showed last
    before it: a repeat of an earlier line there is no repeat to drop."""
    plans_dir = tmp_path / "plans"

    def line(event: str, at: float, session: str = "s1", **more: Any) -> dict[str, Any]:
        plan = str(plans_dir / "misty.md") if event in ("presented", "approved") else None
        return {
            "event": event,
            "at": _at(at),
            "session": session,
            "cwd": "/home/dev/one",
            "plan": plan,
            "sha256": "",
            "prompt": "q1",
            "transcript": None,
        } | more

    lines = [
        line("presented", 0),
        line("approved", 10),
        line("presented", 20),  # shown again: the start below approves this
        line("ended", 30),
        line("cleared", 30.1, session="s2", prompt=None),
        line("presented", 40),
        line("approved", 50),
    ]
    kept = ledger_compact.kept_lines(lines)
    _write(tmp_path / "whole", lines)
    _write(tmp_path / "compacted", kept)
    whole = _read(tmp_path / "whole", plans_dir)
    assert whole[0].known_sessions == {"s1", "s2"}  # s2 began with clear context
    assert _read(tmp_path / "compacted", plans_dir) == whole
    assert lines[2] in kept


def _flood(state: Path, plans_dir: Path, repeats: int) -> list[dict[str, Any]]:
    """A ledger a hook run in a loop leaves: one plan shown and approved over and over in
    one session, a second shown once later and never answered."""
    lines = []
    for n in range(repeats):
        for event, sha in (("presented", SHAS[0]), ("approved", SHAS[1])):
            lines.append(
                {
                    "event": event,
                    "at": _at(n * 2 + (event == "approved")),
                    "session": "s1",
                    "cwd": "/home/dev/one",
                    "plan": str(plans_dir / "misty.md"),
                    "sha256": sha,
                    "prompt": f"q{n % 3}",
                    "transcript": "/home/dev/.claude/projects/-home-dev-one/s1.jsonl" + "x" * 200,
                }
            )
    lines.append({**lines[0], "at": _at(repeats * 2 + 5), "plan": str(plans_dir / "calm.md")})
    _write(state, lines)
    return lines


def test_a_flooded_ledger_shrinks_to_what_it_says_and_reads_the_same(tmp_path: Path) -> None:
    state, plans_dir = tmp_path / "state", tmp_path / "plans"
    _flood(state, plans_dir, 8_000)
    size = (state / ledger.LEDGER).stat().st_size
    assert size >= ledger_compact.COMPACT_AT
    before = _read(state, plans_dir)
    done = ledger_compact.compact(str(state), (NOW + timedelta(days=1)).timestamp(), 24.0)
    assert done == ledger_compact.Compacted(size, (state / ledger.LEDGER).stat().st_size)
    assert done.after < 10_000  # 6 repeating keys (3 prompts x 2 events), first and last
    assert _read(state, plans_dir) == before
    assert ledger_compact.compact(str(state), NOW.timestamp(), 24.0) is None  # not due again
    assert not [path for path in state.iterdir() if path.name.endswith(".tmp")]


def test_a_ledger_with_nothing_to_drop_is_left_and_not_tried_again_until_it_doubles(
    tmp_path: Path,
) -> None:
    state, plans_dir = tmp_path / "state", tmp_path / "plans"
    lines = _flood(state, plans_dir, 8_000)
    distinct = [{**line, "session": f"s{n}"} for n, line in enumerate(lines)]
    _write(state, distinct)
    whole = (state / ledger.LEDGER).read_bytes()
    inode = (state / ledger.LEDGER).stat().st_ino
    done = ledger_compact.compact(str(state), NOW.timestamp(), 24.0)
    assert done == ledger_compact.Compacted(len(whole), len(whole))
    assert (state / ledger.LEDGER).read_bytes() == whole
    assert (state / ledger.LEDGER).stat().st_ino == inode
    assert not ledger_compact.due(str(state))


def test_texts_appended_after_a_compaction_are_set_aside_though_the_old_offset_is_past_them(
    tmp_path: Path,
) -> None:
    """A plans folder's scans remember how far they set aside the ledger's texts. After a
    compaction that offset is into another file: a text the new file holds before it is
    still new to that folder."""
    state, plans_dir = tmp_path / "state", tmp_path / "plans"
    _flood(state, plans_dir, 8_000)
    first = TextsSeen()
    _, end = ledger_facts(str(state), PlanPaths(plans_dir), first, None)
    ledger_compact.compact(str(state), NOW.timestamp(), 24.0)
    assert (state / ledger.LEDGER).stat().st_size < end.offset
    late = {"event": "presented", "at": _at(10**6), "session": "s9", "cwd": "/home/dev/one"}
    late |= {"plan": str(plans_dir / "late.md"), "sha256": SHAS[2]}
    with (state / ledger.LEDGER).open("a") as out:
        out.write(json.dumps(late) + "\n")
        filler = {**late, "plan": str(tmp_path / "elsewhere" / "x.md"), "sha256": ""}
        out.writelines(json.dumps({**filler, "session": f"f{n}"}) + "\n" for n in range(50_000))
    assert (state / ledger.LEDGER).stat().st_size > end.offset  # past the old offset again
    texts = TextsSeen()
    ledger_facts(str(state), PlanPaths(plans_dir), texts, end)
    assert ("late.md", SHAS[2]) in texts.found
    _, now_end = ledger_facts(str(state), PlanPaths(plans_dir), TextsSeen(), None)
    ledger_facts(str(state), PlanPaths(plans_dir), texts := TextsSeen(), now_end)
    assert texts.found == {}  # read to its end in this file: nothing new


_APPENDER = """
import os, sys, time
from clarity.transcripts.ledger import record
state, name, stop = sys.argv[1], sys.argv[2], sys.argv[3]
n = 0
while not os.path.exists(stop):
    event = {"hook_event_name": "PreToolUse", "tool_name": "ExitPlanMode",
             "session_id": f"{name}-{n}", "cwd": "/home/dev/one",
             "tool_input": {"planFilePath": "/p/plans/x.md"}}
    record(event, state)
    n += 1
    time.sleep(0.001)  # as hooks come: many at once, not a flood of millions
print(n)
"""


def test_hooks_appending_while_the_ledger_is_compacted_lose_no_line(tmp_path: Path) -> None:
    state, plans_dir, stop = tmp_path / "state", tmp_path / "plans", tmp_path / "stop"
    _flood(state, plans_dir, 20_000)
    hooks = [
        subprocess.Popen(
            [sys.executable, "-c", _APPENDER, str(state), f"h{n}", str(stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    time.sleep(0.5)  # the hooks are appending
    done = ledger_compact.compact(str(state), NOW.timestamp(), 24.0)
    time.sleep(0.2)  # and go on appending to the new ledger
    stop.touch()
    counts = [int(hook.communicate(timeout=120)[0]) for hook in hooks]
    assert done is not None and done.after < done.before
    sessions = [line["session"] for _, line in ledger.read_ledger(str(state))]
    appended = [session for session in sessions if session.startswith("h")]
    expected = [f"h{h}-{n}" for h in range(3) for n in range(counts[h])]
    assert sorted(appended) == sorted(expected)
    assert min(counts) > 100


_COMPACTOR = """
import sys
from clarity.transcripts.ledger_compact import compact
print(compact(sys.argv[1], float(sys.argv[2]), 24.0), flush=True)
"""


@pytest.mark.parametrize("after", [0.05, 0.3, 0.6, 0.85])
def test_a_compaction_killed_midway_leaves_a_whole_ledger_and_its_temp_is_swept(
    tmp_path: Path, after: float
) -> None:
    state, plans_dir = tmp_path / "state", tmp_path / "plans"
    _flood(state, plans_dir, 30_000)
    before = _read(state, plans_dir)
    compactor = subprocess.Popen(
        [sys.executable, "-c", _COMPACTOR, str(state), str(NOW.timestamp())],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(after)
    compactor.send_signal(signal.SIGKILL)
    compactor.wait(timeout=60)
    assert _read(state, plans_dir) == before  # the old ledger, or the whole new one
    done = ledger_compact.compact(str(state), NOW.timestamp(), 24.0)
    assert done is None or done.after <= done.before
    assert not [path for path in state.iterdir() if path.name.endswith(".tmp")]
    assert _read(state, plans_dir) == before


def test_apply_compacts_a_flooded_ledger_and_the_scan_says_what_it_said(
    isolated_home: Path,
) -> None:
    """Through the CLI as a person runs it: the plans are in use by the flooding session
    (so apply moves none of them), the weekly run's apply compacts the ledger, and the
    scan after it says, plan by plan, what the scan before it said."""
    plans_dir = isolated_home / ".claude" / "plans"
    make_files(plans_dir, {"misty.md": Plan(TEXTS[1], age_days=4), "calm.md": Plan(age_days=4)})
    state = isolated_home / ".local" / "state" / "clarity"
    _flood(state, plans_dir, 8_000)
    size = (state / ledger.LEDGER).stat().st_size
    now = (START + timedelta(hours=5)).isoformat()  # the flooding session is live

    def clarity(*args: str) -> subprocess.CompletedProcess[str]:
        ran = subprocess.run(
            [sys.executable, "-m", "clarity", *args],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        return ran

    def plans(ran: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = json.loads(ran.stdout)["plans"]
        return sorted(found, key=lambda plan: plan["name"])

    before = plans(clarity("scan", "--json", "--now", now))
    applied = clarity("apply", "--rescan", "--yes", "--now", now)
    assert "compacted the approval ledger" in applied.stdout
    assert (state / ledger.LEDGER).stat().st_size < size / 100
    after = plans(clarity("scan", "--json", "--now", now))
    assert [plan["name"] for plan in after] == ["calm.md", "misty.md"]  # none moved
    assert after == before
    history = clarity("history", "misty", "--json")
    assert {SHAS[0], SHAS[1]} <= {
        version["sha256"] for version in json.loads(history.stdout)["versions"]
    }
