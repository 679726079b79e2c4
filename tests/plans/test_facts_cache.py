"""The facts cache: a repeat scan reads only the plans that changed, and sees every change."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clarity.model import PlanFacts, TextStatus
from clarity.plans.facts_cache import RACY_NS, FactsCache
from clarity.plans.reader import read_plans_dir
from tests.builders.files import NOW_ISO, TICK, Plan, make_files


def settled() -> int:
    """Wait out a timestamp tick, then a scan start that trusts every write made so far.

    The cache distrusts plans written within RACY_NS of a scan; a test that
    does not want to wait two seconds says its scan started that much later.
    A write made after this call gets a stamp of its own, as it would then.
    """
    time.sleep(TICK)
    return time.time_ns() + RACY_NS


def read(plans_dir: Path, cache: FactsCache | None = None) -> dict[str, PlanFacts]:
    return {facts.name: facts for facts in read_plans_dir(plans_dir, None, cache).plans}


def unread(facts: dict[str, PlanFacts]) -> dict[str, PlanFacts]:
    """Facts as a cache hit gives them: nothing was read."""
    return {name: item._replace(bytes_read=0) for name, item in facts.items()}


def rewrite_in_place(path: Path, data: bytes) -> None:
    """New bytes of the same size, with the old mtime put back: only ctime tells."""
    info = path.stat()
    assert len(data) == info.st_size
    path.write_bytes(data)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_a_repeat_scan_stats_unchanged_plans_and_reads_changed_ones(
    plans_dir: Path, tmp_path: Path
) -> None:
    make_files(
        plans_dir,
        {
            "done.md": Plan("# Done COMPLETED\n\nbody\n", age_days=20),
            "draft.md": Plan("---\nstatus: draft\npinned: true\n---\n# Draft\n", age_days=3),
            "big.md": Plan("# Big\n" + "- step\n" * 3000 + "-- Done\n", age_days=40),
            "said.md": Plan("# Said\n**Status:** Phase 2 in progress\n", age_days=20),
        },
    )
    cache_file = tmp_path / "facts.cache"
    assert not FactsCache.load(cache_file)  # nothing recorded yet
    first = FactsCache.load(cache_file, settled())
    fresh = read(plans_dir, first)
    assert all(facts.bytes_read > 0 for facts in fresh.values())
    first.save(cache_file)

    again = read(plans_dir, FactsCache.load(cache_file))
    assert again == unread(fresh)  # every fact recalled, no byte read
    assert again["said.md"].status == TextStatus('status field "Phase 2 in progress"', False)

    rewrite_in_place(plans_dir / "draft.md", b"---\nstatus: drift\npinned: fals\n---\n# Drift\n")
    third = read(plans_dir, FactsCache.load(cache_file))
    assert third["draft.md"].bytes_read > 0
    assert third["draft.md"].title == "Drift"
    assert third["draft.md"].frontmatter.pinned is False
    assert {name: f for name, f in third.items() if name != "draft.md"} == {
        name: f for name, f in unread(fresh).items() if name != "draft.md"
    }


def test_plans_written_just_now_are_read_again_next_time(plans_dir: Path, tmp_path: Path) -> None:
    make_files(plans_dir, {"new.md": "# New\n", "other.md": Plan("# Other\n", age_days=9)})
    cache = FactsCache.load(tmp_path / "facts.cache")  # starts now: both plans are racy
    read(plans_dir, cache)
    cache.save(tmp_path / "facts.cache")
    assert not FactsCache.load(tmp_path / "facts.cache")
    assert all(f.bytes_read > 0 for f in read(plans_dir, FactsCache({})).values())


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # torn write
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit flipped
        lambda data: b"",
        lambda data: b"not a cache at all",
        lambda data: data[:20] + b"\0" * 32 + data[52:],  # checksum wiped
    ],
)
def test_a_damaged_cache_is_ignored_and_replaced(plans_dir: Path, tmp_path: Path, damage) -> None:
    make_files(plans_dir, {"a.md": Plan("# A\n", age_days=30), "b.md": Plan("# B\n", age_days=2)})
    cache_file = tmp_path / "facts.cache"
    cache = FactsCache({}, settled())
    expected = read(plans_dir, cache)
    cache.save(cache_file)
    cache_file.write_bytes(damage(cache_file.read_bytes()))

    assert not FactsCache.load(cache_file)
    loaded = FactsCache.load(cache_file, settled())
    assert read(plans_dir, loaded) == expected  # read afresh
    loaded.save(cache_file)
    assert read(plans_dir, FactsCache.load(cache_file)) == unread(expected)


def test_a_cache_from_another_format_is_ignored(plans_dir: Path, tmp_path: Path) -> None:
    import marshal

    make_files(plans_dir, {"a.md": Plan("# A\n", age_days=30)})
    payload = marshal.dumps(((0, "cpython-00", 0), {"a.md": "whatever"}))
    cache_file = tmp_path / "facts.cache"
    cache_file.write_bytes(b"clarity facts cache\n" + hashlib.sha256(payload).digest() + payload)
    assert not FactsCache.load(cache_file)


# Each step between two scans: (plan number, what happens to it)
EDITS = ["same-size", "rewrite", "append", "delete", "create", "to-symlink", "chmod"]
steps = st.lists(
    st.lists(st.tuples(st.integers(0, 5), st.sampled_from(EDITS)), max_size=4),
    min_size=1,
    max_size=3,
)


def edit(plans_dir: Path, number: int, what: str, serial: int) -> None:
    path = plans_dir / f"p{number}.md"
    exists = path.exists() and not path.is_symlink()
    if what == "create" or not exists:
        path.unlink(missing_ok=True)
        path.write_bytes(f"# Plan {number}.{serial}\n\nbody\n".encode())
    elif what == "same-size":
        data = path.read_bytes()
        rewrite_in_place(path, data[:2] + (b"X" if data[2:3] != b"X" else b"Y") + data[3:])
    elif what == "rewrite":
        path.write_bytes(f"# Rewritten {serial}\n-- Done\n".encode())
    elif what == "append":
        with path.open("ab") as stream:
            stream.write(b"\nCOMPLETED\n")
    elif what == "delete":
        path.unlink()
    elif what == "to-symlink":
        path.unlink()
        path.symlink_to(plans_dir.parent / "elsewhere.md")
    elif what == "chmod":
        path.chmod(path.stat().st_mode ^ 0o040)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rounds=steps)
def test_a_cached_scan_always_sees_what_a_fresh_one_sees(tmp_path: Path, rounds) -> None:
    plans_dir = tmp_path / f"plans-{time.time_ns()}"
    make_files(plans_dir, {f"p{n}.md": Plan(f"# Plan {n}\n\nbody\n", age_days=n) for n in range(6)})
    cache_file = plans_dir.parent / f"{plans_dir.name}.cache"
    for serial, round_edits in enumerate(rounds):
        cache = FactsCache.load(cache_file, settled())
        cached = read(plans_dir, cache)
        assert unread(cached) == unread(read(plans_dir))
        cache.save(cache_file)
        for number, what in round_edits:
            edit(plans_dir, number, what, serial)


def test_repeat_cli_scans_agree_and_reuse_hashes(cli, plans_dir: Path) -> None:
    """End to end, with the real clock: wait out the racy window once."""
    big = "# Big COMPLETED\n" + "- a step of the plan\n" * 2000
    make_files(
        plans_dir,
        {
            "big.md": Plan(big, age_days=30),
            "small.md": Plan("# Small -- Done\n", age_days=30),
            "stub.md": Plan("x\n", age_days=10),
            "live.md": Plan("# Live\n", age_days=2),
        },
    )
    time.sleep(RACY_NS / 1e9 + TICK)
    args = ("scan", "--json", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    first = cli(*args)
    assert first.exit_code == 0
    state = next((Path(os.environ["XDG_STATE_HOME"]) / "clarity" / "dirs").iterdir())
    assert (state / "facts.cache").is_file()

    second = cli(*args)
    assert second.json() == first.json()
    proposal = json.loads((state / "proposal.json").read_text())
    hashes = {f["plan"]["name"]: f["plan"]["sha256"] for f in proposal["groups"]}
    assert hashes == {
        name: hashlib.sha256((plans_dir / name).read_bytes()).hexdigest()
        for name in ("big.md", "small.md", "stub.md")
    }

    learned = FactsCache.load(state / "facts.cache").recall(
        "big.md", plans_dir, os.lstat(plans_dir / "big.md")
    )
    assert learned is not None  # hashed by the first scan's proposal, remembered since
    assert learned.sha256 == hashes["big.md"]

    rewrite_in_place(plans_dir / "live.md", b"# Evil\n")
    third = cli(*args).json()
    live = next(plan for plan in third["plans"] if plan["name"] == "live.md")
    assert (live["title"], live["age_days"]) == ("Evil", 2.0)  # same size and mtime, seen


def _recalled(cache_file: Path, plans_dir: Path, started: int) -> set[str]:
    """The plans a cache loaded from cache_file knows as they are now."""
    known = FactsCache.load(cache_file, started)
    return {
        path.name
        for path in plans_dir.iterdir()
        if known.recall(path.name, plans_dir, path.lstat())
    }


def test_a_scan_cut_short_keeps_what_was_known_of_the_plans_it_did_not_reach(
    plans_dir: Path, tmp_path: Path
) -> None:
    """Issue 45: a session start cut short by its deadline saves what it read, and what
    was known of the rest stays; a whole scan keeps only what it saw (a plan gone goes)."""
    make_files(plans_dir, {f"p{n}.md": Plan(f"# P{n}\n", 3) for n in range(6)})
    cache_file = tmp_path / "facts.cache"
    started = settled()
    facts = read(plans_dir)
    for reached in (("p0.md", "p1.md", "p2.md"), ("p3.md", "p4.md")):  # two starts cut short
        cache = FactsCache.load(cache_file, started)
        for name in reached:
            cache.learn(facts[name])
        cache.save(cache_file, whole=False)
    assert _recalled(cache_file, plans_dir, started) == {
        "p0.md",
        "p1.md",
        "p2.md",
        "p3.md",
        "p4.md",
    }
    (plans_dir / "p0.md").unlink()  # gone; a whole scan sees the other five
    whole = FactsCache.load(cache_file, started)
    read(plans_dir, whole)
    whole.save(cache_file)
    assert _recalled(cache_file, plans_dir, started) == {
        "p1.md",
        "p2.md",
        "p3.md",
        "p4.md",
        "p5.md",
    }
    assert "p0.md" not in FactsCache.load(cache_file, started)._known  # what is gone goes
