"""A plan Claude Code deleted, its kept text put on the archive's shelf, so that `restore`
brings it back as it brings back any archived plan (SPEC 6.1).

The kept text (archive/kept.py) is copied, never moved: a version is never
deleted by clarity. The copy goes into the quarter folder of the plan's mtime
under a name nothing has, verified against the text's sha256, with the plan's
mtime; then its record joins the index. From there the restore, its journal,
recovery and undo are the archived plan's: an undo puts the plan in the
archive, where `archived` lists it. A kill between the copy and its record
leaves a copy the index does not list; the kept text is still whole in
versions/, and the next `restore` takes that copy up (same bytes, not listed) rather
than copying again.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from clarity.archive.kept import KeptPlan
from clarity.archive.layout import (
    ArchivedFile,
    free_name,
    index_record,
    quarter,
    quarter_folder,
    read_index_lines,
    relative_path,
)
from clarity.errors import ClarityError
from clarity.executor.indexing import update_index
from clarity.executor.mover import extractive_summary
from clarity.executor.moves import copy_file, error_text, keep_mtime
from clarity.fsio import hash_file, partial_path, read_regular
from clarity.state import DirState

KEPT_RUN = "kept-before-cleanup"  # the `run` of a kept text's record: no run moved it


def shelve_kept(
    state: DirState, archive_dir: Path, plans_dir: Path, kept: KeptPlan
) -> dict[str, Any]:
    """Copy the kept text into the archive and list it in the index; its record. Call with
    the plans dir's lock held. ClarityError (one line) if it cannot be done."""
    version = kept.version
    try:
        folder = quarter_folder(archive_dir, quarter(version.mtime_ns))
        dst = _left_by_a_kill(archive_dir, folder, kept)
        if dst is None:
            _sweep_partial(folder / kept.name, kept)
            dst = free_name(folder, kept.name)
            copy_file(version.path, dst, version.sha256, version.mtime_ns)
    except OSError as error:
        raise ClarityError(
            f"cannot copy the kept text of {kept.name} into the archive "
            f"({error_text(error, None)}); nothing moved"
        ) from None
    summary, source = extractive_summary(dst, kept.name)
    record = index_record(
        archive_dir,
        KEPT_RUN,
        ArchivedFile(kept.name, dst, version.size, version.sha256, version.mtime_ns),
        [],
        title=kept.title,
        summary=summary,
        summary_source=source,
        original=plans_dir / kept.name,
    )
    report = update_index(state, archive_dir, [record])
    if report.failed:
        raise ClarityError(
            f"the kept text of {kept.name} is copied to {dst}, but the archive's index did not "
            f"take its record ({report.failed[0]}); the next clarity apply adds it, then restore"
        )
    return record


def _sweep_partial(dst: Path, kept: KeptPlan) -> None:
    """A copy of this kept text that a killed restore began (`.NAME.md.clarity-partial`,
    its bytes the start of the text): removed, so that the copy made now takes the plan's
    own name, not NAME.2.md. A partial of other bytes is another's, and left."""
    partial = partial_path(dst)
    try:
        info = os.lstat(partial)
        if not stat.S_ISREG(info.st_mode) or info.st_size > kept.version.size:
            return
        with kept.version.path.open("rb") as text:
            start = text.read(info.st_size)
        if read_regular(partial, info.st_size) == start:
            partial.unlink()
    except OSError:
        return  # nothing there, or not to be read: free_name passes it by


def _left_by_a_kill(archive_dir: Path, folder: Path, kept: KeptPlan) -> Path | None:
    """A copy of this kept text that a killed restore left in the quarter folder, listed by
    no record: taken up as it is (its bytes checked), so that none is left behind."""
    listed = {str(line.record.get("path")) for line in read_index_lines(archive_dir) if line.record}
    stem = kept.name.removesuffix(".md")
    for number in range(1, 100):
        path = folder / (kept.name if number == 1 else f"{stem}.{number}.md")
        if not os.path.lexists(path):
            return None
        if relative_path(path, archive_dir) in listed:
            continue
        info = os.lstat(path)
        same = stat.S_ISREG(info.st_mode) and info.st_size == kept.version.size
        if same and hash_file(path) == kept.version.sha256:
            keep_mtime(path, kept.version.mtime_ns)
            return path
    return None
