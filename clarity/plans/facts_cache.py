"""What the last scan read from each plan, so the next one need not read it again.

A plan whose stamp (size, mtime, inode, ctime) is what it was when it was read
has the same bytes: any write moves its ctime, which no one can set by hand.
So a repeat scan stats each plan and reads only the ones that changed; the
classifier still judges every plan afresh, as of now and under the current
rules, since only facts (title, last line, frontmatter, sha256) are kept.

Like git's index, the cache distrusts "racy" entries: a plan written within
RACY_NS of the moment it was read might be written again within the same
timestamp tick without its stamp moving, so such a plan is not remembered
and is read again next time.

The file is disposable: anything wrong with it (a torn write, another
Python, another format) and the scan reads every plan, as if it were absent.
It is written with `marshal` behind a sha256 of its payload: loading 10,000
entries takes a few milliseconds, against tens for JSON, and the checksum
keeps a damaged file from ever reaching marshal.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from clarity.fsio import write_atomic
from clarity.model import (
    NO_FRONTMATTER,
    STAMP_PROVES_UNCHANGED,
    FileStamp,
    Frontmatter,
    PlanFacts,
    TextStatus,
)

CACHE_FORMAT = 5  # 2: the status of SPEC 4.2; 3: its quote printable; 4: stub; 5: todos
_MAGIC = b"clarity facts cache\n"
_DIGEST_SIZE = 32
RACY_NS = 2_000_000_000  # FAT keeps mtimes to 2 s; every other filesystem is finer

# One entry, a plain tuple (what marshal stores): the four FileStamp fields, then
# mtime, title, last line, frontmatter status and pinned, warnings, sha256, the
# text's status (evidence and done, or None), and whether it is a stub.
Entry = tuple[
    int,
    int,
    int,
    int,
    float,
    str | None,
    str | None,
    str | None,
    bool,
    tuple[str, ...],
    str | None,
    tuple[str, bool, bool] | None,
    bool,
]
_SHA256 = 10  # where the sha256 is in an entry


def _stamp(entry: Entry) -> tuple[int, int, int, int]:
    return entry[:4]


def _with_sha256(entry: Entry, sha256: str) -> Entry:
    return (*entry[:_SHA256], sha256, *entry[_SHA256 + 1 :])  # type: ignore[return-value]  # mypy loses a tuple's shape when it is spliced


def _entry(facts: PlanFacts, stamp: FileStamp) -> Entry:
    front = facts.frontmatter
    return (
        *stamp,
        facts.mtime,
        facts.title,
        facts.last_line,
        front.status,
        front.pinned,
        facts.warnings,
        facts.sha256,
        None if (said := facts.status) is None else (said.evidence, said.done, said.binding),
        facts.stub,
    )


def _shapes() -> frozenset[tuple[type, ...]]:
    """Every tuple of field types an entry clarity writes can have."""
    text, none = (str, type(None)), type(None)
    return frozenset(
        (int, int, int, int, float, title, last, status, bool, tuple, sha, said, bool)
        for title in text
        for last in text
        for status in text
        for sha in text
        for said in (tuple, none)
    )


_SHAPES = _shapes()


def _well_formed(entry: object) -> bool:
    """An entry of the shape clarity writes. The digest proves the file whole, not that
    clarity wrote it: a forged cache is read again from the plans, never trusted.
    (One set lookup of the field types: this runs for every plan of a repeat scan.)"""
    if type(entry) is not tuple or tuple(map(type, entry)) not in _SHAPES:
        return False
    warnings, sha, said = entry[9], entry[10], entry[11]
    return (
        (not warnings or all(type(warning) is str for warning in warnings))
        and (sha is None or len(sha) == 64)
        and (
            said is None
            or (
                len(said) == 3 and type(said[0]) is str and {type(said[1]), type(said[2])} == {bool}
            )
        )
    )


def _facts(name: str, folder: Path, entry: Entry) -> PlanFacts:
    (
        size,
        mtime_ns,
        inode,
        ctime_ns,
        mtime,
        title,
        last_line,
        status,
        pinned,
        warnings,
        sha,
        said,
        stub,
    ) = entry
    front = NO_FRONTMATTER if status is None and not pinned else Frontmatter(status, pinned)
    stamp = FileStamp(size, mtime_ns, inode, ctime_ns)
    text_status = None if said is None else TextStatus(*said)
    # bytes_read stays 0: nothing of the file was read this time.
    return PlanFacts(
        name,
        folder,
        size,
        mtime,
        title,
        last_line,
        front,
        warnings,
        0,
        stamp,
        sha,
        text_status,
        stub,
    )


def _version() -> tuple[int, str, int]:
    return (CACHE_FORMAT, sys.implementation.cache_tag or "", marshal.version)


def _entries(path: Path) -> dict[str, Entry]:
    try:
        with path.open("rb") as stream:
            data = stream.read()
    except OSError:
        return {}
    # A view, not a copy: 100,000 plans' cache is 22 MB
    cut = len(_MAGIC) + _DIGEST_SIZE
    header, payload = data[:cut], memoryview(data)[cut:]
    if header != _MAGIC + hashlib.sha256(payload).digest():
        return {}
    try:
        version, entries = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return {}
    return entries if version == _version() and isinstance(entries, dict) else {}


class FactsCache:
    """Facts remembered for one plans directory: recalled by stamp, learned as read."""

    def __init__(self, entries: dict[str, Entry], started_ns: int | None = None) -> None:
        self._known = entries
        self._kept: dict[str, Entry] = {}  # what this scan saw: all the next file will hold
        # Nothing changed at or after this moment can be trusted to show in its stamp.
        self._trusted_before = (time.time_ns() if started_ns is None else started_ns) - RACY_NS

    @classmethod
    def load(cls, path: Path, started_ns: int | None = None) -> FactsCache:
        """The cache at path; an empty one if it is missing or not what this version wrote.

        started_ns: when the scan that uses it started (default: now).
        """
        # Where a stamp cannot prove a file unchanged (Windows), it knows nothing.
        return cls(_entries(path) if STAMP_PROVES_UNCHANGED else {}, started_ns)

    def __bool__(self) -> bool:
        return bool(self._known)

    def recall(self, name: str, folder: Path, info: os.stat_result) -> PlanFacts | None:
        """The facts of name if the file is as it was when they were read (info: its lstat)."""
        entry = self._known.get(name)
        if entry is None or not _well_formed(entry) or _stamp(entry) != FileStamp.of(info):
            return None
        self._kept[name] = entry
        return _facts(name, folder, entry)

    def learn(self, facts: PlanFacts) -> None:
        """Remember facts just read, unless their file changed too recently to trust."""
        stamp = facts.stamp
        if not STAMP_PROVES_UNCHANGED or stamp is None:
            return
        if max(stamp.mtime_ns, stamp.ctime_ns) < self._trusted_before:
            self._kept[facts.name] = _entry(facts, stamp)

    def learn_hashes(self, hashed: Iterable[tuple[str, FileStamp, str]]) -> None:
        """Remember sha256s worked out after reading (a big plan is hashed only if it moves)."""
        for name, stamp, sha256 in hashed:
            entry = self._kept.get(name)
            if entry is not None and entry[_SHA256] is None and _stamp(entry) == stamp:
                self._kept[name] = _with_sha256(entry, sha256)

    def save(self, path: Path, *, whole: bool = True) -> None:
        """Write what this scan saw, if it differs from what was loaded; a failure is ignored.

        whole: the scan saw every plan, so what it did not see is gone. A scan cut short
        (the session-start hook's deadline) keeps what was known of the plans it did not
        reach: the next one reads only what this one did not, and gets further.
        Not fsynced: a cache lost or torn by a crash is only a slower next scan.
        """
        kept = self._kept if whole else {**self._known, **self._kept}
        if kept == self._known:
            return
        payload = marshal.dumps((_version(), kept))
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, _MAGIC + hashlib.sha256(payload).digest() + payload, durable=False)
