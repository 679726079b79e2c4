"""What the SessionStart hook watches to know that nothing changed since its last scan: the
plans' listing and the settings files that choose the plans dir (standard library only).

The hook (claude_code/hook.py) compares them with its memo; the scan behind it
(session_start.py) records them beside what it found.
"""

# ruff: noqa: PTH116, PTH118, PTH120
# (os.path, not pathlib: importing pathlib alone costs the hook a fifth of its time)

from __future__ import annotations

import os
import zlib

HORIZON_DAYS = 7.0  # plans Claude Code deletes sooner than this are at risk
Stamp = list[int] | None


def stamp(path: str) -> Stamp:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return [info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns]


_MASK = (1 << 64) - 1


def listing(plans_dir: str) -> Stamp:
    """The plans' names and stamps, in three numbers: what any change to a plan changes (a
    write moves its ctime, a rename too). Summed, not sorted and joined: the warm start of
    20,000 plans spent a fifth of its time making and sorting their lines."""
    count = names = total = 0
    try:
        with os.scandir(plans_dir) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(".") or not name.endswith(".md"):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                count += 1
                names ^= zlib.crc32(name.encode("utf-8", "surrogateescape"))
                total += (
                    info.st_ino * 0x9E3779B97F4A7C15
                    ^ info.st_size * 0xC2B2AE3D27D4EB4F
                    ^ info.st_mtime_ns
                    ^ info.st_ctime_ns * 0x165667B19E3779F9
                )
    except (OSError, ValueError):
        return None
    return [count, names, total & _MASK]


def watched(cwd: str, claude_dir: str, config_file: str) -> list[str]:
    """Files whose change can change the plans dir or the cleanup age: clarity's config,
    Claude Code's user settings, and every project settings file above cwd."""
    paths = [config_file, os.path.join(claude_dir, "settings.json")]
    folder = cwd
    while True:
        for name in ("settings.local.json", "settings.json"):
            paths.append(os.path.join(folder, ".claude", name))
        parent = os.path.dirname(folder)
        if parent == folder:
            return paths
        folder = parent
