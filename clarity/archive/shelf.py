"""The archive as something to read: its plans listed, searched, found by name, read.

`clarity archived [QUERY]` and `clarity show NAME` are read-only: nothing
here takes the lock or writes a byte in the archive (a query may bring the
search index, a cache in the state folder, up to date), so the `/clarity`
skill may run them unasked. The index (index.jsonl) says what the archive
holds; a damaged line is passed over with a note, as INDEX.md does. A query
is matched, without regard to case, against each plan's name, title and
summary, and only when none of them match, against the text of the plan and
its sub-plans: through the search index (clarity.search) when the caller has
one, else by reading at most TEXT_BYTES of each file.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clarity.archive.kept import KeptPlan, kept_gone
from clarity.archive.layout import INDEX_JSONL, NotOurs, archived_path, read_index_lines
from clarity.errors import ClarityError

TEXT_BYTES = 256 * 1024  # of each plan a query reads, at most


@dataclass(frozen=True, slots=True)
class ArchivedPlan:
    """One record of the index: an archived plan and its sub-plans."""

    record: dict[str, Any]  # as index.jsonl holds it (checked)
    archive_dir: Path
    matched_in: tuple[str, ...] = ()  # where a query was found: name, title, summary, text

    @property
    def name(self) -> str:
        return str(self.record["name"])

    @property
    def relative(self) -> str:
        return str(self.record["path"])

    @property
    def path(self) -> Path:
        return self.archive_dir / self.relative

    @property
    def quarter(self) -> str:
        folder, slash, _ = self.relative.partition("/")
        return folder if slash else "(unfiled)"

    @property
    def title(self) -> str | None:
        return self.record.get("title")

    @property
    def summary(self) -> str | None:
        return self.record.get("summary")

    @property
    def subplans(self) -> list[dict[str, Any]]:
        return list(self.record.get("subplans") or [])

    @property
    def modified(self) -> datetime:
        return datetime.fromisoformat(str(self.record["mtime"]))


@dataclass(frozen=True, slots=True)
class Shelf:
    """What `clarity archived` found: plans newest first, and what the reader should know."""

    archive_dir: Path
    query: str | None
    plans: tuple[ArchivedPlan, ...]
    total: int  # plans in the archive, matched or not
    notes: tuple[str, ...] = ()
    kept: tuple[KeptPlan, ...] = ()  # deleted by Claude Code, their text kept (matched or not)
    exists: bool = True  # False: no archive yet (its one note says so)


# A long-lived reader (the MCP server) asks again and again: the index as last read, kept
# while index.jsonl's stamp is the same (any change, even in place, changes ctime).
_READ: dict[Path, tuple[tuple[int, ...], list[ArchivedPlan], list[str], list[Found]]] = {}


def _stamp(archive_dir: Path) -> tuple[int, ...] | None:
    try:
        info = (archive_dir / INDEX_JSONL).lstat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # a link or a folder: read_index_lines says what is wrong
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _index(archive_dir: Path) -> tuple[list[ArchivedPlan], list[str]]:
    """Every plan the index lists; notes on lines passed over. No archive: none."""
    stamp = _stamp(archive_dir)
    known = _READ.get(archive_dir)
    if stamp is not None and known is not None and known[0] == stamp:
        return list(known[1]), list(known[2])
    plans, notes = _read_index(archive_dir)
    if stamp is not None:
        _READ.clear()  # one archive at a time: the memo never grows
        _READ[archive_dir] = (stamp, plans, notes, _every_file(plans))
    return list(plans), list(notes)


def index_records(archive_dir: Path) -> list[dict[str, Any]]:
    """The records the index lists (damaged lines passed over), read once per change of
    index.jsonl. ClarityError if it cannot be read; OSError if it is not there."""
    return [plan.record for plan in _index(archive_dir)[0]]


def _archived_files(archive_dir: Path, plans: list[ArchivedPlan]) -> list[Found]:
    """Every archived file (plans and sub-plans) of the plans _index just gave, the newest
    plan's first."""
    known = _READ.get(archive_dir)
    if known is not None and known[0] == _stamp(archive_dir) and len(known[1]) == len(plans):
        return known[3]
    return _every_file(plans)


def _every_file(plans: list[ArchivedPlan]) -> list[Found]:
    return [found for plan in sorted(plans, key=_newest_first) for found in _files(plan)]


def _read_index(archive_dir: Path) -> tuple[list[ArchivedPlan], list[str]]:
    try:
        lines = read_index_lines(archive_dir)
    except NotOurs as error:
        raise ClarityError(
            f"{error.filename}: {error.strerror}; clarity lists only an index it wrote"
        ) from None
    except OSError as error:
        raise ClarityError(
            f"cannot read the archive's index in {archive_dir}: {error.strerror or error}"
        ) from None
    plans, notes = [], []
    for line in lines:
        if line.record is None:
            notes.append(f"index.jsonl line {line.number} is damaged ({line.problem}); passed over")
        else:
            plans.append(ArchivedPlan(line.record, archive_dir))
    return plans, notes


