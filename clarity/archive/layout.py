"""The archive's layout and index (SPEC 5): where a plan goes and how it is listed.

    <archive>/2026-Q3/foo.md            quarterly folders by the plan's mtime
    <archive>/2026-Q3/foo-agent-a1.md   sub-plans beside their parent
    <archive>/index.jsonl               one record per archived plan (appended)
    <archive>/INDEX.md                  regenerated from index.jsonl, newest first

Nothing here moves a plan (the executor does); this module names places and
keeps the index.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from clarity import validate
from clarity.errors import ClarityError
from clarity.fsio import (
    NAME_MAX,
    NEW_FLAGS,
    append_durably,
    cut_to,
    partial_path,
    read_regular,
    write_atomic,
)

INDEX_JSONL = "index.jsonl"
INDEX_MD = "INDEX.md"
_LINK = "a link, and clarity follows no link in the archive"


def quarter(mtime_ns: int) -> str:
    """`2026-Q3`: the quarter of a plan's mtime, in local time (what its owner saw)."""
    moment = datetime.fromtimestamp(mtime_ns / 1e9)
    return f"{moment.year}-Q{(moment.month - 1) // 3 + 1}"


def check_layout(plans_dir: Path, archive_dir: Path) -> None:
    """Refuse an archive that is the plans dir, or holds it: archived plans (and the
    archive's INDEX.md) would land among the plans, and be scanned, moved again, trashed."""
    plans = Path(os.path.realpath(plans_dir))
    archive = Path(os.path.realpath(archive_dir))
    if plans == archive:
        raise ClarityError(
            f"the archive dir {archive_dir} is the plans dir itself; "
            "choose an archive outside it with --archive-dir (default: beside it)"
        )
    if archive in plans.parents:
        raise ClarityError(
            f"the plans dir {plans_dir} is inside the archive {archive_dir}; "
            "choose an archive outside it with --archive-dir (default: beside it)"
        )


def check_archive_dir(archive_dir: Path) -> None:
    """Prove the archive can take files, before anything moves, without creating it.

    A probe file is made and removed in the archive, or, if it does not exist
    yet, in its nearest existing ancestor (where it will be created).
    """
    existing = archive_dir
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    probe = existing / f".clarity-probe-{os.getpid()}"
    try:
        if not existing.is_dir():
            raise NotADirectoryError(20, f"{existing} is not a folder")
        fd = os.open(probe, NEW_FLAGS, 0o600)
        os.close(fd)
        probe.unlink()
    except OSError as error:
        raise ClarityError(
            f"cannot archive into {archive_dir}: {error.strerror or error}; "
            "make it a writable folder or choose another with --archive-dir"
        ) from None


def quarter_folder(archive_dir: Path, name: str) -> Path:
    """The archive's folder for a quarter, made if need be: a real folder, never a link
    (a link would send plans wherever it points). Raises OSError."""
    folder = archive_dir / name
    with contextlib.suppress(FileExistsError):
        folder.mkdir(parents=True)
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode):
        raise OSError(errno.ELOOP, _LINK, str(folder))
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(folder))
    return folder


def archived_path(archive_dir: Path, relative: str) -> Path:
    """Where an index record's file lies, reached through real folders only. Raises
    OSError: ELOOP if a folder on the way is a link (a quarter folder swapped for a link
    would hand out, or take back, files outside the archive), EINVAL if the path would
    leave the archive, FileNotFoundError if a folder is missing."""
    parts = relative.split("/")
    if relative.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise OSError(errno.EINVAL, "not a path inside the archive", relative)
    folder = archive_dir
    for part in parts[:-1]:
        folder = folder / part
        if stat.S_ISLNK(os.lstat(folder).st_mode):
            raise OSError(errno.ELOOP, _LINK, str(folder))
    return folder / parts[-1]


