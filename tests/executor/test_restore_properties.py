"""Property: any sequence of archive, restore, apply and undo loses no byte and keeps the
index true: every plan's bytes are exactly once in the plans dir or the archive, and every
plan in the archive has exactly one index record (its sub-plans listed in it), no other."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.builders.corpus import leftovers
from tests.builders.files import NOW_ISO, Plan, contents, make_files, quarters_of
from tests.builders.processes import isolated_state, run_json

PLANS = {
    "alpha.md": Plan("# Alpha\n\n" + "a" * 3000, 30),
    "alpha-agent-x1.md": Plan("# Alpha's research\n", 30),
    "beta.md": Plan("# Beta\n\n" + "b" * 3000, 40),
    "gamma.md": Plan("# Gamma COMPLETED\n\nShipped.\n", 20),
}
names = st.sampled_from(["alpha", "beta", "gamma"])
operations = st.lists(
    st.one_of(
        st.tuples(st.just("archive"), names),
        st.tuples(st.just("restore"), names),
        st.just(("apply",)),
        st.just(("undo",)),
    ),
    max_size=8,
)


def _check(root: Path, original: Counter[bytes]) -> None:
    archive = root / "plans-archive"
    quarters = quarters_of(archive)
    assert contents(root / "plans", *quarters) == original  # every byte, exactly once
    assert leftovers(root / "plans", archive) == []
    index = archive / "index.jsonl"
    records = (
        [json.loads(line) for line in index.read_text().splitlines()] if index.exists() else []
    )
    paths = Counter(r["path"] for r in records)
    subs = Counter(sub["path"] for r in records for sub in r["subplans"])
    files = {str(p.relative_to(archive)) for q in quarters for p in q.iterdir()}
    assert max(paths.values(), default=1) == 1  # no plan listed twice
    assert set(paths) == {f for f in files if "-agent-" not in f}
    assert set(subs) == {f for f in files if "-agent-" in f}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=operations)
def test_archive_restore_undo_lose_no_byte(steps: list[tuple[str, ...]]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        plans_dir = make_files(root / "plans", PLANS)
        original = contents(plans_dir)
        where = ("--plans-dir", str(plans_dir))
        with isolated_state(root / "home"):
            for step in steps:
                if step[0] == "archive":
                    code, _ = run_json("archive", "--yes", step[1], *where, "--now", NOW_ISO)
                elif step[0] == "restore":
                    code, _ = run_json("restore", step[1], *where, "--yes")
                elif step[0] == "apply":
                    code, _ = run_json("apply", *where, "--rescan", "--yes", "--now", NOW_ISO)
                else:
                    code, _ = run_json("undo", *where, "--yes")
                assert code in (0, 2), step  # done, or refused (nothing to restore, say)
                event(f"{step[0]} {'refused' if code else 'ran'}")
                _check(root, original)