def _newest_first(plan: ArchivedPlan) -> tuple[float, str]:
    try:
        moment = plan.modified
    except ValueError:
        moment = datetime.min.replace(tzinfo=UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (-moment.timestamp(), plan.name)


def _text_has(archive_dir: Path, relative: str, query: str) -> bool:
    from clarity.plans.reader import NotARegularFile, read_opening

    try:
        return query in read_opening(archived_path(archive_dir, relative), TEXT_BYTES).casefold()
    except (OSError, NotARegularFile):
        return False  # gone, a link, unreadable: nothing to match


def _matched_in(plan: ArchivedPlan, query: str, in_text: set[str] | None = None) -> tuple[str, ...]:
    """Where the query is found in a plan (case aside): its words first, its text last (by
    the search index's answer, in_text, when there is one; else by reading the files)."""
    fields = {"name": plan.name, "title": plan.title, "summary": plan.summary}
    found = tuple(key for key, value in fields.items() if value and query in value.casefold())
    if found:
        return found
    if in_text is not None:
        return ("text",) if plan.relative in in_text else ()
    paths = [plan.relative, *(str(sub.get("path")) for sub in plan.subplans)]
    return ("text",) if any(_text_has(plan.archive_dir, path, query) for path in paths) else ()


def list_archived(
    archive_dir: Path,
    query: str | None = None,
    text_matches: Callable[[str], set[str] | None] | None = None,
    plans_dir: Path | None = None,
) -> Shelf:
    """The archive's plans, newest first (those that match the query, if one is given;
    text_matches: the search index, asked which plans' text holds it); with plans_dir,
    the plans Claude Code deleted from it whose text clarity kept, too."""
    if not os.path.lexists(archive_dir):
        note = f"no archive yet at {archive_dir}: clarity apply and clarity archive put plans there"
        return Shelf(archive_dir, query, (), 0, (note,), exists=False)
    if not archive_dir.is_dir():
        raise ClarityError(f"the archive {archive_dir} is not a folder; point --archive-dir at it")
    plans, notes = _index(archive_dir)
    total = len(plans)
    kept: list[KeptPlan] = []
    if plans_dir is not None:
        archived = {found.name for plan in plans for found in _files(plan)}
        kept = kept_gone(archive_dir, plans_dir, archived, query)
    wanted = (query or "").strip().casefold()
    if wanted:
        in_text = text_matches(wanted) if text_matches is not None and plans else None
        matched = []
        for plan in plans:
            where = _matched_in(plan, wanted, in_text)
            if where:
                matched.append(ArchivedPlan(plan.record, archive_dir, where))
        plans = matched
    plans.sort(key=_newest_first)
    return Shelf(archive_dir, query, tuple(plans), total, tuple(notes), tuple(kept))


@dataclass(frozen=True, slots=True)
class Found:
    """A file of the archive a person named: a plan, or one of its sub-plans."""

    plan: ArchivedPlan
    name: str  # the file's name in the plans dir
    relative: str  # its path in the archive

    @property
    def path(self) -> Path:
        return self.plan.archive_dir / self.relative

    def reached(self) -> Path:
        """Its path, reached through real folders only (OSError otherwise)."""
        return archived_path(self.plan.archive_dir, self.relative)

    @property
    def is_subplan(self) -> bool:
        return self.relative != self.plan.relative


def _files(plan: ArchivedPlan) -> list[Found]:
    found = [Found(plan, plan.name, plan.relative)]
    found += [Found(plan, str(sub["name"]), str(sub["path"])) for sub in plan.subplans]
    return found


def _names(value: str) -> set[str]:
    return {value, value if value.endswith(".md") else f"{value}.md"}


def find_archived(archive_dir: Path, value: str) -> Found:
    """The archived file a person named: `foo`, `foo.md`, `foo.2.md` (its name in the
    archive) or `2026-Q4/foo.md` (its path there). ClarityError when none or several match."""
    text = value.strip()
    if not text:
        raise ClarityError("an empty name was given; clarity archived lists the archive's plans")
    if os.path.lexists(archive_dir) and not archive_dir.is_dir():
        raise ClarityError(f"the archive {archive_dir} is not a folder; point --archive-dir at it")
    plans, _ = _index(archive_dir)
    if not plans and not os.path.lexists(archive_dir):
        raise ClarityError(f"no archive yet at {archive_dir}; nothing is archived there to name")
    wanted = _names(text)
    files = _archived_files(archive_dir, plans)
    if "/" in text:
        matches = [found for found in files if found.relative in wanted]
    else:
        matches = [found for found in files if found.name in wanted] or [
            found for found in files if found.relative.rsplit("/", 1)[-1] in wanted
        ]
    if not matches:
        names = sorted({found.name.removesuffix(".md") for found in files})
        close = difflib.get_close_matches(text.removesuffix(".md"), names, n=3, cutoff=0.75)
        guess = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ClarityError(
            f"no archived plan named {text}{guess} in {archive_dir}; "
            "clarity archived lists them (clarity archived WORD searches them)"
        )
    if len(matches) > 1:
        paths = ", ".join(found.relative for found in matches[:10])
        raise ClarityError(
            f"{text} names {len(matches)} archived files ({paths}); "
            f"name one by its path, e.g. {matches[0].relative}"
        )
    return matches[0]


def kept_named(archive_dir: Path, plans_dir: Path, value: str) -> KeptPlan | None:
    """The plan a person named (foo or foo.md), if Claude Code deleted it from plans_dir and
    clarity kept its text, and the archive holds no plan of that name; else None."""
    text = value.strip()
    name = text if text.endswith(".md") else f"{text}.md"
    if not text or "/" in text:
        return None
    kept = list_archived(archive_dir, plans_dir=plans_dir).kept
    return next((plan for plan in kept if plan.name == name), None)


def read_archived(found: Found) -> bytes:
    """The bytes of an archived file, never through a link. ClarityError if it cannot be."""
    from clarity.fsio import read_regular

    try:
        return read_regular(found.reached())
    except FileNotFoundError:
        raise ClarityError(
            f"{found.path} is in the archive's index but not in the archive (moved by hand?)"
        ) from None
    except OSError as error:
        raise ClarityError(f"cannot read {found.path}: {error.strerror or error}") from None
