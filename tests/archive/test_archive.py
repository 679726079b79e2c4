"""The archive's names and index files."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from clarity.archive.layout import change_index, free_name, quarter, read_index_lines
from clarity.executor.indexing import update_index
from clarity.fsio import partial_path
from clarity.state import DirState


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2026, 1, 1, 0, 0, 1), "2026-Q1"),
        (datetime(2026, 3, 31, 23, 59), "2026-Q1"),
        (datetime(2026, 4, 1, 0, 0), "2026-Q2"),
        (datetime(2026, 9, 30, 12, 0), "2026-Q3"),
        (datetime(2026, 12, 31, 23, 59), "2026-Q4"),
    ],
)
def test_quarter_of_a_local_mtime(moment: datetime, expected: str) -> None:
    assert quarter(int(moment.timestamp() * 1e9)) == expected


def test_free_name_skips_taken_names_partials_and_names_chosen_already(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("taken")
    partial_path(tmp_path / "p.2.md").write_text("a copy in progress")
    assert free_name(tmp_path, "p.md") == tmp_path / "p.3.md"
    assert free_name(tmp_path, "p.md", {tmp_path / "p.3.md"}) == tmp_path / "p.4.md"
    assert free_name(tmp_path, "new.md") == tmp_path / "new.md"
    (tmp_path / "noext").write_text("taken")
    assert free_name(tmp_path, "noext") == tmp_path / "noext.2"


def _record(name: str, mtime: str, run: str = "000001-apply.jsonl") -> dict[str, object]:
    return {
        "name": name,
        "title": name.upper(),
        "path": f"{mtime[:4]}-Q{(int(mtime[5:7]) - 1) // 3 + 1}/{name}",
        "mtime": mtime,
        "archived_at": "2026-11-21T10:00:00+00:00",
        "size": 10,
        "sha256": "0" * 64,
        "subplans": [],
        "summary": f"about {name}",
        "run": run,
    }


def test_a_torn_index_line_is_skipped_and_the_next_append_stays_whole(tmp_path: Path) -> None:
    change_index(tmp_path, [_record("a.md", "2026-10-01T00:00:00+00:00")], ())
    with (tmp_path / "index.jsonl").open("ab") as stream:
        stream.write(b'{"name": "torn')
    change_index(tmp_path, [_record("b.md", "2026-10-02T00:00:00+00:00")], ())
    records = [line.record for line in read_index_lines(tmp_path) if line.record is not None]
    assert [record["name"] for record in records] == ["a.md", "b.md"]


def test_removing_records_keeps_the_others(tmp_path: Path) -> None:
    records = [_record(n, "2026-10-01T00:00:00+00:00") for n in ("a.md", "b.md", "c.md")]
    change_index(tmp_path, records, ())
    change_index(tmp_path, [], {("000001-apply.jsonl", "2026-Q4/b.md")})
    lines = (tmp_path / "index.jsonl").read_text().splitlines()
    assert [json.loads(line)["name"] for line in lines] == ["a.md", "c.md"]


def test_index_md_is_newest_first_grouped_by_quarter(tmp_path: Path) -> None:
    state = DirState.for_plans_dir(tmp_path / "plans", tmp_path / "state")
    records = [
        _record("july.md", "2026-07-15T00:00:00+00:00"),
        _record("nov.md", "2026-11-02T00:00:00+00:00"),
        _record("oct.md", "2026-10-20T00:00:00+00:00"),
    ]
    assert update_index(state, tmp_path, records) == ([], [])
    text = (tmp_path / "INDEX.md").read_text()
    order = [text.index(marker) for marker in ("## 2026-Q4", "NOV.MD", "OCT.MD", "## 2026-Q3")]
    assert order == sorted(order)
    assert text.index("## 2026-Q3") < text.index("JULY.MD")
    assert "3 archived plans, newest first" in text
    assert "about oct.md" in text
