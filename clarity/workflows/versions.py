"""`clarity history NAME`, `clarity show NAME --version N` and `clarity diff NAME [A] [B]`:
the texts of one plan, live, archived or gone, oldest first (SPEC 6.1). Read-only.

A plan's history is every text clarity kept of it (archive/versions.py), and the
texts its archived copies hold (the archive keeps those already: they are not
kept twice), each text once, oldest first. The text the file holds now (the
live file, else its latest archived copy) is marked; if clarity has not kept it
yet (scan writes nothing), it is listed last, as "in the plans dir now".
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from clarity.archive.layout import archived_path
from clarity.archive.versions import read_versions
from clarity.dates import iso_moment
from clarity.errors import ClarityError
from clarity.fsio import READ_FLAGS, hash_fd, read_regular
from clarity.hints import Again, clarity_command
from clarity.plans.reader import is_plan_name
from clarity.settings.config import Settings

TEXT_MOST = 256 * 1024 * 1024  # a text bigger than this is not shown whole (diff, show)


@dataclass(frozen=True, slots=True)
class PlanText:
    """One text of a plan, as history lists it."""

    number: int  # 1 = oldest
    when: str  # ISO time: kept, or the file's mtime
    size: int
    sha256: str
    source: str  # "seen in the plans dir", "archived 2026-11-02", ...
    path: Path  # the file that holds it
    current: bool  # the text the plan's file holds now


@dataclass(frozen=True, slots=True)
class History:
    name: str  # foo.md
    texts: tuple[PlanText, ...]
    where: str  # "live", "archived", "gone": where the plan's file is now


def plan_name(value: str) -> str:
    text = value.strip()
    if not text or "/" in text or text in (".", ".."):
        raise ClarityError(f"{value!r} is not a plan's name; name it as foo or foo.md")
    name = text if text.endswith(".md") else f"{text}.md"
    if not is_plan_name(name):
        raise ClarityError(f"{value!r} is not a plan's name; name it as foo or foo.md")
    return name


def _now_in(path: Path) -> tuple[str, int, int] | None:
    """(sha256, size, mtime_ns) of the plan file there now, read once, streamed; None if
    there is none (or it is not a regular file: clarity follows no link)."""
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        return hash_fd(fd), info.st_size, info.st_mtime_ns
    except OSError:
        return None
    finally:
        os.close(fd)


def _archived(archive_dir: Path, name: str) -> Iterator[tuple[str, str, int, str, Path]]:
    """(archived_at, sha256, size, mtime, path) of each archived copy of the plan."""
    from clarity.archive.shelf import index_records  # read once per change of the index

    try:
        records = index_records(archive_dir)
    except (ClarityError, OSError):
        return
    for record in records:
        if record.get("name") != name:
            continue
        try:
            path = archived_path(archive_dir, str(record["path"]))
        except OSError:
            continue
        yield (
            str(record.get("archived_at") or record["mtime"]),
            str(record["sha256"]),
            int(record["size"]),
            str(record["mtime"]),
            path,
        )


def plan_history(settings: Settings, value: str) -> History:
    """Every text of the plan, oldest first. ClarityError if clarity knows none."""
    name = plan_name(value)
    rows: list[tuple[str, int, str, str, Path]] = []  # (when, size, sha, source, path)
    seen: set[str] = set()
    for version in read_versions(settings.archive_dir, name):
        seen.add(version.sha256)
        when = iso_moment(version.mtime_ns) or version.kept_at  # the text's own date
        rows.append((when, version.size, version.sha256, version.source, version.path))
    archived = sorted(_archived(settings.archive_dir, name))
    for archived_at, sha, size, mtime, path in archived:
        if sha not in seen:
            seen.add(sha)
            rows.append((mtime, size, sha, f"archived {archived_at[:10]}", path))
    live = settings.plans_dir / name
    now = _now_in(live)
    where = "live" if now is not None else "archived" if archived else "gone"
    if now is not None and now[0] not in seen:
        moment = iso_moment(now[2]) or "year > 9999"  # a date no calendar here shows
        rows.append((moment, now[1], now[0], "in the plans dir now (not kept yet)", live))
    if not rows:
        raise ClarityError(
            f"clarity knows no text of {name}: it is not in {settings.plans_dir}, not archived "
            f"in {settings.archive_dir}, and none was kept; "
            f"{Again.of(settings).command('archived')} lists what is"
        )
    rows.sort(key=lambda row: _moment(row[0]))  # oldest first, whatever kept it when
    current = now[0] if now is not None else archived[-1][1] if archived else None
    texts = tuple(
        PlanText(number, when, size, sha, source, path, sha == current)
        for number, (when, size, sha, source, path) in enumerate(rows, 1)
    )
    return History(name, texts, where)


def _moment(when: str) -> float:
    try:
        moment = datetime.fromisoformat(when)
    except ValueError:
        return float("inf")  # a date no calendar here shows: the far future
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def text_of(history: History, number: int | None) -> tuple[PlanText, bytes]:
    """Version `number` (None: the latest) and its bytes. ClarityError if there is none."""
    if number is None:
        number = len(history.texts)
    if not 1 <= number <= len(history.texts):
        raise ClarityError(
            f"{history.name} has versions 1 to {len(history.texts)}, not {number}; "
            f"{clarity_command('history', history.name.removesuffix('.md'))} lists them"
        )
    text = history.texts[number - 1]
    try:
        return text, read_regular(text.path, TEXT_MOST)
    except OSError as error:
        raise ClarityError(
            f"cannot read version {number} of {history.name} at {text.path}: "
            f"{error.strerror or error}"
        ) from None


def diff_texts(history: History, first: int | None, second: int | None) -> str:
    """A unified diff from version `first` to `second` (default: the last two)."""
    count = len(history.texts)
    if first is None and second is None:
        if count < 2:
            raise ClarityError(f"{history.name} has one version only: nothing to compare")
        first, second = count - 1, count
    elif second is None:
        second = count
    old, old_bytes = text_of(history, first)
    new, new_bytes = text_of(history, second)
    lines = difflib.unified_diff(
        old_bytes.decode("utf-8", "replace").splitlines(keepends=True),
        new_bytes.decode("utf-8", "replace").splitlines(keepends=True),
        fromfile=f"{history.name} version {old.number} ({old.when[:10]})",
        tofile=f"{history.name} version {new.number} ({new.when[:10]})",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
