"""Apply announces a batch of moves under one fsync, then moves them.

What that must not change: every file checked just before it moves, archive
names unique across the whole batch, and every announced move closed in the
journal, moved or not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clarity.executor.apply import apply_groups
from clarity.executor.journal import BATCH_MOVES
from clarity.judge.proposal import load_proposal
from clarity.state import DirState
from tests.builders.corpus import make_corpus
from tests.builders.files import NOW_ISO, Plan, make_files, read_files

DONE = "# {name} COMPLETED\n\nIt shipped.\n"


def _journal(plans_dir: Path) -> list[dict[str, Any]]:
    state = DirState.for_plans_dir(plans_dir)
    return [json.loads(line) for line in state.run_files()[-1].read_text().splitlines()]


def test_namesakes_moved_in_one_batch_get_distinct_archive_names(cli, plans_dir: Path) -> None:
    quarter = plans_dir.parent / "plans-archive" / "2026-Q4"
    make_files(quarter, {"foo.md": "an older foo\n"})
    make_files(
        plans_dir,
        {name: Plan(DONE.format(name=name), 20) for name in ("foo.md", "foo.2.md", "foo.3.md")},
    )
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0

    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")

    assert result.exit_code == 0, result.stdout
    assert {item["status"] for item in result.json()["results"]} == {"done"}
    archived = read_files(quarter)
    assert archived.pop("foo.md") == b"an older foo\n"  # never overwritten
    assert sorted(archived.values()) == sorted(
        DONE.format(name=name).encode() for name in ("foo.md", "foo.2.md", "foo.3.md")
    )
    assert len(archived) == 3


def test_a_file_changed_after_its_move_was_announced_stays_and_its_intent_is_closed(
    cli, plans_dir: Path
) -> None:
    names = ("a.md", "b.md", "c.md")
    make_files(plans_dir, {name: Plan(DONE.format(name=name), 20) for name in names})
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0
    state = DirState.for_plans_dir(plans_dir)
    proposal = load_proposal(state)
    assert proposal is not None

    def edit_the_rest(count: int) -> None:
        """After the first move, and before the rest: someone edits what is left."""
        for path in plans_dir.iterdir():
            with path.open("a") as stream:
                stream.write("edited after the scan\n")

    with state.lock():
        report = apply_groups(state, proposal, proposal.groups, progress=edit_the_rest)

    statuses = {result.name: result.status.value for result in report.results}
    moved = [name for name, status in statuses.items() if status == "done"]
    assert len(moved) == 1
    assert sorted(statuses.values()) == ["done", "skipped", "skipped"]
    for name in set(names) - set(moved):
        assert (plans_dir / name).read_text().endswith("edited after the scan\n")
    journal = _journal(plans_dir)
    intents = {record["seq"]: record["name"] for record in journal if record["op"] == "intent"}
    assert sorted(intents.values()) == sorted(names)  # all three announced before any moved
    closed = {
        record["seq"]: record for record in journal if "seq" in record and record["op"] != "intent"
    }
    assert set(closed) == set(intents)  # every announced move has its outcome
    for seq, name in intents.items():
        if name in moved:
            assert closed[seq]["op"] == "done"
        else:
            assert closed[seq]["op"] == "rolled_back"
            assert "changed since the scan" in str(closed[seq]["error"])

    again = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--rescan", "--now", NOW_ISO)
    assert again.exit_code == 0
    assert list(plans_dir.iterdir()) == []  # the edited plans are archived on the next run


def test_a_run_longer_than_a_batch_moves_everything_and_closes_every_intent(
    cli, plans_dir: Path, isolated_home: Path
) -> None:
    make_corpus(plans_dir, BATCH_MOVES * 2 + 30)
    before = read_files(plans_dir)
    assert cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO).exit_code == 0

    result = cli("apply", "--plans-dir", str(plans_dir), "--yes", "--json")

    assert result.exit_code == 0
    done = [item["name"] for item in result.json()["results"] if item["status"] == "done"]
    assert len(done) > BATCH_MOVES * 2  # more than two batches
    assert sorted(done) == sorted(set(before) - {p.name for p in plans_dir.iterdir()})
    journal = _journal(plans_dir)
    intents = [record["seq"] for record in journal if record["op"] == "intent"]
    outcomes = [record["seq"] for record in journal if record["op"] == "done"]
    assert sorted(intents) == sorted(outcomes) == list(range(1, len(done) + 1))
    proposal_order = [item["name"] for item in result.json()["results"]]
    proposal = load_proposal(DirState.for_plans_dir(plans_dir))
    assert proposal is not None
    assert proposal_order == [f.name for group in proposal.groups for f in group.files]
