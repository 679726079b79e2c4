"""The archive's layout and index (SPEC 5): where a plan goes and how it is listed.

    <archive>/2026-Q3/foo.md            quarterly folders by the plan's mtime
    <archive>/2026-Q3/foo-agent-a1.md   sub-plans beside their parent
    <archive>/index.jsonl               one record per archived plan (appended)
    <archive>/INDEX.md                  regenerated from index.jsonl, newest first

Nothing here moves a plan (the executor does); this module names places and
keeps the index.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clarity.errors import ClarityError
from clarity.fsio import fsync_dir, partial_path, write_atomic

INDEX_JSONL = "index.jsonl"
INDEX_MD = "INDEX.md"


def quarter(mtime_ns: int) -> str:
    """`2026-Q3`: the quarter of a plan's mtime, in local time (what its owner saw)."""
    moment = datetime.fromtimestamp(mtime_ns / 1e9)
    return f"{moment.year}-Q{(moment.month - 1) // 3 + 1}"


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
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        probe.unlink()
    except OSError as error:
        raise ClarityError(
            f"cannot archive into {archive_dir}: {error.strerror or error}; "
            "make it a writable folder or choose another with --archive-dir"
        ) from None


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
        candidate = folder / (f"{stem}.{number}.{ext}" if dot else f"{stem}.{number}")
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
    }


def record_key(record: dict[str, Any]) -> tuple[str, str]:
    return (str(record.get("run")), str(record.get("path")))


def read_index(archive_dir: Path) -> list[dict[str, Any]]:
    """Every record in index.jsonl; a torn or foreign line is passed over."""
    try:
        lines = (archive_dir / INDEX_JSONL).read_bytes().splitlines()
    except FileNotFoundError:
        return []
    records: list[dict[str, Any]] = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "path" in record:
            records.append(record)
    return records


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


def append_index(archive_dir: Path, records: Iterable[dict[str, Any]]) -> None:
    data = b"".join(_line(record) for record in records)
    if not data:
        return
    path = archive_dir / INDEX_JSONL
    with path.open("ab") as stream:
        if stream.tell() and not _ends_with_newline(path):
            stream.write(b"\n")  # a kill tore the last line: keep the new records whole
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    fsync_dir(archive_dir)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as stream:
        stream.seek(-1, os.SEEK_END)
        return stream.read(1) == b"\n"


def remove_from_index(archive_dir: Path, keys: set[tuple[str, str]]) -> None:
    records = read_index(archive_dir)
    kept = [record for record in records if record_key(record) not in keys]
    if len(kept) != len(records):
        write_atomic(archive_dir / INDEX_JSONL, b"".join(_line(record) for record in kept))


def write_index_md(archive_dir: Path) -> None:
    from clarity.render.archive_index import index_markdown

    write_atomic(archive_dir / INDEX_MD, index_markdown(read_index(archive_dir)).encode())
