"""README's first screen: the two commands, and how to have `clarity` on PATH for good and
take it away again under the package's real name."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_says_how_to_install_clarity_for_good_and_remove_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    opening = readme[: readme.index("## What it does")]

    assert "uv tool install ." in opening and "pipx install ." in opening
    removals = re.findall(r"(?:uv tool uninstall|pipx uninstall) ([\w.-]+)", opening)
    assert removals and set(removals) == {name}  # the package's name, not the command's
    assert ".venv/bin/clarity" in opening  # what `clarity` is until then
