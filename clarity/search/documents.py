"""What the search index holds of each plan (SPEC 9.1), read from disk: a live plan by its
stamp (size, mtime, inode), an archived one by its index.jsonl record's sha256, each as
the row's fields and the head of its text; and file names as SQLite keeps them exactly.

index.py keeps these rows up to date and asks them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from clarity.archive.layout import IndexLine, archived_path
from clarity.model import Place
from clarity.plans.plantext import find_h1, searchable_text, split_frontmatter
from clarity.plans.reader import NotARegularFile, is_plan_name, read_opening

TEXT_BYTES = 8 * 1024  # of each plan (and each sub-plan) the index reads: its head
TITLE_BYTES = 4096

Known = Mapping[str, tuple[int, str]]  # a row's key -> (its id, the stamp it was read at)


def stamp_of(size: int, mtime_ns: int, inode: int, ctime_ns: int = 0) -> str:
    """A file's stamp as the index keeps it: with its ctime, which a same-size edit whose
    mtime was put back (cp -p, rsync --inplace -t) still moves."""
    return f"{size}:{mtime_ns}:{inode}:{ctime_ns}"


def live_documents(
    plans_dir: Path, known: Known, seen: set[str], is_plan: Callable[[str], bool] = is_plan_name
) -> Iterator[tuple[int | None, dict[str, Any], str]]:
    """Each live plan whose stamp is not the one its row has, read: (its row, if any;
    the row's fields; the text indexed). Every plan found goes into `seen`. is_plan: the
    folder's agent's rule of which files are plans (sources/)."""
    for entry in _plan_entries(plans_dir, is_plan):
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        stamp = stamp_of(info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
        key = stored(entry.name)
        seen.add(key)
        row_id, was = known.get(key, (None, ""))
        if was == stamp:
            continue
        try:
            text = read_opening(Path(entry.path), TEXT_BYTES)
        except (OSError, NotARegularFile):
            continue  # gone, or not a regular file now: not a plan to find
        fields = {
            "place": Place.LIVE,
            "key": key,
            "name": shown(entry.name),
            "stamp": stamp,
            "title": _title(text),
            "project": None,
            "plan_class": None,  # not scanned since it changed
            "reason": None,
            "mtime": info.st_mtime,
            "quarter": None,
        }
        yield row_id, fields, searchable_text(text)


def archived_documents(
    archive_dir: Path, lines: Iterable[IndexLine], known: Known, seen: set[str]
) -> Iterator[tuple[int | None, dict[str, Any], str]]:
    """Each archived plan (a record of index.jsonl) whose sha256 is not the one its row
    has, read with its sub-plans. Every record found goes into `seen`."""
    for line in lines:
        record = line.record
        if record is None:
            continue
        key, stamp = stored(str(record["path"])), str(record["sha256"])
        seen.add(key)
        row_id, was = known.get(key, (None, ""))
        if was == stamp:
            continue
        paths = [str(record["path"])]
        paths += [str(sub.get("path")) for sub in record.get("subplans") or []]
        body = "\n\n".join(_archived_text(archive_dir, path) for path in paths)
        folder, slash, _ = shown(str(record["path"])).partition("/")
        fields = {
            "place": Place.ARCHIVE,
            "key": key,
            "name": shown(str(record["name"])),
            "stamp": stamp,
            "title": text_or_none(record.get("title")),
            "project": text_or_none(record.get("project")),
            "plan_class": "archived",
            "reason": text_or_none(record.get("summary")),
            "mtime": _moment(record.get("mtime")),
            "quarter": folder if slash else None,
        }
        yield row_id, fields, body


def kept_documents(
    archive_dir: Path, folders: dict[str, str], changed: set[str]
) -> Iterator[tuple[str, list[tuple[str, dict[str, Any], str]]]]:
    """Each text clarity kept of a plan (archive/versions.py), read with its number, for
    each plan whose versions changed (its manifest's stamp is not the one `folders` holds
    for its folder from the last refresh; `folders` is brought up to date here, a folder
    gone left out of it) or whose live or archived text changed (its name in `changed`):
    (the folder, [(its row's key, the row's fields, the text indexed)])."""
    from clarity.archive.versions import MANIFEST, folder_of, kept_plans, read_versions

    was_known = dict(folders)
    folders.clear()
    for plan in kept_plans(archive_dir):
        where = folder_of(archive_dir, plan)
        folder = where.name
        try:
            info = (where / MANIFEST).stat()
            stamp = stamp_of(info.st_size, info.st_mtime_ns, info.st_ino)
        except OSError:
            stamp = "none"
        folders[folder] = stamp
        if was_known.get(folder) == stamp and shown(plan) not in changed:
            continue
        # Numbered as history numbers them (oldest first): a text added older than others
        # numbers them anew, so a plan whose versions changed has every row put again.
        rows: list[tuple[str, dict[str, Any], str]] = []
        for number, version in enumerate(read_versions(archive_dir, plan), 1):
            try:
                text = read_opening(version.path, TEXT_BYTES)
            except (OSError, NotARegularFile):
                continue
            key = stored(f"{folder}/{version.path.name}")
            fields: dict[str, Any] = {
                "place": Place.KEPT,
                "key": key,
                "name": shown(plan),
                "stamp": version.sha256,
                "title": _title(text),
                "project": None,
                "plan_class": Place.KEPT,
                "reason": f"version {number}, kept {version.kept_at[:10]} ({version.source})",
                "mtime": version.mtime_ns / 1e9,
                "quarter": None,
            }
            rows.append((key, fields, searchable_text(text)))
        yield folder, rows


_BYTES = "\0bytes:"  # a name that is not UTF-8, kept as the hex of its bytes (NUL: no name has it)


def stored(name: str) -> str:
    """A file name as SQLite can keep it (UTF-8 text) and give back exactly: one with bytes
    that are not UTF-8 (surrogate escapes) as the hex of its bytes."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return _BYTES + os.fsencode(name).hex()
    return name


def unstored(key: str) -> str:
    return os.fsdecode(bytes.fromhex(key[len(_BYTES) :])) if key.startswith(_BYTES) else key


def shown(name: str) -> str:
    """A name as words to find and show: undecodable bytes as U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def text_or_none(value: object) -> str | None:
    return None if value is None else shown(str(value))


def _plan_entries(plans_dir: Path, is_plan: Callable[[str], bool]) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(plans_dir) as entries:
            for entry in entries:
                if is_plan(entry.name) and entry.is_file(follow_symlinks=False):
                    yield entry
    except OSError:
        return


def _title(text: str) -> str | None:
    text = text[:TITLE_BYTES]  # the title is at the top: the rest need not be parsed
    try:
        _, body = split_frontmatter(text)
    except Exception:  # noqa: BLE001 - an unclosed frontmatter: the title is in the text
        body = text
    return find_h1(body)


def _archived_text(archive_dir: Path, relative: str) -> str:
    try:
        return searchable_text(read_opening(archived_path(archive_dir, relative), TEXT_BYTES))
    except (OSError, NotARegularFile):
        return ""  # gone or a link: its record's words are still found


def _moment(value: object) -> float:
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return 0.0
