"""Issue 46, item 1: the plugin passes the Claude Code plugin directory's own checks, run by
the real Claude Code (`claude plugin validate --profile directory --strict`, 2.1.332, the
npm package's native binary; .ci/run fetches it and names it in REAL_CLAUDE_CODE), and
its icon is what plugin_icon.py draws."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from clarity import __version__
from clarity.claude_code import plugin_icon

ROOT = Path(__file__).parents[2]
PLUGIN = ROOT / "clarity" / "claude_code" / "plugin"


def _claude() -> str | None:
    given = os.environ.get("REAL_CLAUDE_CODE")
    return given if given and Path(given).is_file() else shutil.which("claude")


@pytest.mark.skipif(_claude() is None, reason="no Claude Code binary (.ci/run fetches it)")
def test_the_plugin_passes_the_directorys_strict_checks(tmp_path: Path) -> None:
    claude = _claude()
    assert claude is not None
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"], "DISABLE_AUTOUPDATER": "1"}
    checked = subprocess.run(
        [claude, "plugin", "validate", "--profile", "directory", "--strict", str(PLUGIN)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    said = checked.stdout + checked.stderr
    assert checked.returncode == 0, said
    assert "Validation passed" in said
    assert "ICON_MISSING" not in said


def test_the_icon_is_a_square_png_the_script_draws() -> None:
    icon = PLUGIN / ".claude-plugin" / "icon.png"
    data = icon.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == height and 512 <= width <= 2048
    assert len(data) < 2 * 1024 * 1024
    assert plugin_icon.png() == data  # drawn by code, never by hand: the same bytes


def test_the_manifest_discloses_what_it_reads_and_names_its_privacy_page() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert "session transcripts" in manifest["description"]
    assert "sends nothing" in manifest["description"]
    assert manifest["privacyPolicyUrl"].endswith("/docs/privacy.md")
    assert (ROOT / "docs" / "privacy.md").is_file()
    assert manifest["version"] == __version__
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
