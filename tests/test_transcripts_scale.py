"""Many transcripts: what is kept of those that name no plan is a short line each, memory
does not grow with their number, and the SessionStart hook holds its deadline, keeping
what it read so that the next session start goes on from there."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from clarity.sessions import QUIET_FILE, find_plan_sessions
from clarity.state import DirState
from tests.claude_home import Session
from tests.conftest import NOW, Plan, make_files
from tests.test_hook import DONE, run_hook, said
from tests.test_transcripts import SESSION, STARTED, implemented

CHATTER = json.dumps(
    {
        "type": "user",
        "sessionId": "0",
        "cwd": "/home/dev/web",
        "timestamp": "2026-11-01T10:00:00.000Z",
        "message": {"role": "user", "content": "run the tests and fix what fails " * 8},
    }
)


def chatter(projects: Path, count: int, per_folder: int = 200) -> None:
    """`count` sessions that never name a plan, as most of a heavy user's are."""
    for number in range(count):
        folder = projects / f"-home-dev-web{number // per_folder}"
        if number % per_folder == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{number:08d}-0000-4000-8000-000000000000.jsonl").write_text(
            (CHATTER + "\n") * 4
        )


def test_a_transcript_that_names_no_plan_is_kept_as_a_short_line(
    plans_dir: Path, isolated_home: Path
) -> None:
    projects = isolated_home / ".claude" / "projects"
    chatter(projects, 3000)
    session = Session(SESSION, start=STARTED)
    implemented(plans_dir, session)
    session.save(isolated_home / ".claude")
    store = DirState.for_plans_dir(plans_dir).sessions_file
    first = find_plan_sessions(projects, plans_dir, NOW.timestamp(), 24, None, store)
    assert first.evidence["misty-sleeping-cherny.md"].files_edited == 3
    assert first.transcripts_read == 3001
    kept = json.loads(store.read_text())["transcripts"]
    assert list(kept) == [str(next(projects.glob(f"*/{SESSION}.jsonl")))]  # only it said anything
    quiet = store.with_name(QUIET_FILE).read_bytes().splitlines()
    assert len(quiet) == 1 + 3000  # a header, then a line each
    assert max(len(line) for line in quiet[1:]) < 100  # its size, offset, check and path
    again = find_plan_sessions(projects, plans_dir, NOW.timestamp(), 24, None, store)
    assert again.transcripts_read == 0  # none read again
    assert again.evidence == first.evidence
    grown = next(projects.glob("*/00000007-*.jsonl"))
    with grown.open("a") as stream:
        stream.write(CHATTER + "\n")
    assert find_plan_sessions(projects, plans_dir, NOW.timestamp(), 24, None, store).bytes_read == (
        len(CHATTER) + 1  # only what it appended
    )


def _peak(projects: Path, plans_dir: Path, store: Path) -> int:
    tracemalloc.start()
    try:
        find_plan_sessions(projects, plans_dir, NOW.timestamp(), 24, None, store)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_transcripts_kept(
    plans_dir: Path, tmp_path: Path
) -> None:
    peaks = []
    for count in (1000, 10_000):
        projects = tmp_path / f"projects-{count}"
        chatter(projects, count)
        store = tmp_path / f"state-{count}" / "sessions.json"
        _peak(projects, plans_dir, store)  # the first scan reads them all
        peaks.append(_peak(projects, plans_dir, store))  # a scan like every later one
    small, large = peaks
    assert large < 2 * small, f"{small:,} bytes for 1,000 transcripts, {large:,} for 10,000"


def test_the_hook_keeps_its_deadline_says_nothing_and_keeps_what_it_read(
    plans_dir: Path, isolated_home: Path, tmp_path: Path, monkeypatch
) -> None:
    make_files(isolated_home / ".claude" / "plans", {f"d{n}.md": Plan(DONE, 10) for n in range(4)})
    projects = isolated_home / ".claude" / "projects"
    chatter(projects, 30_000)
    monkeypatch.setenv("CLARITY_HOOK_DEADLINE", "0.1")
    state = isolated_home / ".local" / "state" / "clarity" / "dirs"
    lines: list[int] = []
    for _ in range(200):  # each session start cut short, each one further on
        ran = run_hook(tmp_path)
        message = said(ran)
        if message is not None:
            break
        kept = [len(quiet.read_bytes().splitlines()) for quiet in state.glob(f"*/{QUIET_FILE}")]
        lines.append(sum(kept))
    else:
        raise AssertionError(f"the hook never finished: {lines[:5]} ... {lines[-5:]} lines kept")
    assert lines, "the first session start was not cut short"
    assert lines == sorted(lines) and lines[-1] > lines[0]  # never worse, and further each time
    assert message == "clarity: 4 plans done: /clarity to review them"
    assert not list(state.glob("*/.*.tmp"))
