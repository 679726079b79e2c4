"""Keeping the archive's index in step with the moves, without ever wedging on it.

The index (index.jsonl, and INDEX.md made from it) says what the archive
holds; the plans themselves are safe whether it is written or not. So a
change the index cannot take (a full disk, a folder where index.jsonl should
be, a file there that is not clarity's) never stops a run: the change is kept
in the state folder (`index-pending.jsonl`) and made by the next run that
touches this archive, and the run says what is left and how to unblock it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from clarity import validate
from clarity.archive.layout import (
    INDEX_JSONL,
    INDEX_MD,
    IndexLine,
    NotOurs,
    change_index,
    check_record,
    record_key,
    write_index_md,
)
from clarity.fsio import sweep_temps, write_atomic
from clarity.printable import counted
from clarity.state import ArchiveLockError, DirState

Key = tuple[str, str]  # (run, path): an index record's identity


def _pending_file(state: DirState) -> Path:
    return state.root / "index-pending.jsonl"


class _Pending(NamedTuple):
    adds: list[dict[str, Any]]
    removes: set[Key]
    others: list[bytes]  # changes left for another archive dir, kept as they are


def _load_pending(state: DirState, archive_dir: Path) -> _Pending:
    """Index changes an earlier run could not make in this archive; damaged lines dropped."""
    left = _Pending([], set(), [])
    try:
        data = _pending_file(state).read_bytes()
    except OSError:
        return left
    for raw in data.splitlines():
        try:
            entry = validate.record(json.loads(raw))
            if validate.text(entry, "archive_dir") != os.fsdecode(archive_dir):
                left.others.append(raw)
            elif "add" in entry:
                left.adds.append(check_record(entry["add"]))
            elif "remove" in entry:
                run, path = validate.strings(entry, "remove")
                left.removes.add((run, path))
        except (ValueError, RecursionError):
            continue  # a damaged pending change: the archive's files say what is there
    return left


def _save_pending(state: DirState, archive_dir: Path, left: _Pending) -> None:
    folder = os.fsdecode(archive_dir)
    lines = [json.dumps({"archive_dir": folder, "add": record}) for record in left.adds]
    lines += [
        json.dumps({"archive_dir": folder, "remove": list(key)}) for key in sorted(left.removes)
    ]
    data = b"".join(raw + b"\n" for raw in left.others)
    data += "".join(line + "\n" for line in lines).encode("ascii")
    path = _pending_file(state)
    if data:
        write_atomic(path, data)
    else:
        path.unlink(missing_ok=True)


def flush_pending(state: DirState) -> IndexReport:
    """Make the index changes earlier runs left, in every archive they were for."""
    try:
        data = _pending_file(state).read_bytes()
    except OSError:
        return NOTHING
    folders: set[str] = set()
    for raw in data.splitlines():
        try:
            folders.add(validate.text(validate.record(json.loads(raw)), "archive_dir"))
        except (ValueError, RecursionError):
            continue
    if not folders:
        _pending_file(state).unlink(missing_ok=True)  # nothing usable in it
    report = NOTHING
    for folder in sorted(folders):
        report = report.merged(update_index(state, Path(folder)))
    return report


class IndexReport(NamedTuple):
    failed: list[str]  # changes the index could not take (kept for the next run)
    notes: list[str]  # damage found in it, left as it was

    def merged(self, other: IndexReport) -> IndexReport:
        return IndexReport(self.failed + other.failed, self.notes + other.notes)


NOTHING = IndexReport([], [])


def update_index(
    state: DirState,
    archive_dir: Path,
    adds: Iterable[dict[str, Any]] = (),
    removes: Collection[Key] = (),
    *,
    render: bool = True,
) -> IndexReport:
    """Make these changes (and any left pending) to the index; what could not be done.

    Never raises for the index's sake: a change that fails is kept for the
    next run, and the returned lines say so. Call with the plans dir's lock held.
    """
    adds = list(adds)
    try:
        # Another plans dir may share this archive: its index is read, changed and
        # rendered under the archive's own lock, or a change made meanwhile is lost.
        with state.archive_lock(archive_dir):
            for name in (INDEX_JSONL, INDEX_MD):  # what a writer killed midway left
                sweep_temps(archive_dir / name)
            return _update(state, archive_dir, adds, removes, render=render)
    except ArchiveLockError as error:
        change = _merged(_load_pending(state, archive_dir), adds, removes)
        return _keep_for_later(state, archive_dir, change, error)


def _merged(left: _Pending, adds: list[dict[str, Any]], removes: Collection[Key]) -> _Pending:
    """The changes left pending and these, as one: a change made now overrides one left
    pending, so a record taken out and put back (a restore undone) is in the index
    afterwards, and the other way round. A key both removed and added in one change is a
    record replaced (a group listed again from what the archive holds)."""
    added = {record_key(record) for record in adds}
    removed = set(removes)
    kept = [r for r in left.adds if record_key(r) not in removed | added]
    return _Pending([*kept, *adds], (left.removes - added) | removed, left.others)


def _update(
    state: DirState,
    archive_dir: Path,
    adds: list[dict[str, Any]],
    removes: Collection[Key],
    *,
    render: bool,
) -> IndexReport:
    """update_index's work, with the archive's lock held."""
    left = _load_pending(state, archive_dir)
    change = _merged(left, adds, removes)
    try:
        if archive_dir.is_symlink():  # replaced by a link since the run began
            raise OSError(errno.ELOOP, "the archive folder is a link now", os.fspath(archive_dir))
        lines = change_index(archive_dir, change.adds, change.removes)
    except OSError as error:
        return _keep_for_later(state, archive_dir, change, error)
    if left.adds or left.removes:
        _save_pending(state, archive_dir, _Pending([], set(), left.others))
    return _render(state, archive_dir, lines) if render else NOTHING


def _keep_for_later(
    state: DirState, archive_dir: Path, change: _Pending, error: OSError
) -> IndexReport:
    """Keep a change the index did not take for the next run; the lines saying so."""
    problems: list[str] = []
    try:
        _save_pending(state, archive_dir, change)
    except OSError as save_error:
        problems.append(f"and the change could not be kept for later: {save_error}")
    what = f"{counted(len(change.adds), 'record')} to add, {len(change.removes)} to remove"
    failed = (
        f"the archive's index {archive_dir / INDEX_JSONL} was not updated "
        f"({_why(error)}); the plans themselves are in place. Fix that and run clarity "
        f"apply, archive or undo again: it makes the change left ({what})"
    )
    return IndexReport([failed, *problems], [])


def _render(state: DirState, archive_dir: Path, lines: list[IndexLine]) -> IndexReport:
    from clarity.archive.index_md import index_markdown

    records = [line.record for line in lines if line.record is not None]
    damaged = [line for line in lines if line.record is None]
    notes = [
        f"{archive_dir / INDEX_JSONL} line {line.number} is damaged ({line.problem}); "
        "kept as it is, and left out of INDEX.md"
        for line in damaged[:3]
    ]
    if len(damaged) > 3:
        notes.append(f"... and {len(damaged) - 3} more damaged lines in it")
    try:
        write_index_md(archive_dir, index_markdown(records))
    except NotOurs as error:
        # A person's INDEX.md (or clarity's, edited): theirs, said once, and no failure.
        said = _said_once(state, archive_dir)
        if said is not None:
            notes.append(
                f"the archive's INDEX.md is yours now ({_why(error)}): clarity leaves it as "
                "it is and updates only index.jsonl; delete it to have clarity write it again"
            )
            with contextlib.suppress(OSError):
                said()
        return IndexReport([], notes)
    except OSError as error:
        failed = (
            f"the archive's INDEX.md was not rewritten ({_why(error)}); index.jsonl is "
            "up to date. Remove or rename that INDEX.md to let clarity write its own"
        )
        return IndexReport([failed], notes)
    return IndexReport([], notes)


def _said_once(state: DirState, archive_dir: Path) -> Callable[[], None] | None:
    """None if the note on this INDEX.md was said already; else what records it was."""
    from clarity.fsio import hash_file

    try:
        digest = hash_file(archive_dir / INDEX_MD)
    except OSError:
        return None  # gone or unreadable now: nothing to say of it
    marker = state.archive_folder(archive_dir) / "index-md-kept"
    with contextlib.suppress(OSError):
        if marker.read_text(encoding="ascii").strip() == digest:
            return None

    def record() -> None:
        marker.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(marker, digest.encode("ascii") + b"\n")

    return record


def _why(error: OSError) -> str:
    text = error.strerror or str(error)
    where = f": {error.filename}" if error.filename else ""
    return (
        f"{text}{where}"
        if not isinstance(error, NotOurs)
        else f"{Path(error.filename).name}: {text}"
    )
