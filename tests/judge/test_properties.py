"""Property tests: any bytes and any names are classified or skipped, never a crash,
and a scan changes nothing on disk."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clarity.cli import main
from clarity.judge.classifier import Rules, classify
from clarity.model import PlanClass, Thresholds
from clarity.plans.markers import compile_markers
from clarity.plans.reader import is_plan_name, read_plans_dir
from clarity.settings.config import DEFAULT_MARKERS
from tests.builders.files import DAY, NOW, NOW_ISO, snapshot

FRAGMENTS = [
    "# ", "## ", "===\n", "---\n", "```\n", "~~~\n", "\n", "\r\n", "\ufeff", "   ",
    "COMPLETED", "completed", "-- Done", "\u2014Done", "\u2013 Complete", "finalized",
    "unfinalized", "No further planning", "status: done\n", "pinned: true\n",
    "status: [\n", "- [ ] step\n", "Plan", "計画", "é", "\x00", "\ufffd",
]  # fmt: skip

plan_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=20), max_size=40).map("".join)
plan_bytes = plan_text.map(lambda text: text.encode("utf-8", "surrogatepass")) | st.binary(
    max_size=12000
)
name_chars = st.characters(exclude_characters="/\x00", exclude_categories=["Cs"])
stems = st.text(name_chars, min_size=1, max_size=40) | st.sampled_from(
    ["p", "p-agent-a1", "p-agent-a1-agent-b2", "p-agent-", "-agent-x", "q-agent-zz9"]
)
names = (
    st.tuples(stems, st.sampled_from([".md", ".md", ".md", ".txt", ""]))
    .map("".join)
    .filter(lambda name: name not in (".", "..") and len(os.fsencode(name)) <= 250)
)
entries = st.dictionaries(
    names,
    st.tuples(
        plan_bytes,
        st.floats(min_value=-3, max_value=90),
        st.sampled_from(["file", "file", "link", "dir"]),
    ),
    max_size=12,
)


def lay_out(root: Path, tree: dict[str, tuple[bytes, float, str]]) -> None:
    for name, (data, age, kind) in tree.items():
        path = root / name
        if kind == "dir":
            path.mkdir()
            (path / "inner.md").write_bytes(data)
        elif kind == "link":
            path.symlink_to(root.parent / "outside-target")
        else:
            path.write_bytes(data)
        mtime = NOW.timestamp() - age * DAY
        os.utime(path, (mtime, mtime), follow_symlinks=False)


def run_cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=entries)
def test_every_plan_is_classified_or_skipped_and_nothing_raises(tree) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "plans"
        root.mkdir()
        lay_out(root, tree)
        listing = read_plans_dir(root)
        verdicts = classify(
            listing.plans, Rules(compile_markers(DEFAULT_MARKERS), Thresholds()), NOW
        )

        expected = {
            name for name, (_, _, kind) in tree.items() if is_plan_name(name) and kind != "dir"
        }
        seen = [v.name for v in verdicts] + [s.path.name for s in listing.skipped]
        assert sorted(seen) == sorted(expected)
        for verdict in verdicts:
            assert verdict.reason
            assert isinstance(verdict.plan_class, PlanClass)
            if verdict.parent is not None:
                parent = next(v for v in verdicts if v.name == verdict.parent)
                assert parent.parent is None
                assert verdict.name in parent.subplans
        linked = {
            name for name, (_, _, kind) in tree.items() if kind == "link" and is_plan_name(name)
        }
        assert {s.path.name for s in listing.skipped} == linked


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=entries, output=st.sampled_from(["json", "markdown", "table"]))
def test_scan_leaves_the_directory_exactly_as_it_found_it(tree, output) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "plans"
        root.mkdir()
        lay_out(root, tree)
        before = snapshot(Path(temp))
        code, stdout = run_cli(
            "scan", "--plans-dir", str(root), "--now", NOW_ISO, "--format", output
        )
        assert code == 0
        if output == "json":
            document = json.loads(stdout)
            assert sum(document["counts"].values()) == len(document["plans"])
        assert snapshot(Path(temp)) == before
