"""Names as long as a filesystem allows: moved, suffixed and put back within NAME_MAX;
a path too long where a plan would go is said once, as a skip, not a failure every week."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, contents, make_files
from tests.builders.processes import run_process

NAME_MAX = 255  # bytes in one name on Linux filesystems
LONG = "d" * (NAME_MAX - len("-done.md")) + "-done.md"
WIDE = "完" * ((NAME_MAX - 3) // 3) + ".md"  # 3 bytes a character in UTF-8
BODY = "# Long COMPLETED\n\nDone.\n"


def _apply(plans_dir: Path, *args: str):
    scanned = run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, *args)
    assert scanned.exit_code == 0, scanned.stderr
    return run_process("apply", "--plans-dir", str(plans_dir), "--yes", "--json", *args)


@pytest.mark.parametrize("across", [False, True], ids=["same filesystem", "across filesystems"])
def test_a_name_of_255_bytes_is_archived_beside_a_namesake_and_undone(
    plans_dir: Path, tmp_path: Path, across: bool
) -> None:
    shm = Path("/dev/shm")
    if across and (not shm.is_dir() or shm.stat().st_dev == plans_dir.stat().st_dev):
        pytest.skip("no second filesystem to move across")
    with tempfile.TemporaryDirectory(dir=shm if across else tmp_path) as folder:
        archive = Path(folder) / "archive"
        plans = {LONG: Plan(BODY, 20), WIDE: Plan(BODY + "wide\n", 20)}
        make_files(plans_dir, plans)
        before = contents(plans_dir)
        quarter = archive / "2026-Q4"
        make_files(quarter, {LONG: "archived before\n", WIDE: "archived before too\n"})
        result = _apply(plans_dir, "--archive-dir", str(archive))
        assert result.exit_code == 0, result.stdout
        where = [Path(item["destination"]) for item in result.json()["results"]]
        assert all(len(os.fsencode(path.name)) <= NAME_MAX for path in where)
        assert all(".2.md" in path.name for path in where)  # suffixed, the stem cut to fit
        assert {path.read_bytes() for path in where} == set(before)
        index = [json.loads(line) for line in (archive / "index.jsonl").read_text().splitlines()]
        assert sorted(record["name"] for record in index) == sorted(plans)
        undone = run_process("undo", "--plans-dir", str(plans_dir), "--archive-dir", str(archive))
        assert undone.exit_code == 2  # asks for --yes without a terminal
        undone = run_process(
            "undo", "--plans-dir", str(plans_dir), "--archive-dir", str(archive), "--yes"
        )
        assert undone.exit_code == 0, undone.stdout
        assert contents(plans_dir) == before


def test_a_path_too_long_where_the_plan_would_go_is_a_skip_with_its_reason(
    plans_dir: Path, tmp_path: Path
) -> None:
    # The archive so deep that a 255-byte name in it passes PATH_MAX (4096 bytes).
    archive = tmp_path
    while len(os.fsencode(archive)) < 4096 - NAME_MAX - len("/2026-Q4/archive"):
        archive = archive / ("a" * 200)
    archive = archive / "archive"
    archive.mkdir(parents=True)
    make_files(plans_dir, {LONG: Plan(BODY, 20), "short-done.md": Plan(BODY, 20)})
    for attempt in range(2):  # the weekly job: the same line, and exit 0, each time
        result = run_process(
            *("apply", "--rescan", "--yes", "--json", "--now", NOW_ISO),
            *("--plans-dir", str(plans_dir), "--archive-dir", str(archive)),
        )
        assert result.exit_code == 0, result.stdout
        by_name = {item["name"]: item for item in result.json()["results"]}
        if attempt == 0:
            assert by_name["short-done.md"]["status"] == "done"
        assert by_name[LONG]["status"] == "skipped"
        assert "is too long for" in by_name[LONG]["reason"]
        assert "rename it shorter" in by_name[LONG]["reason"]
    assert (plans_dir / LONG).read_text() == BODY
