"""Issue 45: scan --json is written a plan at a time (100,000 plans held 408 MB of dicts
and text at once). The pieces make the same document as the whole: byte for byte where
every name is valid UTF-8, and the same JSON where one is not."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clarity.judge.scan import scan
from clarity.model import ScanRequest
from clarity.render.json_report import dumps, scan_document, scan_json
from clarity.settings.config import load_settings
from tests.builders.files import NOW, Plan, make_files

_names = st.text(st.characters(codec="utf-8", blacklist_characters="/\x00"), min_size=1).map(
    lambda text: text.replace(".", "") + ".md"
)
_titles = st.text(st.characters(codec="utf-8"), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plans=st.dictionaries(_names, st.tuples(_titles, st.floats(0, 40)), max_size=8),
    odd_bytes=st.booleans(),
)
def test_the_pieces_make_the_whole_document(
    tmp_path_factory: pytest.TempPathFactory,
    plans: dict[str, tuple[str, float]],
    odd_bytes: bool,
) -> None:
    plans_dir = tmp_path_factory.mktemp("plans")
    tree = {name: Plan(f"# {title}\n\nsteps\n", age) for name, (title, age) in plans.items()}
    try:
        make_files(plans_dir, tree)
    except OSError:
        return  # a name this filesystem refuses (too long): no plan to list
    if odd_bytes:  # a name that is not UTF-8, kept exact (as surrogate escapes)
        (Path(os.fsdecode(os.fsencode(plans_dir) + b"/caf\xe9.md"))).write_text("# x\n")
    chosen = load_settings({"plans_dir": str(plans_dir)}, os.environ, Path.cwd())
    report = scan(chosen, ScanRequest(NOW))
    pieces = "".join(scan_json(report))
    whole = dumps(scan_document(report))
    assert json.loads(pieces) == json.loads(whole)
    if not odd_bytes:
        assert pieces == whole
    assert pieces.endswith("}\n") and pieces.count("\n") == 1
