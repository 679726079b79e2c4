"""Compacting the approval ledger (ledger.py), so that it never grows past what it says.

The hooks append a line for every plan shown or approved and every "clear context", and
nothing else trims it: a plan shown again and again, or a hook run in a loop, adds line
after line that tells nothing new. A writing run (apply, the weekly run) compacts a
ledger once it has grown to COMPACT_AT and to twice its size after the last compaction:

- Of the lines that repeat one another (the same event, session, project, plan, text,
  prompt and transcript: all but the time), the first and the last are kept. The first
  says when a text was first seen (a version's date), the last when it was seen lately
  (the session's last activity, the plan's last mention, what followed an approval).
- The lines of a project are compared only between its "clear context" starts, and every
  start and ending is kept: which plan a start approves depends on the plan the project
  showed last before it (ledger_facts.replay).
- Lines past the ledger's bound (LEDGER_MOST) go: no reader reads them.

Before the new ledger replaces the old one, both are replayed for every plans folder
their lines name, and the new one is kept only if each folder's weighed facts and the
texts set aside from it are exactly the old one's. Hooks that append meanwhile are not
lost: the last step holds the old file's lock, copies what was appended since it was
read, and renames (ledger.record takes the shared lock and sees the file replaced).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from clarity.fsio import READ_FLAGS, read_regular, sweep_temps, write_atomic
from clarity.transcripts import texts_seen
from clarity.transcripts.evidence import weigh
from clarity.transcripts.ledger import CLEARED, ENDED, LEDGER, LedgerLines
from clarity.transcripts.ledger_facts import replay
from clarity.transcripts.lines import PlanPaths

COMPACT_AT = 4 * 1024 * 1024  # below this a ledger is read in a blink: left as it is
_COMPACTED = "ledger-compacted"  # `<inode> <size>`: the ledger as the last compaction left it
_FOLDERS_MOST = 64  # the folders named most are replayed (a replay reads every line)
_KEY = ("event", "session", "cwd", "plan", "sha256", "prompt", "transcript")


class Compacted(NamedTuple):
    """What a compaction did: the ledger's bytes before and after (equal: nothing to drop,
    or the replay found a difference and the old ledger stays)."""

    before: int
    after: int


def due(state_dir: str) -> bool:
    """Whether the ledger has grown enough since the last compaction to try one."""
    try:
        info = (Path(state_dir) / LEDGER).lstat()
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size < COMPACT_AT:
        return False
    inode, size = _last_compacted(state_dir)
    return inode != info.st_ino or info.st_size >= 2 * size


def compact(state_dir: str, now: float, protect_hours: float) -> Compacted | None:
    """Compact the ledger if due (see the module); None: not due. Raises OSError (a
    full disk: the old ledger stays as it was). The ledger is read a piece at a time,
    three times (which lines stay, the lines that stay, and the replay of the whole);
    what is held is the lines that stay."""
    sweep_temps(Path(state_dir) / LEDGER)  # a compaction killed midway began one
    if not due(state_dir):
        return None
    first = LedgerLines(state_dir)
    numbers, count = kept_numbers(line for _, line in first)
    inode, size = first.inode, first.size

    def whole() -> Iterator[dict[str, Any]]:
        """The lines read at first, read again (the same file, to the same size)."""
        lines = LedgerLines(state_dir, until=size)
        for _, line in lines:
            if lines.inode != inode:
                raise OSError(errno.ESTALE, "the ledger was replaced meanwhile", LEDGER)
            yield line

    kept = [line for number, line in enumerate(whole()) if number in numbers]
    if len(kept) == count and size <= len(_text(kept)):
        _remember(state_dir, inode, size)  # nothing to drop
        return Compacted(size, size)
    if not same_facts(whole, kept, now, protect_hours):
        _remember(state_dir, inode, size)  # not tried again until it doubles
        return Compacted(size, size)
    return Compacted(size, _replace(state_dir, inode, size, _text(kept)))


def kept_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines a compaction keeps, in their order (see the module)."""
    numbers, _ = kept_numbers(lines)
    return [lines[number] for number in sorted(numbers)]


