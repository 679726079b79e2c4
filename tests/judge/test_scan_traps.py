"""The traps of SPEC 4 end to end: real files, read and classified by `clarity scan`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files

FILLER = "A paragraph of ordinary plan text that is long enough to matter. " * 40  # > 2 KB


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # markers that do not count: not on the H1 line, not on the last line
        (
            f"# Plan\n\n- [x] step one -- Done\n- [x] COMPLETED step\n\n{FILLER}\nmore to do\n",
            "dormant",
        ),
        (f"# Plan\nCOMPLETED on line 2\n{FILLER}\nstill open\n", "dormant"),
        (f"# Plan\n\n## COMPLETED\n\n{FILLER}\nnext steps\n", "dormant"),
        (f"# Plan for completed orders\n\n{FILLER}\n", "dormant"),
        (f"# Unfinalized design\n\n{FILLER}\n", "dormant"),
        (f"# Plan\n\n{FILLER}\nthe design is unfinalized\n", "dormant"),
        (f"```\n# COMPLETED\n```\n# Real title\n\n{FILLER}\n", "dormant"),
        # markers that count
        (f"# Plan -- Done\n\n{FILLER}\n", "completed"),
        (f"# Plan\n\n{FILLER}\n\u2014 done\n\n\n", "completed"),
        (f"Plan\n====\n\n{FILLER}\nNo code changes.\n", "completed"),
        (f"---\nstatus: Finalized\n---\n# Plan\n\n{FILLER}\n", "completed"),
        (
            f"# Plan\n\n## Steps\n\n{FILLER}\n## COMPLETED\n",
            "completed",
        ),  # an H2, but the last line
    ],
)
def test_markers_count_only_on_the_h1_and_last_line(
    cli, plans_dir: Path, content, expected
) -> None:
    make_files(plans_dir, {"plan.md": Plan(content, 20)})
    document = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json").json()
    assert document["plans"][0]["class"] == expected, document["plans"][0]["reason"]
