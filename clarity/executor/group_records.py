"""An archived group's index records made to say what the archive holds, after a run took
part of the group out of it or put part of it back.

Every archived file is listed by exactly one record, and every record's files
are in the archive: a run that moved only part of a group (a sub-plan's name
was taken, a kill cut the run short and recovery could not finish it) must not
leave files that no record lists (`archived` would not show them, `restore`
could not bring them back) nor a record naming files that are gone.

So a group is listed again from what is there: its plan in the archive, its
record keeps the sub-plans still beside it; its plan gone, each sub-plan left
in the archive is listed by a record of its own, which names its plan and
which `restore` brings back like any plan.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from clarity import validate
from clarity.archive.layout import check_record, read_index_lines, record_key

Key = tuple[str, str]  # (run, path): an index record's identity
Record = dict[str, Any]


class Regrouped(NamedTuple):
    removes: set[Key]  # every record that listed a file of the group
    adds: list[Record]  # the group's records now, from what the archive holds


def _paths(record: Record) -> list[str]:
    return [str(record["path"]), *(str(sub.get("path")) for sub in record.get("subplans") or [])]


def _lone(record: Record, sub: Record) -> Record | None:
    """A record of its own for a sub-plan whose plan left the archive without it; None if
    its entry lacks what a record needs (then the group's record is kept as it was)."""
    parent = record.get("parent") or record["name"]
    original = str(Path(str(record.get("original_path") or "")).parent / str(sub.get("name")))
    lone = {
        "name": sub.get("name"),
        "title": None,
        "archived_at": record.get("archived_at"),
        "mtime": sub.get("mtime"),
        "size": sub.get("size"),
        "sha256": sub.get("sha256"),
        "path": sub.get("path"),
        "subplans": [],
        "summary": f"a sub-plan of {parent}, which is no longer in the archive",
        "summary_source": "extract",
        "original_path": original,
        "project": record.get("project"),
        "run": record["run"],
        "parent": parent,
    }
    try:
        return check_record(lone)
    except validate.Damaged:
        return None


def regroup(records: Sequence[Record], there: Callable[[str], bool]) -> Regrouped:
    """The records of one group (its record, and records of sub-plans listed on their own)
    made to list what is there; `there(path)` says whether a file is in the archive."""
    heads = [record for record in records if "parent" not in record]
    if not heads:  # only sub-plans listed on their own: each stays listed while it is there
        gone = [record for record in records if not there(str(record["path"]))]
        return Regrouped({record_key(record) for record in gone}, [])
    head = heads[0]
    subs: dict[str, Record] = {}
    for record in records:
        entries = record.get("subplans") or []
        if record is not head:
            entries = [*entries, record] if "parent" in record else entries
        for sub in entries:
            subs.setdefault(str(sub.get("path")), sub)
    subs.pop(str(head["path"]), None)
    removes = {(str(record["run"]), path) for record in records for path in _paths(record)}
    kept = [sub for path, sub in subs.items() if there(path)]
    if there(str(head["path"])):
        entries = [{key: sub.get(key) for key in _SUB_KEYS} for sub in kept]
        return Regrouped(removes, [{**head, "subplans": entries}])
    adds: list[Record] = []
    for sub in kept:
        lone = _lone(head, sub)
        if lone is None:
            return Regrouped(set(), [])  # cannot be listed otherwise: left as it is
        adds.append(lone)
    return Regrouped(removes, adds)


_SUB_KEYS = ("name", "path", "size", "sha256", "mtime")


def in_archive(archive_dir: Path) -> Callable[[str], bool]:
    def there(path: str) -> bool:
        return os.path.lexists(archive_dir / path)

    return there


def _listings(archive_dir: Path) -> dict[Key, list[Record]] | None:
    """The index's records by the (run, path) of each file they list; None if the index
    cannot be read."""
    try:
        lines = read_index_lines(archive_dir)
    except OSError:
        return None
    by_file: dict[Key, list[Record]] = {}
    for line in lines:
        if line.record is not None:
            run = str(line.record.get("run"))
            for path in _paths(line.record):
                by_file.setdefault((run, path), []).append(line.record)
    return by_file


def regroup_all(
    archive_dir: Path, groups: Iterable[tuple[str, list[str], Record | None]]
) -> Regrouped:
    """Each group (its record's run, its files' paths in the archive, and the record a run
    carries for it, if any) listed again from what the archive holds; one index change."""
    there = in_archive(archive_dir)
    by_file = _listings(archive_dir)
    removes: set[Key] = set()
    adds: list[Record] = []
    for run, paths, carried in groups:
        if by_file is None:
            # The index cannot be read (it will not take the change either, which is then
            # kept for later): the records these files head go, a carried one comes back.
            removes |= {(run, path) for path in paths}
            if carried is not None:
                change = regroup([carried], there)
                removes, adds = removes | change.removes, adds + change.adds
            continue
        records: list[Record] = []
        for path in [*paths, *(_paths(carried) if carried else [])]:
            for record in by_file.get((run, path), []):
                if not any(record is seen for seen in records):
                    records.append(record)
        listed = list(records)
        if carried is not None and record_key(carried) not in {record_key(r) for r in records}:
            records.insert(0, carried)
        if not records:
            continue
        change = regroup(records, there)
        if change.adds == listed:
            continue  # the index lists what is there already
        removes |= change.removes
        adds += change.adds
    return Regrouped(removes, adds)
