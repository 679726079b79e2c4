"""Property: for any plans directory, scan + apply + undo conserve every byte.

After apply each original file is in the plans dir, the archive or the trash,
exactly once; a second apply changes nothing; after undo the plans dir is
exactly as it was (names, bytes, mtimes), and the archive and trash hold only
what they held before.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.builders.files import NOW_ISO, Plan, contents, make_files, quarters_of, snapshot
from tests.builders.processes import isolated_state, run_json

FRAGMENTS = [
    "# ", "Title", " COMPLETED", " -- Done", "\n", "\n\n", "No further planning",
    "---\nstatus: done\n---\n", "---\npinned: true\n---\n", "- [ ] step\n", "plain words ",
    "é", "計画", "finalized", "unfinalized",
]  # fmt: skip

texts = st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join)
bodies = st.tuples(texts, st.integers(0, 3000), texts).map(
    lambda parts: parts[0] + "x" * parts[1] + parts[2]
)
stems = st.text(
    st.characters(categories=["L", "N"], include_characters=" -_.é計"), min_size=1, max_size=16
).filter(lambda stem: not stem.startswith(".") and "/" not in stem)
ages = st.sampled_from([0.0, 0.5, 3.0, 8.0, 9.5, 15.0, 40.0, 75.0])


@st.composite
def plan_dirs(draw: st.DrawFn) -> dict[str, Plan]:
    tree: dict[str, Plan] = {}
    for stem in draw(st.lists(stems, max_size=10, unique=True)):
        tree[f"{stem}.md"] = Plan(draw(bodies), draw(ages))
        for number in range(draw(st.integers(0, 2))):  # sub-plans, some nested
            parent = stem if number == 0 else f"{stem}-agent-a0"
            tree[f"{parent}-agent-a{number}.md"] = Plan(draw(bodies), draw(ages))
    return tree


def files_of(root: Path) -> dict[str, tuple[bytes | str, int]]:
    """Everything under root but clarity's own state (which records each run)."""
    return {key: value for key, value in snapshot(root).items() if "state" not in key}


def places(root: Path) -> list[Path]:
    """The plans dir, every archive quarter, the trash: where a plan may be."""
    archive = root / "plans-archive"
    quarters = quarters_of(archive)
    return [root / "plans", *quarters, root / "home" / "share" / "Trash" / "files"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=plan_dirs(), taken=st.sets(st.integers(0, 9), max_size=3))
def test_scan_apply_undo_conserve_every_byte(tree: dict[str, Plan], taken: set[int]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        plans_dir = make_files(root / "plans", tree)
        names = sorted(tree)
        # Namesakes already in the archive and the trash: never overwritten, never moved.
        squatters: dict[str, str | bytes | Plan] = {
            names[i]: f"an older namesake {i}\n" for i in taken if i < len(names)
        }
        for folder in ("plans-archive/2026-Q3", "plans-archive/2026-Q4", "home/share/Trash/files"):
            make_files(root / folder, squatters)
        original = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()}
        everything = contents(*places(root))

        with isolated_state(root / "home"):
            assert run_json("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)[0] == 0
            code, applied = run_json("apply", "--plans-dir", str(plans_dir), "--yes")
            assert code == 0, applied
            assert contents(*places(root)) == everything

            settled = files_of(root)
            code, again = run_json("apply", "--plans-dir", str(plans_dir), "--yes")
            assert (code, again["results"]) == (0, [])
            assert files_of(root) == settled

            code, undone = run_json("undo", "--plans-dir", str(plans_dir), "--yes")
            assert code == 0, undone
            moved = sum(result["status"] == "done" for result in applied.get("results", []))
            event(f"moved {min(moved, 5)}+ files" if moved >= 5 else f"moved {moved} files")
            assert len(undone.get("results", [])) == moved

        back = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in plans_dir.iterdir()}
        assert back == original
        assert contents(*places(root)) == everything
        index = root / "plans-archive" / "index.jsonl"
        assert not index.exists() or index.read_text() == ""
        assert Counter(contents(*places(root)[1:])) == contents(*places(root)[1:])