def free_name(folder: Path, name: str, taken: Collection[Path] = ()) -> Path:
    """`name` in folder, or `stem.2.md`, `stem.3.md`... : a name nothing has taken
    (nor is about to: `taken` holds names already chosen for this group)."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    candidate = folder / name
    number = 1
    while (
        candidate in taken or os.path.lexists(candidate) or os.path.lexists(partial_path(candidate))
    ):
        number += 1
        tail = f".{number}.{ext}" if dot else f".{number}"
        candidate = folder / (cut_to(stem, NAME_MAX - len(os.fsencode(tail))) + tail)
    return candidate


@dataclass(frozen=True, slots=True)
class ArchivedFile:
    name: str  # its name in the plans dir
    path: Path  # where it is now
    size: int
    sha256: str
    mtime_ns: int


def _iso_ns(mtime_ns: int) -> str:
    return datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).isoformat()


def relative_path(path: Path, archive_dir: Path) -> str:
    """A file's path in index records: relative to the archive, with `/`."""
    return os.fsdecode(path.relative_to(archive_dir).as_posix())


def index_record(
    archive_dir: Path,
    run: str,
    plan: ArchivedFile,
    subplans: Iterable[ArchivedFile],
    *,
    title: str | None,
    summary: str,
    summary_source: str = "extract",
    original: Path,
    project: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    def relative(path: Path) -> str:
        return relative_path(path, archive_dir)

    return {
        "name": plan.name,
        "title": title,
        "archived_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "mtime": _iso_ns(plan.mtime_ns),
        "size": plan.size,
        "sha256": plan.sha256,
        "path": relative(plan.path),
        "subplans": [
            {
                "name": sub.name,
                "path": relative(sub.path),
                "size": sub.size,
                "sha256": sub.sha256,
                "mtime": _iso_ns(sub.mtime_ns),
            }
            for sub in subplans
        ],
        "summary": summary,
        "summary_source": summary_source,
        "original_path": os.fsdecode(original),
        "project": project,
        "run": run,
        # why it was archived, as the scan said it (issue 46: the browse page's Reason)
        **({"reason": reason} if reason else {}),
    }


def record_key(record: dict[str, Any]) -> tuple[str, str]:
    return (str(record.get("run")), str(record.get("path")))


def check_record(data: object) -> dict[str, Any]:
    """An index record as clarity writes it; validate.Damaged names what is wrong."""
    record = validate.record(data)
    validate.text(record, "name")
    validate.text(record, "run")
    _relative(record, "path")
    validate.moment(record, "mtime")
    validate.count(record, "size")
    validate.sha256(record)
    validate.optional_text(record, "title")
    validate.optional_text(record, "summary")
    validate.optional_text(record, "project")
    validate.optional_text(record, "reason")
    validate.optional_text(record, "archived_at")
    subplans = record.get("subplans", [])
    if not isinstance(subplans, list):
        raise validate.Damaged("subplans is not a list")
    for sub in subplans:
        validate.text(validate.record(sub), "name")
        _relative(sub, "path")
    return record


def _relative(data: dict[str, Any], key: str) -> None:
    value = validate.text(data, key)
    if not value or value.startswith("/") or ".." in value.split("/"):
        raise validate.Damaged(f"{key} is not a path inside the archive")


_RECORD_OPENING = b'{"name": "'  # how every record clarity writes begins (index_record)


class IndexLine(NamedTuple):
    number: int  # 1-based
    raw: bytes
    record: dict[str, Any] | None  # None: not a record (damaged, or not clarity's)
    problem: str | None = None

    @property
    def torn(self) -> bool:
        """A record of clarity's that a kill or a power cut cut short: its plan is in the
        archive, and its record is offered again (recovery, or the change kept for later),
        so the next write of the index leaves the line out."""
        if self.record is not None or not (
            self.raw.startswith(_RECORD_OPENING) or _RECORD_OPENING.startswith(self.raw)
        ):
            return False
        try:
            json.loads(self.raw)
        except (ValueError, RecursionError):
            return True  # cut short
        return False  # whole, of another shape: damaged, kept as it is


class NotOurs(OSError):
    """An index file in the archive that clarity did not write: it is left alone."""


def _read_regular(path: Path) -> bytes | None:
    """The bytes of an index file; None if there is none. NotOurs for a link or a folder."""
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotOurs(errno.ELOOP, _LINK, str(path)) from None
        if error.errno in (errno.EINVAL, errno.EISDIR):
            raise NotOurs(errno.EINVAL, "not a regular file", str(path)) from None
        raise


def read_index_lines(archive_dir: Path) -> list[IndexLine]:
    """Every line of index.jsonl, each a checked record or not. Raises NotOurs when
    the file is not clarity's (a link, a folder, or not an index clarity wrote)."""
    path = archive_dir / INDEX_JSONL
    data = _read_regular(path)
    if data is None:
        return []
    lines: list[IndexLine] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            lines.append(IndexLine(number, raw, check_record(json.loads(raw))))
        except (ValueError, RecursionError) as error:
            problem = str(error) if isinstance(error, validate.Damaged) else "not a JSON record"
            lines.append(IndexLine(number, raw, None, problem))
    first = lines[0] if lines else None
    if first is not None and first.record is None and first.number == 1 and not first.torn:
        # The first record is the file's stamp: clarity writes one before anything else.
        raise NotOurs(0, "not clarity's: its first line is not an index record", str(path))
    return lines


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


def change_index(
    archive_dir: Path, adds: Iterable[dict[str, Any]], removes: Collection[tuple[str, str]]
) -> list[IndexLine]:
    """Add records (those not there already) and remove records by key (a key removed and
    added is a record replaced); every other line (damaged, or a record of something
    else) is kept as it was. A record added at
    the path of an older record replaces it: the archive holds one file at a path, so
    the older one left it (a plan moved back by hand, then archived again).

    Returns the index's lines after the change. Raises OSError (NotOurs when
    index.jsonl is not clarity's: then nothing is written).
    """
    lines = read_index_lines(archive_dir)
    present = {record_key(line.record) for line in lines if line.record is not None} - set(removes)
    new: list[dict[str, Any]] = []
    for record in adds:
        if record_key(record) not in present:
            present.add(record_key(record))
            new.append(record)
    path = archive_dir / INDEX_JSONL
    taken = {str(record.get("path")) for record in new}
    gone = [
        line
        for line in lines
        if line.torn
        or (
            line.record
            and (record_key(line.record) in removes or str(line.record.get("path")) in taken)
        )
    ]
    if gone:
        kept = [line for line in lines if line not in gone]
        data = b"".join(line.raw + b"\n" for line in kept) + b"".join(map(_line, new))
        write_atomic(path, data)
        lines = kept
    elif new:
        append_durably(path, b"".join(map(_line, new)))
    last = lines[-1].number if lines else 0
    return lines + [IndexLine(last + i, _line(r)[:-1], r) for i, r in enumerate(new, 1)]


INDEX_MD_HEADING = "# Plan archive"


def write_index_md(archive_dir: Path, text: str) -> None:
    """Write INDEX.md (stamped as clarity's), unless the file there is not clarity's:
    someone's own INDEX.md, or clarity's edited since. Raises OSError (NotOurs)."""
    from clarity.managed import CommentStyle, is_untouched, stamped

    path = archive_dir / INDEX_MD
    current = _read_regular(path)
    if current is not None:
        old = current.decode("utf-8", "replace")
        # Older versions wrote it unstamped, under this heading, "edits here are overwritten".
        legacy = old.startswith(INDEX_MD_HEADING + "\n") and "clarity-managed" not in old
        if not (legacy or is_untouched(old)):
            raise NotOurs(0, "not clarity's (or edited since it wrote it); left alone", str(path))
    write_atomic(path, stamped(text, CommentStyle.XML).encode("utf-8"))
