"""Issue 42, case 9: several session starts at once kept one text 2-6 times
(`<sha12>.2.md`...), and temp and partial files a kill left were never swept, though
docs/safety.md says no partial copy is left: `.INDEX.md.<pid>.tmp`,
`.index.jsonl.<pid>.tmp`, `plan-texts/.<sha>.<pid>.tmp`, and `.NAME.md.clarity-partial`
after a kill during the restore of a kept text (which also pushed the next copy to
NAME.2.md). The next run sweeps what a process now gone left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from clarity.archive.layout import quarter
from clarity.claude_code.hook_settings import hook_command
from tests.builders.files import Plan, make_files

TEXT = (
    "# Payments retry\n\n## Context\n\nRetries are lost when the queue restarts.\n\n"
    "## Steps\n\n1. Queue them with a backoff.\n2. Alert after five.\n"
)


def _gone_pid() -> int:
    """The pid of a process that has ended."""
    done = subprocess.run(["true"], check=True)
    assert done.returncode == 0
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_temps_a_killed_writer_left_are_swept_by_the_next_run(cli, isolated_home: Path) -> None:
    plans_dir = isolated_home / ".claude" / "plans"
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"done.md": Plan("# Done COMPLETED\n\n" + "x\n" * 900, 10)})
    assert cli("apply", "--rescan", "--yes", *dirs).exit_code == 0  # an archive, an index
    archive = plans_dir.parent / "plans-archive"
    state = isolated_home / ".local" / "state" / "clarity"
    gone, alive = _gone_pid(), os.getppid()  # the shell that runs the tests: alive, not ours
    left = [
        archive / f".INDEX.md.{gone}.tmp",
        archive / f".index.jsonl.{gone}.tmp",
        state / "ledger-texts" / f".{'a' * 64}.md.{gone}.tmp",
    ]
    (state / "ledger-texts").mkdir(parents=True)
    plan_texts = next(state.glob("dirs/*")) / "plan-texts"
    plan_texts.mkdir()
    left.append(plan_texts / f".{'b' * 64}.{gone}.tmp")
    in_use = archive / f".INDEX.md.{alive}.tmp"  # a live writer's: never taken
    for path in [*left, in_use]:
        path.write_text("half a text")

    make_files(
        plans_dir,
        {
            "next.md": Plan("# Next\n\n" + "y\n" * 900, 10),  # shown, and written: texts
            "third.md": Plan("# Third COMPLETED\n\n" + "z\n" * 900, 10),  # archived
        },
    )
    event = {
        "session_id": "s1",
        "cwd": str(isolated_home / "work"),
        "hook_event_name": "PreToolUse",
        "tool_name": "ExitPlanMode",
        "tool_input": {"plan": TEXT, "planFilePath": str(plans_dir / "next.md")},
    }
    subprocess.run(
        ["sh", "-c", hook_command(sys.executable)], input=json.dumps(event), text=True, check=True
    )
    transcript = isolated_home / ".claude" / "projects" / "-p" / "s2.jsonl"
    transcript.parent.mkdir(parents=True)
    write = {"file_path": str(plans_dir / "next.md"), "content": TEXT}
    record = {
        "type": "assistant",
        "sessionId": "s2",
        "timestamp": "2026-11-20T10:00:00.000Z",
        "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": write}]},
    }
    transcript.write_text(json.dumps(record) + "\n")
    assert cli("apply", "--rescan", "--yes", *dirs).exit_code == 0

    assert [path for path in left if path.exists()] == []
    assert in_use.exists()


def test_a_partial_copy_a_killed_restore_left_is_swept_and_the_plan_keeps_its_name(
    cli, isolated_home: Path
) -> None:
    plans_dir = isolated_home / ".claude" / "plans"
    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {"payments.md": Plan(TEXT, 25)}, now=datetime.now(UTC))
    mtime = (plans_dir / "payments.md").stat().st_mtime_ns
    assert cli("apply", "--rescan", "--yes", *dirs).exit_code == 0  # its text kept
    (plans_dir / "payments.md").unlink()  # Claude Code's cleanup
    folder = plans_dir.parent / "plans-archive" / quarter(mtime)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / ".payments.md.clarity-partial"  # a restore killed mid-copy
    partial.write_text(TEXT[:40])

    restored = cli("restore", "payments", "--yes", *dirs)
    assert restored.exit_code == 0, restored.stderr
    assert (plans_dir / "payments.md").read_text() == TEXT
    assert sorted(p.name for p in folder.iterdir()) == []  # no partial, no payments.2.md
    assert cli("undo", "--yes", *dirs).exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == ["payments.md"]


def test_session_starts_at_once_keep_a_text_once(isolated_home: Path) -> None:
    plans_dir = isolated_home / ".claude" / "plans"
    make_files(
        plans_dir,
        {f"near-{n}.md": Plan(TEXT + f"\n{n}\n", 25) for n in range(4)},
        now=datetime.now(UTC),
    )
    start = json.dumps({"session_id": "s", "cwd": str(isolated_home / "work"), "source": "startup"})
    hooks = [
        subprocess.Popen(
            ["sh", "-c", hook_command(sys.executable)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        for _ in range(6)
    ]
    for hook in hooks:
        assert hook.stdin is not None
        hook.stdin.write(start)
        hook.stdin.close()
    assert [hook.wait(timeout=60) for hook in hooks] == [0] * 6
    versions = plans_dir.parent / "plans-archive" / "versions"
    for n in range(4):
        texts = sorted(p.name for p in (versions / f"near-{n}").glob("*.md"))
        assert len(texts) == 1, texts


KEEPER = """
import sys, time
from datetime import datetime, UTC
from pathlib import Path
from clarity.archive.versions import keep_file, SEEN
start = float(sys.argv[3])
while time.time() < start:
    pass
keep_file(Path(sys.argv[1]), "race.md", Path(sys.argv[2]), SEEN, datetime.now(UTC))
"""


def test_processes_keeping_one_text_at_once_keep_it_once(tmp_path: Path) -> None:
    import time

    source = tmp_path / "race.md"
    archive = tmp_path / "archive"
    for round_ in range(5):
        source.write_text(TEXT + "x" * 200_000 + f"\n{round_}\n")  # a copy that takes a while
        start = time.time() + 1.0
        keepers = [
            subprocess.Popen([sys.executable, "-c", KEEPER, str(archive), str(source), str(start)])
            for _ in range(6)
        ]
        assert [keeper.wait(timeout=60) for keeper in keepers] == [0] * 6
    texts = sorted(p.name for p in (archive / "versions" / "race").glob("*.md"))
    assert len(texts) == 5 and not [name for name in texts if name.count(".") > 1], texts
