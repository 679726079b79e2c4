"""Many transcripts: what is kept of those that name no plan is a short line each, memory
does not grow with their number, and the SessionStart hook holds its deadline, keeping
what it read so that the next session start goes on from there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from clarity.plans.facts_cache import FactsCache
from clarity.state import DirState
from clarity.transcripts.quiet import _escape, _header, _mark_stop, _stopped_at, _unescape
from clarity.transcripts.sessions import QUIET_FILE, find_plan_sessions
from clarity.transcripts.walk import Stop
from tests.builders.claude_home import Session
from tests.builders.files import NOW, Plan, make_files, not_a_file
from tests.builders.hook import DONE, first_said, run_hook, said
from tests.builders.sessions import SESSION, STARTED, implemented

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
    path = len("-home-dev-web0/00000000-0000-4000-8000-000000000000.jsonl")
    # Beside its path: its size, offset, check, mtime and inode, in 60 bytes at most.
    assert max(len(line) for line in quiet[1:]) < path + 60
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


def test_the_hook_keeps_its_deadline_and_hands_the_rest_on_to_a_continuation(
    plans_dir: Path, isolated_home: Path, tmp_path: Path, monkeypatch
) -> None:
    """Issue 45: a start cut short kept what it read, said nothing, and the next start did
    the same, 200 times over with a heavy history. Now a detached continuation finishes
    the scan (the starts meanwhile say nothing at once), and the next start says it."""
    # The hook reads the real clock (it takes no --now): the plans are aged against it too.
    plans = {f"d{n}.md": Plan(DONE, 10) for n in range(4)}
    make_files(isolated_home / ".claude" / "plans", plans, datetime.now(UTC))
    projects = isolated_home / ".claude" / "projects"
    chatter(projects, 30_000)
    monkeypatch.setenv("CLARITY_HOOK_DEADLINE", "0.1")
    state = isolated_home / ".local" / "state" / "clarity" / "dirs"

    def quiet_lines() -> int:
        return sum(len(quiet.read_bytes().splitlines()) for quiet in state.glob(f"*/{QUIET_FILE}"))

    started = time.monotonic()
    assert said(run_hook(tmp_path)) is None  # cut short: nothing said
    assert time.monotonic() - started < 5  # and the session was not kept waiting
    first = quiet_lines()
    message, _ = first_said(tmp_path)
    assert message == "clarity: 4 plans done: /clarity to review them"
    assert quiet_lines() > first  # the continuation read on from where the start stopped
    assert not list(state.glob("*/.*.tmp"))


def test_a_start_cut_short_says_what_it_knows_then_the_next_says_the_whole_finding_once(
    isolated_home: Path, tmp_path: Path, monkeypatch
) -> None:
    """Issue 45: the first start of a heavy history said nothing (3 s and more). Cut short,
    it now says at once, from the plans' ages alone, what Claude Code's cleanup is about
    to delete and that clarity is keeping their text; the next start to speak says the
    continuation's whole finding, once; and the one after that nothing new."""
    plans = {f"near{n}.md": Plan(DONE, 27.5) for n in range(3)}
    plans |= {f"young{n}.md": Plan(DONE, 3) for n in range(2)}
    plans |= {f"stub{n}.md": Plan("# stub\n", 27.2) for n in range(2)}  # bound for the trash
    make_files(isolated_home / ".claude" / "plans", plans, datetime.now(UTC))
    chatter(isolated_home / ".claude" / "projects", 30_000)
    # Every start that must scan is cut short at once (all alike: one memo entry); the
    # continuation does the work, and a start after it answers from what it found.
    monkeypatch.setenv("CLARITY_HOOK_DEADLINE", "0.000001")

    started = time.monotonic()
    first = said(run_hook(tmp_path))
    assert time.monotonic() - started < 5
    assert first == (  # by age alone: the stubs, which Claude Code deletes too, counted
        "clarity: Claude Code will delete 5 plans in 2 days (clarity is keeping their text "
        "now): /clarity to review them"
    )
    whole, _ = first_said(tmp_path)
    assert whole == (
        "clarity: 5 plans done; Claude Code will delete 3 plans in 2 days (clarity kept "
        "their text): /clarity to review them"
    )
    assert said(run_hook(tmp_path)) is None  # nothing newly due: said once a day
    # A hostile trial: a change that makes the next start scan again (a settings file
    # written) was cut short again and said the age-alone line anew (its stubs taken for
    # newly due), then the whole finding anew at the start after: each once a day.
    settings = isolated_home / ".claude" / "settings.json"
    for text in ("{}\n", "{} \n"):
        settings.write_text(text)
        assert said(run_hook(tmp_path)) is None
        time.sleep(2)  # the continuation that start handed its work to is done
        assert said(run_hook(tmp_path)) is None


