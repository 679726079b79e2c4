"""Transcripts and session records that are damaged, odd or moving: a scan never hangs,
never crashes, never wedges, and loses no evidence it had (found by a hostile test run)."""

from __future__ import annotations

import json
import os
import re
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from clarity.state import DirState
from tests.builders.claude_home import Session
from tests.builders.files import NOW_ISO
from tests.builders.processes import run_process
from tests.builders.sessions import PLAN, SESSION, STARTED, implemented, planned, scan


@pytest.fixture
def claude_dir(isolated_home: Path) -> Path:
    return isolated_home / ".claude"


@pytest.fixture
def done(plans_dir: Path, claude_dir: Path) -> Path:
    """A plan its session implemented: the transcript's path."""
    session = Session(SESSION, start=STARTED)
    implemented(plans_dir, session)
    return session.save(claude_dir)


def store_of(plans_dir: Path) -> Path:
    return DirState.for_plans_dir(plans_dir).sessions_file


def scan_process(plans_dir: Path) -> dict[str, str]:
    """A scan in its own process, so that a hang fails the test instead of stalling it."""
    result = run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr
    return {plan["name"]: plan["class"] for plan in json.loads(result.stdout)["plans"]}


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "directory"])
def test_a_store_that_is_not_a_file_is_a_note_not_a_hang(cli, plans_dir, done, kind):
    scan(cli, plans_dir)
    store = store_of(plans_dir)
    store.unlink()
    if kind == "fifo":
        os.mkfifo(store)
    elif kind == "directory":
        store.mkdir()
    else:
        store.symlink_to("/dev/zero")
    assert scan_process(plans_dir)["misty-sleeping-cherny.md"] == "completed"


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (3, 10**400),  # the transcript's mtime: past any float
        (3, 1e300),
        (7, [["yesterday", "approved", "misty-sleeping-cherny.md", "toolu_x"]]),
        (7, [["2026-13-45T99:99:99.999Z", "approved", "misty-sleeping-cherny.md", "t"]]),
    ],
)
def test_a_record_no_clock_can_show_is_dropped_with_a_note(cli, plans_dir, done, where, value):
    scan(cli, plans_dir)
    store = store_of(plans_dir)
    document = json.loads(store.read_text())
    for record in document["transcripts"].values():
        record[where] = value
    store.write_text(json.dumps(document))  # 10**400 is written as digits, as a tool might

    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["plans"][0]["class"] == "completed"  # read again from the transcript
    assert any(
        re.search(r"\b\d+ damaged records? dropped", note) for note in result.json()["notes"]
    )


@pytest.mark.parametrize(
    "line",
    [
        '{"timestamp":"0001-01-01T00:00:00+05:00","attachment":{"planFilePath":"PLANS/a.md"}}',
        '{"timestamp":"9999-12-31T23:00:00-05:00","attachment":{"planFilePath":"PLANS/a.md"}}',
        '{"timestamp":"2026-13-45T99:99:99.999Z","attachment":{"planFilePath":"PLANS/a.md"}}',
        '{"timestamp":"2026-11-20T10:00:00.000Z","cwd":"PLANS/","attachment":'
        '{"type":"plan_mode","planFilePath":"~nosuchuser/x.md"}}',
        '{"timestamp":"2026-11-01T12:00:00.000Z","attachment":{"planFilePath":"PLANS/a\\u0000b/x.md"}}',
        '{"timestamp":"2026-11-20T10:00:00.000Z","cwd":"PLANS/","x":'
        + "[" * 100_000
        + "]" * 100_000
        + "}",
    ],
)
def test_a_line_of_odd_values_is_passed_over_and_the_rest_still_counts(cli, plans_dir, done, line):
    with done.open("ab") as stream:
        stream.write(line.replace("PLANS", str(plans_dir)).encode() + b"\n")
    when = STARTED.timestamp() + 3600
    os.utime(done, (when, when))

    assert scan(cli, plans_dir)["misty-sleeping-cherny.md"]["class"] == "completed"


def test_a_transcript_truncated_and_rewritten_while_scans_run_never_kills_one(
    plans_dir, done, claude_dir
):
    """Claude Code truncates a transcript in place to drop a failed message."""
    victim = claude_dir / "projects" / "-home-dev-project" / "busy-session.jsonl"
    filler = (json.dumps({"type": "user", "message": {"content": "x" * 5000}}) + "\n").encode()
    stop = threading.Event()

    def churn() -> None:
        fd = os.open(victim, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while not stop.is_set():
                os.pwrite(fd, filler * 4000, 0)  # 20 MB
                os.ftruncate(fd, 1000)
        finally:
            os.close(fd)

    writer = threading.Thread(target=churn)
    writer.start()
    try:
        for _ in range(8):
            assert scan_process(plans_dir)["misty-sleeping-cherny.md"] == "completed"
    finally:
        stop.set()
        writer.join()


def test_one_line_of_many_calls_is_read_once(plans_dir, done):
    blocks = [
        {"type": "tool_use", "id": f"toolu_{n:08d}", "name": "TodoWrite", "input": {"todos": []}}
        for n in range(20_000)
    ]
    record = {
        "type": "assistant",
        "timestamp": "2026-11-01T11:00:00.000Z",
        "sessionId": SESSION,
        "message": {"role": "assistant", "content": blocks},
    }
    with done.open("ab") as stream:
        stream.write(json.dumps(record).encode() + b"\n")
    when = STARTED.timestamp() + 3600
    os.utime(done, (when, when))

    assert scan_process(plans_dir)["misty-sleeping-cherny.md"] == "completed"


def test_an_answer_far_after_its_call_is_still_matched(cli, plans_dir, claude_dir):
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session)
    call = session.present(plan, PLAN)
    for _ in range(60):
        session.user("x" * 100_000)  # 6 MB of talk before the person answers
    session.approve(call, plan, PLAN).edit("/home/dev/project/src/cache.py")
    session.save(claude_dir)
    os.utime(plan, (session.time, session.time))

    assert scan(cli, plans_dir)[plan.name]["class"] == "completed"


def test_reaching_the_plans_dir_through_a_link_keeps_what_was_learned(
    cli, plans_dir, done, claude_dir, tmp_path
):
    assert scan(cli, plans_dir)["misty-sleeping-cherny.md"]["class"] == "completed"
    done.unlink()  # only the session records know now
    other = Session("0f0e0d0c-0b0a-4909-8807-060504030201", start=STARTED + timedelta(days=2))
    other.user("something else").save(claude_dir)
    link = tmp_path / "link"
    link.symlink_to(plans_dir)

    scan(cli, link)

    assert scan(cli, plans_dir)["misty-sleeping-cherny.md"]["class"] == "completed"


@pytest.mark.parametrize("how", ["shortened", "replaced"])
def test_a_shortened_or_replaced_transcript_keeps_what_it_said(cli, plans_dir, done, how):
    assert scan(cli, plans_dir)["misty-sleeping-cherny.md"]["class"] == "completed"
    lines = done.read_bytes().split(b"\n")
    if how == "shortened":
        done.write_bytes(b"\n".join(lines[:3]) + b"\n")
    else:
        fresh = done.with_name("fresh.jsonl")
        fresh.write_bytes(lines[0] + b"\n")
        fresh.replace(done)
    os.utime(done, (STARTED.timestamp(), STARTED.timestamp()))

    assert scan(cli, plans_dir)["misty-sleeping-cherny.md"]["class"] == "completed"
