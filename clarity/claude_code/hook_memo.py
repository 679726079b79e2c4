"""The session-start hook's memo (`<state>/session-start.json`): what the last scan of each
project found, so that a session start whose project did not change answers at once.
Read and written by the hook and by the continuation a start cut short hands its work
to (hook_background.py). Standard library only, as the hook is."""

# ruff: noqa: PTH111, PTH118
# (os.path, not pathlib: importing pathlib alone costs the hook a fifth of its time)

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

MEMO_FILE = "session-start.json"
MEMO_ENTRIES = 32  # projects remembered
MAX_MEMO = 1 << 20  # bytes: MEMO_ENTRIES entries take a few KiB
_ENV = ("CLARITY_", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME")


def state_dir(env: Mapping[str, str]) -> str:
    """clarity's state folder (clarity.settings.locations.state_dir) without importing platformdirs
    where its rule is plain: $XDG_STATE_HOME or ~/.local/state on Linux."""
    if sys.platform.startswith("linux"):
        base = env.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
        return os.path.join(base, "clarity")
    from clarity.settings.locations import state_dir as located

    return str(located())


def memo_key(cwd: str, env: Mapping[str, str]) -> str:
    """A project and the environment that chooses its settings."""
    return json.dumps([cwd, sorted((k, v) for k, v in env.items() if k.startswith(_ENV))])


def load_memo(path: str) -> dict[str, Any]:
    """The memo, if it is a regular file of a sane size: a FIFO or a device in its place
    is never waited on or read without end (the deadline is not armed yet)."""
    import stat as _stat

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return {}
    try:
        info = os.fstat(fd)
        if not _stat.S_ISREG(info.st_mode) or info.st_size > MAX_MEMO:
            return {}
        memo = json.loads(os.read(fd, MAX_MEMO + 1))
    except (OSError, ValueError, RecursionError):
        return {}
    finally:
        os.close(fd)
    return memo if isinstance(memo, dict) else {}


def save_memo(path: str, memo: dict[str, Any], key: str, entry: dict[str, Any]) -> None:
    from pathlib import Path

    from clarity.fsio import write_atomic

    memo.pop(key, None)
    memo[key] = entry  # newest last: the oldest go first
    while len(memo) > MEMO_ENTRIES:
        del memo[next(iter(memo))]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(Path(path), json.dumps(memo).encode("utf-8"), durable=False)