def test_a_session_start_cut_short_leaves_every_plan_cached_once_its_work_is_done(
    isolated_home: Path, tmp_path: Path, monkeypatch
) -> None:
    """Issue 45: the facts cache was saved only when the scan finished, so with a heavy
    history every start cut short read every plan again and never got further."""
    plans_dir = isolated_home / ".claude" / "plans"
    make_files(plans_dir, {f"p{n:05}.md": Plan(DONE, 10) for n in range(3000)}, datetime.now(UTC))
    chatter(isolated_home / ".claude" / "projects", 30_000)
    monkeypatch.setenv("CLARITY_HOOK_DEADLINE", "1.0")
    cache_file = DirState.for_plans_dir(plans_dir).facts_cache_file

    def cached() -> int:
        cache = FactsCache.load(cache_file, started_ns=time.time_ns())
        return sum(
            cache.recall(path.name, plans_dir, path.lstat()) is not None
            for path in plans_dir.iterdir()
        )

    assert said(run_hook(tmp_path)) is None  # cut short (a save of a part: test_facts_cache)
    first_said(tmp_path)  # the continuation finishes, and a start says so
    assert cached() == 3000


# -- from a hostile trial of the above -----------------------------------------------


def test_a_transcript_replaced_by_another_of_the_same_size_is_read_again(
    plans_dir: Path, isolated_home: Path
) -> None:
    # It once was kept as unchanged by its size alone, and a plan a live session used
    # was trashed as a small, old stub.
    projects = isolated_home / ".claude" / "projects"
    chatter(projects, 3)
    store = DirState.for_plans_dir(plans_dir).sessions_file
    now = time.time()
    assert not find_plan_sessions(projects, plans_dir, now, 24, None, store).in_use
    (old,) = projects.glob("*/00000001-*.jsonl")
    write = {
        "type": "assistant",
        "sessionId": "s",
        "cwd": "/home/dev/web",
        "timestamp": datetime.fromtimestamp(now - 60, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Write",
                    "input": {"file_path": str(plans_dir / "q.md"), "content": "# Q"},
                }
            ],
        },
    }
    line = json.dumps(write)
    size = old.stat().st_size
    assert len(line) + 1 < size
    replacement = old.with_name("replacement.tmp")
    replacement.write_text(line + " " * (size - len(line) - 1) + "\n")
    replacement.replace(old)  # another file (inode), the same size
    assert old.stat().st_size == size
    found = find_plan_sessions(projects, plans_dir, now, 24, None, store)
    assert found.in_use == {"q.md": old.stem}