def kept_numbers(lines: Iterable[dict[str, Any]]) -> tuple[set[int], int]:
    """Which lines (by their number, from 0) a compaction keeps; and how many there are."""
    keep: set[int] = set()
    first: dict[tuple[Any, ...], int] = {}
    last: dict[tuple[Any, ...], int] = {}
    starts: dict[str, int] = {}  # project -> "clear context" starts so far
    count = 0
    for count, line in enumerate(lines, 1):
        index = count - 1
        project = str(line.get("cwd"))
        if line["event"] in (ENDED, CLEARED):
            keep.add(index)
            if line["event"] == CLEARED:
                starts[project] = starts.get(project, 0) + 1
            continue
        key = (starts.get(project, 0), *(_hashable(line.get(field)) for field in _KEY))
        first.setdefault(key, index)
        last[key] = index
    keep.update(first.values(), last.values())
    return keep, count


def _hashable(value: object) -> object:
    return value if value is None or isinstance(value, str | int | float | bool) else repr(value)


def same_facts(
    old: Callable[[], Iterable[dict[str, Any]]],
    new: list[dict[str, Any]],
    now: float,
    protect_hours: float,
) -> bool:
    """Whether every plans folder the lines name (the 64 named most, of a ledger that names
    more: each takes a replay of both) gets the same weighed facts, and the same texts to
    set aside, from the new lines as from the old (read anew for each folder)."""
    named = Counter(
        os.path.dirname(plan)  # noqa: PTH120 - a string in, a string out
        for line in new
        if isinstance(plan := line.get("plan"), str) and plan.endswith(".md")
    )
    for folder, _ in named.most_common(_FOLDERS_MOST):
        if not Path(folder).is_absolute():
            continue  # names no plans folder: no reader takes its lines
        plans = PlanPaths(Path(folder))
        if _facts(old(), plans, now, protect_hours) != _facts(new, plans, now, protect_hours):
            return False
    return True


def _facts(
    lines: Iterable[dict[str, Any]], plans: PlanPaths, now: float, protect_hours: float
) -> tuple[object, object]:
    texts = texts_seen.TextsSeen()

    def found(line: dict[str, Any], plan: str, sha: str, how: str, _end: int) -> None:
        texts.add(plan, sha, "(text)", line["at"], how, line["session"])

    numbered: Iterable[tuple[int, dict[str, Any]]] = enumerate(lines)
    facts, _ = replay(numbered, plans, found)
    seen = sorted(seen for seen, _ in texts.found.values())
    return weigh(facts, now, protect_hours), seen


def _text(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line, ensure_ascii=True) + "\n" for line in lines).encode("ascii")


def _replace(state_dir: str, inode: int, size: int, data: bytes) -> int:
    """Put data in the ledger's place, with every line hooks appended to the old one since
    it was read (size); the new ledger's size. The old one stays if it is no longer the
    file that was read."""
    import fcntl

    path = Path(state_dir) / LEDGER
    fd = os.open(path, READ_FLAGS)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # no hook is appending now, and none will here
        info = os.fstat(fd)
        if info.st_ino != inode or path.lstat().st_ino != inode:
            return info.st_size  # compacted by another run meanwhile
        appended = os.pread(fd, info.st_size - size, size) if info.st_size > size else b""
        new = data + appended
        write_atomic(path, new, durable=True, mode=0o600)
        new_inode = path.lstat().st_ino
    finally:
        os.close(fd)  # hooks waiting on the old file go on, see it replaced, and reopen
    _remember(state_dir, new_inode, len(new))
    return len(new)


def _remember(state_dir: str, inode: int, size: int) -> None:
    with contextlib.suppress(OSError):
        write_atomic(Path(state_dir) / _COMPACTED, f"{inode} {size}".encode("ascii"), durable=False)


def _last_compacted(state_dir: str) -> tuple[int, int]:
    with contextlib.suppress(OSError, ValueError):
        inode, size = read_regular(Path(state_dir) / _COMPACTED, 64).decode("ascii").split()
        return int(inode), int(size)
    return 0, 0
