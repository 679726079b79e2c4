"""Which plans git tracks (SPEC 2): a tracked plan is the team's record, and git keeps its
history, so clarity reports it and never moves or trashes it (unless asked).

Only a plans dir inside a git work tree costs a `git ls-files`; every other
costs a look for `.git` in its folder and those above it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

GIT_SECONDS = 10.0  # a git that takes longer is not waited for: every plan is held


class Tracked(NamedTuple):
    """The plans git tracks; unknown: git could not say, so every plan counts as tracked."""

    names: frozenset[str] = frozenset()
    unknown: str | None = None  # why git could not say

    def holds(self, name: str) -> bool:
        return self.unknown is not None or name in self.names


NOT_IN_GIT = Tracked()


def work_tree_of(folder: Path) -> Path | None:
    """The git work tree folder lies in: its nearest ancestor (or itself) with `.git`."""
    for candidate in (folder, *folder.parents):
        try:
            os.lstat(candidate / ".git")
        except OSError:  # none there (or it cannot be looked at: a name too long, say)
            continue
        return candidate
    return None


def tracked_plans(plans_dir: Path) -> Tracked:
    """The plans (file names directly in plans_dir) that git tracks."""
    if work_tree_of(plans_dir) is None:
        return NOT_IN_GIT
    git = shutil.which("git")
    if git is None:
        return Tracked(unknown="git is not installed, so clarity cannot tell which it tracks")
    try:
        done = subprocess.run(
            # A repository's own config must run nothing: core.fsmonitor names a program
            # git would start (a cloned repository's, say), so it is turned off here.
            [git, "-c", "core.fsmonitor=false", "-C", str(plans_dir), "ls-files", "-z", "--", "."],
            capture_output=True,
            timeout=GIT_SECONDS,
            check=False,
            env={
                **os.environ,
                "GIT_OPTIONAL_LOCKS": "0",
                "LC_ALL": "C",  # its messages in English
                "GIT_TERMINAL_PROMPT": "0",
            },
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return Tracked(unknown=f"git ls-files failed ({error})")
    if done.returncode != 0 and b"not a git repository" in done.stderr:
        return NOT_IN_GIT  # a `.git` git does not take for one: nothing it tracks
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = message[0] if message else f"exit {done.returncode}"
        return Tracked(unknown=f"git ls-files failed ({reason})")
    names = (os.fsdecode(raw) for raw in done.stdout.split(b"\0") if raw)
    return Tracked(frozenset(name for name in names if "/" not in name))
