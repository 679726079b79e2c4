"""Atomic writes of clarity's state files: whole or not at all, and no litter."""

from __future__ import annotations

from pathlib import Path

import pytest

from clarity.fsio import write_atomic
from clarity.plans.facts_cache import FactsCache


@pytest.mark.parametrize("durable", [True, False])
def test_a_write_replaces_the_file_whole(tmp_path: Path, durable: bool) -> None:
    target = tmp_path / "proposal.json"
    target.write_bytes(b"old")
    write_atomic(target, b"new", durable=durable)
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["proposal.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()  # a directory where the file should go: the rename fails
    (target / "inside").write_bytes(b"kept")
    with pytest.raises(OSError):
        write_atomic(target, b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
    assert (target / "inside").read_bytes() == b"kept"


def test_a_cache_that_cannot_be_written_is_only_a_slower_next_scan(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_bytes(b"a file where the state folder should be")
    cache = FactsCache(
        {"gone.md": (1, 2, 3, 4, 5.0, None, None, None, False, (), None, None, True)}
    )
    cache.save(blocker / "facts.cache")  # differs from what was loaded: tries, fails quietly
    assert blocker.read_bytes() == b"a file where the state folder should be"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"]
