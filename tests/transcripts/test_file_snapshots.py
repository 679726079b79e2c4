"""Issue 44, part 5: Claude Code 2.1.332 writes `{"type": "system", "subtype":
"file_snapshot", "snapshotFiles": [{"key": "plan", "path", "content"}]}` into the
transcript at every ExitPlanMode and every saved edit of the plan (for rewind; read from
its own bundle). Each plan text there is a version: a plan written over in a chain gets
its earlier texts back. Nothing else in the scan changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from tests.builders.claude_home import Session
from tests.builders.sessions import SESSION, STARTED, scan

NAME = "misty-sleeping-cherny.md"
EARLIER = "# Plan: cache the catalogue\n\n## Steps\n\n1. A read-through cache.\n"
LATER = "# Plan: cache the catalogue\n\n## Steps\n\n1. A write-through cache instead.\n"


def _snapshot(session: Session, path: Path, content: str, key: str = "plan") -> None:
    record: dict[str, Any] = session._base("system")
    record |= {"subtype": "file_snapshot", "content": "", "level": "info"}
    record["snapshotFiles"] = [{"key": key, "path": str(path), "content": content}]
    session.records.append(record)


def test_a_plans_snapshot_text_is_kept_as_a_version(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    plan = plans_dir / NAME
    session = Session(SESSION, start=STARTED, version=(2, 1, 332))
    session.user("Plan a cache").plan_mode(plan)
    _snapshot(session, plan, EARLIER)  # the plan as it was at an ExitPlanMode
    _snapshot(session, plans_dir / "todos.json", "[]", key="todo")  # not a plan
    _snapshot(session, isolated_home / "elsewhere" / NAME, "# not this folder's\n")
    session.save(isolated_home / ".claude")
    plan.write_text(LATER)  # written over since (by a later plan on the same slug)
    os.utime(plan, (session.time, session.time))
    dirs = ("--plans-dir", str(plans_dir))

    before = scan(cli, plans_dir)[NAME]
    applied = cli("apply", "--yes", *dirs)
    assert applied.exit_code == 0, applied.stderr
    versions = cli("history", NAME[:-3], *dirs, "--json").json()["versions"]
    kept = {version["sha256"]: version for version in versions}
    earlier = hashlib.sha256(EARLIER.encode()).hexdigest()
    assert earlier in kept and kept[earlier]["source"] == f"written in session {SESSION[:8]}"
    assert not kept[earlier]["current"]
    assert cli("show", NAME[:-3], "--version", "1", *dirs).stdout == EARLIER
    assert len(kept) == 2  # the snapshot's text and the file's own, nothing else
    after = scan(cli, plans_dir)[NAME]
    assert (after["class"], after["reason"]) == (before["class"], before["reason"])