def _scan_classes(plans_dir: Path, env: dict[str, str]) -> dict[str, tuple[str, str]]:
    ran = subprocess.run(
        [sys.executable, "-m", "clarity", "scan", "--json", "--plans-dir", str(plans_dir)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    return {p["name"]: (p["class"], p["reason"]) for p in json.loads(ran.stdout)["plans"]}


@pytest.mark.parametrize("what", ["quiet.txt", "quiet.txt.stop"])
@pytest.mark.parametrize("kind", ["fifo", "zero", "loop"])
def test_a_state_file_that_is_not_a_file_is_passed_over_never_waited_on(
    plans_dir: Path, isolated_home: Path, tmp_path: Path, what: str, kind: str
) -> None:
    # A link to /dev/zero took 8 GB in 8 s; a FIFO hung the scan for ever.
    make_files(plans_dir, {"p.md": Plan(DONE, 10)})
    chatter(isolated_home / ".claude" / "projects", 50)
    fresh = _scan_classes(plans_dir, {"XDG_STATE_HOME": str(tmp_path / "fresh")})
    state = DirState.for_plans_dir(plans_dir).sessions_file.parent
    state.mkdir(parents=True, exist_ok=True)
    target = state / what
    not_a_file(target, kind)
    assert _scan_classes(plans_dir, {}) == fresh
    hook = subprocess.run(
        [sys.executable, "-I", "-m", "clarity.hook"],
        input=json.dumps({"cwd": str(tmp_path)}),
        env={**os.environ, "CLARITY_PLANS_DIR": str(plans_dir), "CLARITY_HOOK_DEADLINE": "0.1"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert hook.returncode == 0 and hook.stderr == ""


def test_the_hooks_memo_as_a_fifo_and_a_stdin_left_open_are_not_waited_on(
    isolated_home: Path, tmp_path: Path
) -> None:
    memo = isolated_home / ".local" / "state" / "clarity" / "session-start.json"
    memo.parent.mkdir(parents=True)
    os.mkfifo(memo)
    reading, writing = os.pipe()
    os.write(writing, json.dumps({"cwd": str(tmp_path)}).encode())
    try:  # the write end stays open: Claude Code closes it, a stray caller may not
        hook = subprocess.run(
            [sys.executable, "-I", "-m", "clarity.hook"],
            stdin=reading,
            capture_output=True,
            timeout=20,
            check=False,
        )
    finally:
        os.close(reading)
        os.close(writing)
    assert hook.returncode == 0 and hook.stderr == b""


@pytest.mark.parametrize(
    "relative", ["a\\b/x\\y.jsonl", "a\\/x\\\\.jsonl", "p/new\nline.jsonl", "p/ends\\.jsonl"]
)
def test_an_odd_name_comes_back_from_the_stop_marker_as_it_went(
    tmp_path: Path, relative: str
) -> None:
    path = tmp_path / "quiet.txt"
    path.write_bytes(_header(str(tmp_path)) + b"1 1 0 0.0 " + _escape(relative) + b"\n")
    for after in (False, True):
        _mark_stop(path, (len(_header(str(tmp_path))), Stop(relative, after)))
        with path.open("rb") as old:
            stop = _stopped_at(path, old, len(_header(str(tmp_path))))
        assert (stop is not None and stop[1] == Stop(relative, after)) or after
    assert _unescape(_escape(relative)) == relative


def test_a_stop_marker_that_does_not_fit_the_file_is_ignored(tmp_path: Path) -> None:
    header = _header(str(tmp_path))
    lines = [b"1 1 0 0.0 p/%d.jsonl\n" % n for n in range(5)]
    path = tmp_path / "quiet.txt"
    path.write_bytes(header + b"".join(lines))
    at_line_2 = len(header) + len(lines[0]) + len(lines[1])

    def stop(offset: int, relative: str, after: bool = False) -> tuple[int, Stop] | None:
        _mark_stop(path, (offset, Stop(relative, after)))
        with path.open("rb") as old:
            return _stopped_at(path, old, len(header))

    assert stop(at_line_2, "p/2.jsonl") == (at_line_2, Stop("p/2.jsonl"))
    assert stop(at_line_2, "p/1.jsonl", after=True) == (at_line_2, Stop("p/1.jsonl", True))
    assert stop(at_line_2, "p/4.jsonl") is None  # lines 2 and 3 would be passed over
    assert stop(at_line_2, "p/0.jsonl") is None  # line 1 would be copied and read again
    assert stop(at_line_2 + 3, "p/2.jsonl") is None  # not where a line starts
    assert stop(at_line_2, "p/2.jsonl") is not None
    path.write_bytes(header + b"".join(lines[:4]))  # another file since the marker
    with path.open("rb") as old:
        assert _stopped_at(path, old, len(header)) is None


def test_a_scan_cut_short_before_its_first_transcript_takes_nothing_for_gone(
    plans_dir: Path, isolated_home: Path
) -> None:
    # Listing a folder of 300,000 transcripts can take the hook's whole deadline: what
    # was kept stays, and the next scan that goes on starts where this one began.
    from clarity.transcripts.sessions import _Reading

    projects = isolated_home / ".claude" / "projects"
    chatter(projects, 30)
    store = DirState.for_plans_dir(plans_dir).sessions_file
    find_plan_sessions(projects, plans_dir, NOW.timestamp(), 24, None, store)
    quiet = store.with_name(QUIET_FILE)
    kept = quiet.read_bytes()
    reading = _Reading(projects, plans_dir, store, None, go_on=True)
    reading.keep()  # cut short at once: nothing walked
    assert quiet.read_bytes() == kept
    again = find_plan_sessions(projects, plans_dir, NOW.timestamp(), 24, None, store, go_on=True)
    assert again.transcripts_read == 0 and quiet.read_bytes() == kept
