"""Every screen fits the terminal: prose broken between words, never inside a command to
paste; a CJK status measured in cells; what needs a decision last, beside its command."""

from __future__ import annotations

import os
import pty
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from clarity.hints import clarity_command
from clarity.render.fit import fit, wrap
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.processes import drain

PLANS = {
    "swift-owl-turing.md": Plan("# Cache layer for the search API COMPLETED\n\n" + "x" * 3000, 9),
    "swift-owl-turing-agent-a1b2c3d4.md": Plan("# Research on cache invalidation\n", 9),
    "tiny-stub.md": Plan("# fix the flaky test\n", 9),
    "long-migration-hamilton.md": Plan("# Migrate the sessions table\n\n" + "y" * 3000, 25),
    "見直し計画.md": Plan(
        "# 検索の見直し\n\n**Status:** フェーズ１完了、フェーズ２進行中、フェーズ３未着手です\n"
        + "z" * 3000,
        25,
    ),
}


def on_terminal(columns: int, *args: str) -> list[str]:
    """What clarity draws on a terminal this wide (stdout and stderr both), as lines."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", *args],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns)},
    )
    os.close(terminal)
    drawn = drain(controller).decode()
    assert process.wait(timeout=120) == 0, drawn
    plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", drawn).replace("\r", "")
    return plain.split("\n")


def too_wide(lines: list[str], columns: int) -> list[str]:
    """Lines wider than the terminal that are more than one unbreakable piece (a command
    or a path too long for any line is left whole, for the terminal to fold)."""
    return [
        line
        for line in lines
        if cell_len(line) > columns
        and not line.strip().startswith("clarity ")
        and " " in line.strip()
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize("columns", [60, 100])
def test_scan_apply_archived_and_undo_fit_the_terminal(tmp_path: Path, columns: int) -> None:
    plans_dir = tmp_path / "my plans" / "plans"  # a space: the commands are quoted
    make_files(plans_dir, PLANS)
    options = ("--plans-dir", str(plans_dir))

    scan = on_terminal(columns, "scan", *options, "--now", NOW_ISO)
    applied = on_terminal(columns, "apply", "--rescan", "--yes", "--now", NOW_ISO, *options)
    listing = on_terminal(columns, "archived", *options)
    undone = on_terminal(columns, "undo", "--yes", *options)
    config = on_terminal(columns, "config", *options)

    for screen in (scan, applied, listing, undone, config):
        assert too_wide(screen, columns) == []
    text = [line.strip() for line in scan if line.strip()]
    apply_line = next(line for line in text if line.startswith("clarity apply --proposal"))
    assert apply_line.endswith(shlex.quote(str(plans_dir)))  # the whole command, one line
    assert text[-1] == apply_line  # the last thing said: the command that acts
    keep = clarity_command("archive", "NAME", *options)
    assert keep in text  # the dormant plans' command, whole, on a line of its own
    dormant = text.index(next(line for line in text if line.startswith("Dormant:")))
    assert dormant > text.index(next(line for line in text if line.startswith("Stale:")))
    assert text.count(apply_line) == 1  # said once, not again on stderr
    undo = clarity_command("undo", *options)
    assert any(line.strip() == undo or undo in line for line in applied)


@given(
    words=st.lists(st.text("abcdé界-/", min_size=1, max_size=12), min_size=1, max_size=30),
    width=st.integers(10, 80),
    at=st.integers(0, 30),
)
def test_fitted_lines_keep_every_word_and_the_command_whole(
    words: list[str], width: int, at: int
) -> None:
    command = clarity_command("apply", "--proposal", "22ea772c", "--plans-dir", "/a b/plans")
    text = " ".join([*words[:at], command, *words[at:]])

    lines = fit(text, width)

    assert " ".join(" ".join(lines).split()) == " ".join(text.split())  # nothing lost
    assert sum(command in line for line in lines) == 1  # the command on one line
    for line in lines:
        assert cell_len(line) <= width or command in line or " " not in line.strip()


@given(text=st.text("ab 界語 x", max_size=80), width=st.integers(2, 40))
def test_a_column_is_never_wider_than_it_is_said_to_be(text: str, width: int) -> None:
    lines = wrap(text, width)
    assert all(cell_len(line) <= width for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())
