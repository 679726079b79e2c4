"""The search index: SQLite FTS5 in the plans dir's state folder (SPEC 9.1).

A cache, never the record: the plans and the archive's index.jsonl are the
truth, and the index is made again from them when it is missing, damaged or
of another version. It is kept up to date the way the facts cache is:

- live plans by their stamp (size, mtime, inode): a plan is read again only
  when it changed; a plan gone from the plans dir leaves the index;
- archived plans by their record's sha256: read once, again only when the
  index.jsonl record at that path names other bytes.

Each row keeps what a hit shows: where the plan lives, its name, title,
project, date, and for a live plan its class as of the latest scan (a scan
records it here when there is an index; a plan changed since shows none).
The text indexed is the head of a plan (TEXT_BYTES: its title, context and
steps; most plans whole), with its sub-plans' for an archived plan, as FTS5's
unicode61 words, ranked by BM25 with a name and title counting most; words
of a script written without spaces are found with LIKE (query.py). Not the
trigram tokenizer: on the benchmark's 20,000 plans it built 6x slower and
took 2.4x the space (342 against 142 MB for 10,000 heads of 8 KiB).

What a row holds is read from disk by documents.py; this module keeps the rows and
asks them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from clarity.archive.layout import INDEX_JSONL, read_index_lines
from clarity.archive.versions import VERSIONS, versions_stamp
from clarity.model import Place
from clarity.plans.reader import is_plan_name
from clarity.search.documents import (
    Known,
    archived_documents,
    kept_documents,
    live_documents,
    shown,
    stamp_of,
    stored,
    text_or_none,
    unstored,
)
from clarity.search.query import LIKE_ESCAPE, Terms
from clarity.search.where import index_file
from clarity.state import DirState

SCHEMA = 6  # 4: stamps carry the ctime; 5: a frontmatter indexed as its words; 6: digest
HIT, END = "\x02", "\x03"  # around a match in a snippet; the renderers style them
_WEIGHTS = "10.0, 5.0, 1.0"  # name, title, text: for bm25()
CHUNK_ROWS = 256  # rows a refresh writes between two commits
WAIT_SECONDS = 60.0  # while another clarity brings the index up to date (a build: seconds)
SNIPPET_TOKENS = 16  # words around the match: about a line

_TABLES = """
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY,
    place TEXT NOT NULL,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    stamp TEXT NOT NULL,
    title TEXT,
    project TEXT,
    plan_class TEXT,
    reason TEXT,
    mtime REAL NOT NULL,
    quarter TEXT,
    digest TEXT NOT NULL DEFAULT '',
    UNIQUE(place, key)
);
CREATE INDEX IF NOT EXISTS docs_name ON docs(name);
CREATE VIRTUAL TABLE IF NOT EXISTS text
    USING fts5(name, title, body, tokenize='unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class Hit:
    place: str  # Place.LIVE or Place.ARCHIVE
    name: str
    path: Path
    quarter: str | None  # an archived plan's quarter folder
    plan_class: str | None  # a live plan's class as of the latest scan; "archived"
    reason: str | None
    project: str | None
    modified: datetime
    title: str | None
    snippet: str  # the match between HIT and END
    score: float


class Verdict(NamedTuple):
    """What a scan found of a live plan, as the index keeps it."""

    name: str
    stamp: str  # size:mtime_ns:inode:ctime_ns, as stamp_of writes it
    plan_class: str
    reason: str
    project: str | None


class SearchIndex:
    """An open index; `with SearchIndex.open(state) as index:`."""

    def __init__(self, db: sqlite3.Connection, *, others_read: bool = False) -> None:
        self.db = db
        self._written = 0  # rows put by this opening
        # Others in this process read the file meanwhile (a server's callers, on the
        # connection they kept): a refresh commits every CHUNK_ROWS rows, as one long
        # transaction outgrows the page cache and takes the file's lock from them early
        # (seconds, with thousands of plans changed). Else one transaction: FTS5 merges its
        # segments once (a build of 20,000 plans took 4.0 s, against 5.0 s in chunks).
        self._chunk = CHUNK_ROWS if others_read else None

    @classmethod
    @contextlib.contextmanager
    def open(
        cls, state: DirState, wait: float = WAIT_SECONDS, *, keep: bool = False
    ) -> Iterator[SearchIndex]:
        """The index, made anew when it is missing, damaged or of another version; used by
        one clarity at a time (a lock beside it: one that finds it damaged may remove it),
        waiting up to `wait` seconds for another. Raises filelock.Timeout. keep: the
        connection stays open for the next open of the same file (a long-lived reader,
        the MCP server, asking again and again)."""
        from filelock import FileLock

        path = index_file(state)
        path.parent.mkdir(parents=True, exist_ok=True)
        # The kept connections are shared by threads: one at a time. A connection of its own
        # (a refresh behind a server's callers) needs only the file's lock.
        kept_lock = _KEPT_LOCK if keep else contextlib.nullcontext()
        with FileLock(f"{path}.lock", timeout=wait), kept_lock:
            try:
                with cls._kept(path, wait) if keep else cls._opened(path, wait) as index:
                    yield index
            except sqlite3.OperationalError:
                raise  # locked, the disk, a query: not damage
            except sqlite3.DatabaseError:
                remove_index(path)  # damaged while in use: made anew by the next open
                raise

    @classmethod
    @contextlib.contextmanager
    def _opened(cls, path: Path, wait: float) -> Iterator[SearchIndex]:
        try:
            db = _connect(path, wait)
        except sqlite3.OperationalError:
            raise  # locked, or the disk: not damage, nothing to remove
        except sqlite3.DatabaseError:
            remove_index(path)
            db = _connect(path, wait)
        try:
            yield cls(db, others_read=str(path) in _KEPT)  # a server's callers read it
        finally:
            db.close()

    @classmethod
    @contextlib.contextmanager
    def _kept(cls, path: Path, wait: float) -> Iterator[SearchIndex]:
        """The connection kept from the last open of this very file (the same inode: an
        index made anew since is opened anew), else a new one, kept after."""
        key = str(path)
        db = _kept_to(path)
        if db is None:
            _forget_kept(key)
            try:
                db = _connect(path, wait, threads=True)
            except sqlite3.OperationalError:
                raise
            except sqlite3.DatabaseError:
                remove_index(path)
                db = _connect(path, wait, threads=True)
            info = path.stat()
            if len(_KEPT) >= KEPT_MOST:
                _forget_kept(next(iter(_KEPT)))  # the oldest: a bounded number of files open
            _KEPT[key] = ((path, info.st_ino, info.st_dev), db)
        with _forgotten_if_cut_short(key):
            yield cls(db)

    @classmethod
    @contextlib.contextmanager
    def kept_only(cls, state: DirState) -> Iterator[SearchIndex | None]:
        """The connection a long-lived reader kept to this very file (open(keep=True)),
        used without the file's lock: SQLite's own locks let it read while a refresh on
        another connection writes, up to that refresh's commit. None when there is none
        for this file (made anew since, or never kept): the caller opens it."""
        path = index_file(state)
        with _KEPT_LOCK:
            db = _kept_to(path)
            if db is None:
                yield None
                return
            with _forgotten_if_cut_short(str(path)):
                yield cls(db)

    # -- keeping it up to date ------------------------------------------------

    def refresh_archive(self, archive_dir: Path) -> int:
        """The archive's part only (what `clarity archived QUERY` asks about)."""
        with self.db:
            changed: set[str] = set()
            read = self._refresh_archive(archive_dir, changed)
            if changed:  # their kept texts are looked at again by the next whole refresh
                self._set_meta("kept-again", json.dumps(sorted(changed | self._kept_again())))
            return read

    def _kept_again(self) -> set[str]:
        with contextlib.suppress(ValueError, RecursionError):
            names = json.loads(self._meta("kept-again") or "[]")
            if isinstance(names, list):
                return {str(name) for name in names}
        return set()

    def refresh(
        self, plans_dir: Path, archive_dir: Path, is_plan: Callable[[str], bool] = is_plan_name
    ) -> int:
        """Bring the index up to date with the plans dir and the archive; how many plans
        were (re)read. is_plan: which files of the plans dir are plans (its agent's rule)."""
        with self.db:
            changed: set[str] = set()  # plans whose live or archived text changed
            read = self._refresh_live(plans_dir, is_plan, changed)
            read += self._refresh_archive(archive_dir, changed)
            read += self._refresh_kept(archive_dir, changed)
        return read

    def _known(self, place: str) -> Known:
        rows = self.db.execute("SELECT key, id, stamp FROM docs WHERE place = ?", (place,))
        return {key: (row_id, stamp) for key, row_id, stamp in rows}

    def _put(
        self,
        row_id: int | None,
        fields: dict[str, Any],
        body: str,
        *,
        words: bool = True,
        digest: str | None = None,
    ) -> None:
        """A row, with its words (words=False: a kept text whose words its plan's row
        holds, a row without words of its own, found through that row's). digest: the
        body's, if the caller has it."""
        if row_id is not None:
            self._drop([row_id])
        fields = {**fields, "digest": digest_of(body) if digest is None else digest}
        names = ", ".join(fields)
        marks = ", ".join("?" for _ in fields)
        cursor = self.db.execute(
            f"INSERT INTO docs({names}) VALUES ({marks})",
            tuple(fields.values()),
        )
        if words:
            texts = (fields["name"], fields["title"] or "", body)
            self.db.execute(
                "INSERT INTO text(rowid, name, title, body) VALUES (?, ?, ?, ?)",
                (cursor.lastrowid, *(_unmarked(text) for text in texts)),
            )
        self._written += 1
        if self._chunk is not None and self._written % self._chunk == 0:
            self.db.commit()

    def _drop(self, row_ids: Iterable[int]) -> None:
        ids = [(row_id,) for row_id in row_ids]
        self.db.executemany("DELETE FROM docs WHERE id = ?", ids)
        self.db.executemany("DELETE FROM text WHERE rowid = ?", ids)

    def _refresh_live(
        self, plans_dir: Path, is_plan: Callable[[str], bool], changed: set[str]
    ) -> int:
        known = self._known(Place.LIVE)
        seen: set[str] = set()
        read = 0
        for row_id, fields, body in live_documents(plans_dir, known, seen, is_plan):
            self._put(row_id, fields, body)
            changed.add(fields["name"])
            read += 1
        gone = [key for key in known if key not in seen]
        changed.update(shown(unstored(key)) for key in gone)
        self._drop(known[key][0] for key in gone)
        return read

    def _refresh_archive(self, archive_dir: Path, changed: set[str]) -> int:
        # index.jsonl unchanged since the last refresh (same file, size, mtime): nothing to
        # read. The archive's plans change only through it (a record per move).
        try:
            info = (archive_dir / INDEX_JSONL).stat()
            seen_as = f"{archive_dir}\0{stamp_of(info.st_size, info.st_mtime_ns, info.st_ino)}"
        except OSError:
            seen_as = f"{archive_dir}\0none"
        row = self.db.execute("SELECT value FROM meta WHERE key = 'archive'").fetchone()
        if row is not None and row[0] == seen_as:
            return 0
        read = self._read_archive(archive_dir, changed)
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('archive', ?)", (seen_as,))
        return read

    def _read_archive(self, archive_dir: Path, changed: set[str]) -> int:
        known = self._known(Place.ARCHIVE)
        try:
            lines = read_index_lines(archive_dir) if archive_dir.is_dir() else []
        except OSError:
            return 0  # not clarity's index, or unreadable: the archive is left as indexed
        seen: set[str] = set()
        read = 0
        for row_id, fields, body in archived_documents(archive_dir, lines, known, seen):
            self._put(row_id, fields, body)
            changed.add(fields["name"])
            read += 1
        gone = [row_id for key, (row_id, _) in known.items() if key not in seen]
        changed.update(self._names_of(gone))
        self._drop(gone)
        return read

    def _names_of(self, row_ids: list[int]) -> set[str]:
        names: set[str] = set()
        for row_id in row_ids:
            row = self.db.execute("SELECT name FROM docs WHERE id = ?", (row_id,)).fetchone()
            if row is not None:
                names.add(str(row[0]))
        return names

    def _same_texts(self, name: str) -> set[str]:
        """The digests of what the index holds of the plan's live file and archived files:
        a kept text whose words are one of these is found there, and needs no row."""
        rows = self.db.execute(
            "SELECT digest FROM docs WHERE name = ? AND place != ?", (name, Place.KEPT)
        )
        return {str(digest) for (digest,) in rows}

    def _refresh_kept(self, archive_dir: Path, changed: set[str]) -> int:
        """The texts clarity kept, each plan's read again only when its manifest or its
        live or archived text changed (`changed`), and none looked at while no text was
        kept or marked and no plan changed since (one stat). A kept text whose indexed
        words are the plan's live or archived text's has no words of its own: that row's
        find it (most kept texts are the live one, and were indexed twice)."""
        stamp = f"{archive_dir}\0{versions_stamp(archive_dir)}"
        changed = changed | self._kept_again()
        if self._meta("kept-stamp") == stamp and not changed:
            return 0
        folders: dict[str, str] = {}
        if self._meta("kept-archive") == str(archive_dir):  # else: another archive, anew
            with contextlib.suppress(ValueError, RecursionError):
                was = json.loads(self._meta("kept") or "{}")
                folders = {str(k): str(v) for k, v in was.items()} if isinstance(was, dict) else {}
        known = self._known(Place.KEPT)
        read = 0
        looked: set[str] = set()  # the folders read again
        put: set[str] = set()  # the rows they have now
        for folder, rows in kept_documents(archive_dir, folders, changed):
            looked.add(folder)
            for key, fields, body in rows:
                put.add(key)
                digest = digest_of(body)
                words = digest not in self._same_texts(fields["name"])
                row_id = known.get(key, (None, ""))[0]
                self._put(row_id, fields, body, words=words, digest=digest)
                read += 1
        # A plan's versions stay; a folder gone (another archive) takes its rows with it,
        # and one read again keeps only the rows it has now.
        gone = [
            row
            for key, (row, _) in known.items()
            if _folder(key) not in folders or (_folder(key) in looked and key not in put)
        ]
        self._drop(gone)
        for key, value in (("kept", json.dumps(folders)), ("kept-archive", str(archive_dir))):
            self._set_meta(key, value)
        self._set_meta("kept-stamp", stamp)
        self.db.execute("DELETE FROM meta WHERE key = 'kept-again'")
        return read

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def remember_classes(self, verdicts: Iterable[Verdict]) -> None:
        """A scan's verdicts on the live rows, each on the row of the bytes the scan read
        (its stamp): a plan changed since keeps no class it may no longer have."""
        with self.db:
            self.db.executemany(
                "UPDATE docs SET plan_class = ?, reason = ?, project = ? "
                "WHERE place = 'live' AND key = ? AND stamp = ? "
                "AND (plan_class IS NOT ? OR reason IS NOT ? OR project IS NOT ?)",
                [_update_row(v) for v in verdicts],
            )

    # -- asking it ---------------------------------------------------------------

    def archived_matching(self, terms: Terms) -> set[str]:
        """The archive records (their paths) whose indexed text holds every word."""
        where: list[str] = ["docs.place = 'archive'"]
        params: list[str] = []
        if terms.match is not None:
            where.append("text MATCH ?")
            params.append(terms.match)
        for pattern in terms.like_patterns():
            where.append("text.body LIKE ? ESCAPE ?")
            params += [pattern, LIKE_ESCAPE]
        for pattern in terms.unlike_patterns():
            where.append("text.body NOT LIKE ? ESCAPE ?")
            params += [pattern, LIKE_ESCAPE]
        rows = self.db.execute(
            "SELECT docs.key FROM text JOIN docs ON docs.id = text.rowid WHERE "
            + " AND ".join(where),
            params,
        )
        return {key for (key,) in rows}

    def _body(self, row_id: int) -> Any:
        """A row's body (only a hit whose snippet is empty needs it: most need none)."""
        found = self.db.execute("SELECT body FROM text WHERE rowid = ?", (row_id,)).fetchone()
        return None if found is None else found[0]

    def count(self) -> dict[str, int]:
        rows = self.db.execute("SELECT place, count(*) FROM docs GROUP BY place")
        counts: dict[str, int] = dict.fromkeys(Place, 0)
        counts.update(dict(rows))
        return counts

    def search(
        self,
        terms: Terms,
        plans_dir: Path,
        archive_dir: Path,
        *,
        place: str | None = None,
        project: str | None = None,
        plan_class: str | None = None,
        since: float | None = None,
        limit: int | None = 20,
        kept: bool = True,
    ) -> list[Hit]:
        """The plans that hold every word, best first (BM25; newest first when no word is
        long enough to be ranked). kept: whether the index holds kept texts (a kept text
        found beside its plan is left out, so more rows are asked for)."""
        match = terms.match
        words, word_params = _word_conditions(terms)
        snippet = f"snippet(text, 2, '{HIT}', '{END}', '…', {SNIPPET_TOKENS})"
        snippet = snippet if match else "''"  # no ranked word: _around makes one
        order = f"bm25(text, {_WEIGHTS})" if match else "-docs.mtime"
        asked = limit * 2 + 10 if kept and limit is not None else limit

        def rows(shown: str, join: str, more: list[str]) -> list[tuple[Any, ...]]:
            """The rows whose words hold the terms, each shown as the row `shown` names."""
            where, params = [*words, *more], [*word_params]
            for column, value in (("place", place), ("plan_class", plan_class)):
                if value is not None:
                    where.append(f"{shown}.{column} = ?")
                    params.append(value)
            if project is not None:
                where.append(f"({shown}.project = ? OR {shown}.project LIKE ? ESCAPE ?)")
                params += [project, _escaped(project.rstrip("/")) + "/%", LIKE_ESCAPE]
            if since is not None:
                where.append(f"{shown}.mtime >= ?")
                params.append(since)
            columns = ", ".join(
                f"{shown}.{column}"
                for column in (
                    "place",
                    "name",
                    "key",
                    "quarter",
                    "plan_class",
                    "reason",
                    "project",
                    "mtime",
                    "title",
                )
            )
            sql = (
                f"SELECT {columns}, {snippet}, {order}, docs.id "
                f"FROM text JOIN docs ON docs.id = text.rowid {join} "
                f"WHERE {' AND '.join(where) or '1'} ORDER BY {order}"
                + (" LIMIT ?" if asked is not None else "")
            )
            return self.db.execute(
                sql, [*params, asked] if asked is not None else params
            ).fetchall()

        found = rows("docs", "", [])
        if place == Place.KEPT:  # a kept text whose words are its plan's: found by them
            twin = (
                "JOIN docs AS twin ON twin.place = 'kept' AND twin.name = docs.name "
                "AND twin.digest = docs.digest AND twin.id != docs.id"
            )
            found += rows("twin", twin, ["docs.place != 'kept'"])
            found.sort(key=lambda row: row[-2])  # the order's value: best first
        hits = []
        for row in found:
            try:
                hits.append(_hit(row, terms, plans_dir, archive_dir, self._body))
            except (TypeError, ValueError, OverflowError, OSError) as error:
                # A row no refresh of clarity's wrote (another program, a disk's damage):
                # the index is made anew (run_search), never an error for good.
                raise sqlite3.DatabaseError(f"a row of the wrong kind ({error})") from None
        return _without_kept_beside_their_plan(hits)[:limit]


def _word_conditions(terms: Terms) -> tuple[list[str], list[str | float]]:
    """What a row's words must hold (and must not), as SQL on the text table."""
    where: list[str] = []
    params: list[str | float] = []
    if terms.match is not None:
        where.append("text MATCH ?")
        params.append(terms.match)
    for pattern in terms.like_patterns():
        where.append(
            "(text.name LIKE ? ESCAPE ? OR text.title LIKE ? ESCAPE ? OR text.body LIKE ? ESCAPE ?)"
        )
        params += [pattern, LIKE_ESCAPE] * 3
    for pattern in terms.unlike_patterns():
        where.append(
            "NOT (text.name LIKE ? ESCAPE ? OR text.title LIKE ? ESCAPE ? "
            "OR text.body LIKE ? ESCAPE ?)"
        )
        params += [pattern, LIKE_ESCAPE] * 3
    return where, params


def _hit(
    row: tuple[Any, ...],
    terms: Terms,
    plans_dir: Path,
    archive_dir: Path,
    body_of: Callable[[int], Any],
) -> Hit:
    where_, name, key, quarter, cls, reason, proj, mtime, title, snip, score, row_id = row
    for text in (where_, name, key):
        if not isinstance(text, str):
            raise TypeError("a text column holds no text")
    for maybe in (quarter, cls, reason, proj, title, snip):
        if maybe is not None and not isinstance(maybe, str):
            raise TypeError("a text column holds no text")
    if not snip:  # no ranked word, or found in the name or title: the body read for one
        body = body_of(row_id)
        if not isinstance(body, str):
            raise TypeError("a text column holds no text")
        snip = _around(body, terms.short or terms.indexed)
    return Hit(
        where_,
        name,
        _path_of(where_, key, plans_dir, archive_dir),
        quarter,
        cls,
        reason,
        proj,
        datetime.fromtimestamp(float(mtime), UTC),
        title,
        " ".join(str(snip).split()),
        float(score),
    )


_UNMARKED = str.maketrans("", "", HIT + END)


def _unmarked(text: str) -> str:
    """The text without HIT and END, which mark a match in a snippet: a plan holding them
    would fake one. Looked for first (a byte search): almost no plan holds them."""
    return text.translate(_UNMARKED) if HIT in text or END in text else text


def _folder(key: str) -> str:
    return unstored(key).split("/")[0]


def _path_of(place: str, key: str, plans_dir: Path, archive_dir: Path) -> Path:
    if place == Place.LIVE:
        return plans_dir / unstored(key)
    if place == Place.KEPT:
        return archive_dir / VERSIONS / unstored(key)
    return archive_dir / unstored(key)


def _without_kept_beside_their_plan(hits: list[Hit]) -> list[Hit]:
    """A kept text is a hit of its own only where the plan's file (live or archived) is not:
    words that only an earlier version holds, or a plan Claude Code deleted. Each plan's
    kept texts are one hit, the best."""
    plans = {hit.name for hit in hits if hit.place != Place.KEPT}
    found, kept = [], set()
    for hit in hits:
        if hit.place == Place.KEPT:
            if hit.name in plans or hit.name in kept:
                continue
            kept.add(hit.name)
        found.append(hit)
    return found


def _update_row(verdict: Verdict) -> tuple[str | None, ...]:
    """remember_classes' parameters for one verdict: the values, the row's key and stamp,
    and the values again (a row that has them already is left as it is)."""
    values = (verdict.plan_class, shown(verdict.reason), text_or_none(verdict.project))
    return (*values, stored(verdict.name), verdict.stamp, *values)


# The connections a long-lived reader keeps (SearchIndex.open(keep=True)), one an index
# file (a search of every root opens each: one kept connection made every root connect
# anew at every search); its lock makes the server's worker threads take turns with them.
_KEPT: dict[str, tuple[tuple[Path, int, int], sqlite3.Connection]] = {}
_KEPT_LOCK = threading.RLock()
KEPT_MOST = 32


def digest_of(body: str) -> str:
    """What tells two indexed texts apart (a kept text from its plan's)."""
    return hashlib.sha1(body.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def _kept_to(path: Path) -> sqlite3.Connection | None:
    """The connection kept to this very file (its inode now), if one is."""
    known = _KEPT.get(str(path))
    try:
        info = path.stat()
    except OSError:
        return None
    return known[1] if known is not None and known[0] == (path, info.st_ino, info.st_dev) else None


@contextlib.contextmanager
def _forgotten_if_cut_short(key: str) -> Iterator[None]:
    """A kept connection that was in use when an error came (damage, a query cut short)
    is forgotten: the next open connects anew."""
    try:
        yield
    except BaseException:
        _forget_kept(key)
        raise


def _forget_kept(key: str) -> None:
    known = _KEPT.pop(key, None)
    if known is not None:
        known[1].close()


def _connect(path: Path, wait: float, *, threads: bool = False) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=wait, isolation_level=None, check_same_thread=not threads)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA:
            if version != 0:
                db.close()
                remove_index(path)
                db = sqlite3.connect(
                    path, timeout=wait, isolation_level=None, check_same_thread=not threads
                )
            db.executescript(_TABLES)
            db.execute(f"PRAGMA user_version = {SCHEMA}")
        # A cache: written without a journal's second copy or fsyncs (1.35 s against 1.96 s
        # with WAL, half the disk, on 20,000 heads); damage makes it anew (run_search).
        db.execute("PRAGMA journal_mode = DELETE")
        db.execute("PRAGMA synchronous = OFF")
        # A refresh's changes held in memory to its commit (32 MB at most), not spilled to
        # the file early: a spill takes the file's exclusive lock, and a server's callers,
        # reading on their kept connection meanwhile, would wait on the rest of the refresh.
        db.execute("PRAGMA cache_size = -32768")
        db.execute("SELECT count(*) FROM docs").fetchone()
        db.execute("SELECT count(*) FROM text WHERE text MATCH 'zzz'").fetchone()
    except sqlite3.DatabaseError:
        db.close()
        raise
    # `with db:` makes one transaction, which takes the write lock at once: two searches
    # bringing the index up to date one after the other, each reading what the other wrote.
    db.isolation_level = "IMMEDIATE"
    return db


def remove_index(path: Path) -> None:
    """The index file and what SQLite keeps beside it: gone (a cache)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()


def _escaped(text: str) -> str:
    return "".join(LIKE_ESCAPE + ch if ch in "%_\\" else ch for ch in text)


def _around(body: str, words: Iterable[str], width: int = 60) -> str:
    """A snippet for a match FTS5 did not rank (a word below a trigram): the first place
    one of the words appears, marked."""
    folded = body.casefold()
    for word in words:
        at = folded.find(word.casefold())
        if at >= 0:
            start = max(0, at - width)
            end = min(len(body), at + len(word) + width)
            return (
                ("…" if start else "")
                + body[start:at]
                + HIT
                + body[at : at + len(word)]
                + END
                + body[at + len(word) : end]
                + ("…" if end < len(body) else "")
            )
    return body[: 2 * width]
