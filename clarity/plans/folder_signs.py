"""What makes a folder plainly a project's, not a plans folder: --all passes such a
plansDirectory over, and apply moves nothing out of one unless trusted."""

from __future__ import annotations

import os
from pathlib import Path

# A project's own files: with .git, or two of these, a folder is a project, not a plans
# directory (a plans dir may keep a README of its own, never a build file beside it).
_PROJECT_FILES = (
    "README.md",
    "CHANGELOG.md",
    "CONTRIBUTING.md",
    "LICENSE",
    "LICENSE.md",
    "pyproject.toml",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "setup.py",
    "Makefile",
    "pom.xml",
    "Gemfile",
)


# Alone enough: git's folder, and a project's memory for Claude Code or other agents.
_SURE_SIGNS = (".git", "CLAUDE.md", "AGENTS.md")


def project_signs(plans_dir: Path) -> list[str]:
    """What makes a folder plainly a project's (.git, CLAUDE.md, AGENTS.md, or two of
    README, CHANGELOG...); none for a plans directory."""
    names = (*_SURE_SIGNS, *_PROJECT_FILES)
    found = [name for name in names if os.path.lexists(plans_dir / name)]
    return found if set(found) & set(_SURE_SIGNS) or len(found) >= 2 else []
