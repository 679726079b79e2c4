"""Every text of a plan clarity has kept (SPEC 6.1), as plain files in the archive, where
Claude Code's cleanup does not reach:

    <archive>/versions/<plan name less .md>/
        versions.jsonl                     one record per text kept, oldest first
        3f2a1b4c5d6e.md                    a text, byte for byte (named by its sha256)

A name too long for a folder's (over 239 bytes less .md) has a folder cut to fit and
told apart by a hash of the whole name (`<cut>~<16 hex>`); its records carry the whole
name (`plan`), which is how the folder is read back: two names alike in their first
239 bytes never share one.

A text is kept once per plan (its file is named by its sha256, so keeping a
text kept already only reads it, however many versions there are), never
overwritten and never deleted by clarity: it is written beside its final name,
fsynced, then renamed to a name nothing has (a kill leaves at most a temp file in
`versions/.keeping/`, which the next keep removes), and only then recorded. A text whose record
a kill cut off is still listed, from its file (read_versions). Nothing here
moves a plan or writes in the plans directory.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clarity import validate
from clarity.dates import iso_moment
from clarity.fsio import (
    NAME_MAX,
    NEW_FLAGS,
    READ_FLAGS,
    append_durably,
    append_lines,
    copy_hashed,
    cut_to,
    fsync_dir,
    hash_fd,
    read_regular,
    rename_noreplace,
    sweep_temps,
)

VERSIONS = "versions"
MANIFEST = "versions.jsonl"
_MANIFEST_MOST = 64 * 1024 * 1024  # past this a manifest is not one clarity wrote

# Where a version came from, as history says it.
SEEN = "seen in the plans dir"
BEFORE_CLEANUP = "kept before Claude Code's cleanup"


@dataclass(frozen=True, slots=True)
class Version:
    """One kept text of a plan."""

    sha256: str
    size: int
    kept_at: str  # ISO time it was kept
    mtime_ns: int  # the plan file's mtime then (a restore gives it back)
    source: str  # SEEN, BEFORE_CLEANUP, "approved in session 3f2a...", ...
    path: Path  # the file holding it

    def to_json(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "size": self.size,
            "kept_at": self.kept_at,
            "mtime": iso_moment(self.mtime_ns),
            "mtime_ns": self.mtime_ns,
            "source": self.source,
            "file": self.path.name,
        }


_FOLDER_MOST = NAME_MAX - 16  # bytes of a versions folder's name
_HASHED = re.compile(r"~[0-9a-f]{16}\Z")  # the tail of a long name's folder


def folder_of(archive_dir: Path, plan: str) -> Path:
    """The plan's versions folder: its name less `.md`; a name too long for that (or one
    that ends as a long name's folder does) cut to fit, with a hash of the whole name."""
    stem = plan[: -len(".md")] if plan.endswith(".md") else plan
    if len(os.fsencode(stem)) <= _FOLDER_MOST and not _HASHED.search(stem):
        return archive_dir / VERSIONS / stem
    tag = hashlib.sha256(os.fsencode(plan)).hexdigest()[:16]
    return archive_dir / VERSIONS / f"{cut_to(stem, _FOLDER_MOST - 17)}~{tag}"


def _plan_of(archive_dir: Path, folder: str) -> str | None:
    """The plan whose versions the folder holds: its name and .md, or, for a long name's
    folder, the name its records carry (None if none of them names a plan whose folder
    this is)."""
    if not _HASHED.search(folder):
        return f"{folder}.md"
    try:
        data = read_regular(archive_dir / VERSIONS / folder / MANIFEST, _MANIFEST_MOST)
    except OSError:
        return None
    for raw in data.splitlines():
        with contextlib.suppress(ValueError, RecursionError):
            plan = validate.text(validate.record(json.loads(raw)), "plan")
            if folder_of(archive_dir, plan).name == folder:
                return plan
    return None


def _manifest_line(version: Version, plan: str) -> bytes:
    """A record of the manifest: the version, and the plan's whole name."""
    record = {**version.to_json(), "plan": plan}
    return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


def _records(folder: Path) -> list[Version]:
    """Every record of the folder's manifest, in order (a text may have several: it was
    seen, then marked as kept before Claude Code's cleanup); a damaged line is passed over."""
    try:
        data = read_regular(folder / MANIFEST, _MANIFEST_MOST)
    except OSError:
        return []
    found: list[Version] = []
    for raw in data.splitlines():
        try:
            record = validate.record(json.loads(raw))
            name = validate.text(record, "file")
            if "/" in name or name.startswith("."):
                raise validate.Damaged("file is not a name in the folder")
            found.append(
                Version(
                    validate.sha256(record),
                    validate.count(record, "size"),
                    validate.text(record, "kept_at"),
                    _mtime_ns(record),
                    validate.text(record, "source"),
                    folder / name,
                )
            )
        except (ValueError, RecursionError):
            continue
    return found


def read_versions(archive_dir: Path, plan: str) -> list[Version]:
    """The plan's kept texts, oldest first (by the text's own date: the file's mtime when
    it was kept, or when a session carried it), each once; none if it has none (or its
    record is not clarity's: a damaged line is passed over, and a file is never lost)."""
    folder = folder_of(archive_dir, plan)
    found: list[Version] = []
    seen: set[str] = set()
    for version in _records(folder):
        if version.sha256 not in seen:
            seen.add(version.sha256)
            found.append(version)
    found.sort(key=lambda version: version.mtime_ns)  # stable: kept order breaks a tie
    return found + _unrecorded(folder, {version.path.name for version in found})


def kept_before_cleanup(archive_dir: Path, plan: str) -> Version | None:
    """The text of the plan clarity last kept because Claude Code's cleanup was near: what
    `restore` puts back once Claude Code has deleted it. None if there is none."""
    marked = [v for v in _records(folder_of(archive_dir, plan)) if v.source == BEFORE_CLEANUP]
    return marked[-1] if marked else None


def mark_before_cleanup(archive_dir: Path, plan: str, source_path: Path, now: datetime) -> bool:
    """Record that the text source_path holds, kept already (as seen, say, a week before),
    is what the plan held when Claude Code's cleanup came near: once Claude Code deletes it,
    `archived` lists it and `restore` puts this text back, with this mtime. Whether it is
    so marked now (False: that text is not kept, keep_file first). Raises OSError."""
    folder = folder_of(archive_dir, plan)
    info, sha = _stat_and_hash(source_path)
    kept = _kept(folder, sha)
    if kept is None:
        return False
    if any(v.sha256 == sha and v.source == BEFORE_CLEANUP for v in _records(folder)):
        return True
    at = now.astimezone(UTC).isoformat(timespec="seconds")
    version = Version(sha, info.st_size, at, info.st_mtime_ns, BEFORE_CLEANUP, kept)
    append_lines(folder / MANIFEST, _manifest_line(version, plan))
    _changed(archive_dir)
    return True


def _changed(archive_dir: Path) -> None:
    """The versions folder's mtime moved on: what a reader that caches them (the search
    index) checks, instead of every plan's manifest."""
    with contextlib.suppress(OSError):
        os.utime(archive_dir / VERSIONS)


def versions_stamp(archive_dir: Path) -> str:
    """What changes whenever a text is kept or marked (or a plan's folder is made)."""
    try:
        info = (archive_dir / VERSIONS).stat()
    except OSError:
        return "none"
    return f"{info.st_ino}:{info.st_mtime_ns}:{info.st_ctime_ns}"


UNRECORDED = "kept (its record was cut short; the text is whole)"


def _unrecorded(folder: Path, recorded: set[str]) -> list[Version]:
    """Texts whose file was made but whose record a kill cut off: listed all the same."""
    found: list[Version] = []
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.name.endswith(".md") and not entry.name.startswith(".")
        )
    except OSError:
        return found
    for name in names:
        if name in recorded:
            continue
        path = folder / name
        try:
            info, sha = _stat_and_hash(path)
        except OSError:
            continue
        kept = datetime.fromtimestamp(info.st_ctime, UTC).isoformat(timespec="seconds")
        found.append(Version(sha, info.st_size, kept, info.st_mtime_ns, UNRECORDED, path))
    return found


def _stat_and_hash(path: Path) -> tuple[os.stat_result, str]:
    """A file's stat and sha256, through one descriptor (never a link). Raises OSError."""
    fd = os.open(path, READ_FLAGS)
    try:
        return os.fstat(fd), hash_fd(fd)
    finally:
        os.close(fd)


def _mtime_ns(record: dict[str, Any]) -> int:
    value = record.get("mtime_ns")
    if type(value) is not int:
        raise validate.Damaged("mtime_ns is not a whole number")
    return value


def keep_file(
    archive_dir: Path,
    plan: str,
    source_path: Path,
    source: str,
    now: datetime,
    *,
    durable: bool = True,
    mtime_ns: int | None = None,
) -> Version | None:
    """Keep the text source_path holds as a version of plan, unless that text is kept
    already (None). mtime_ns: the text's own date where it is not the file's (a text a
    session carried: when it did). Streams: a plan of any size costs memory of one chunk,
    and a text kept already is only read, whatever the number of versions (a text's file
    is named by its sha256). Raises OSError (the source unreadable, a full disk: nothing
    half-kept is left under a final name)."""
    folder = folder_of(archive_dir, plan)
    fd = os.open(source_path, READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(source_path))
        if _kept(folder, hash_fd(fd)) is not None:
            return None
        temps = _temps(archive_dir)
        with contextlib.suppress(FileExistsError):
            folder.mkdir()
        if stat.S_ISLNK(os.lstat(folder).st_mode):
            raise OSError(errno.ELOOP, "a link: clarity follows no link in the archive", folder)
        moment = info.st_mtime_ns if mtime_ns is None else mtime_ns
        sha, size, final = _copy_in(fd, folder, temps, moment, durable=durable)
    finally:
        os.close(fd)
    if final is None:
        return None  # it changed, while it was read, into a text kept already
    version = Version(
        sha,
        size,
        now.astimezone(UTC).isoformat(timespec="seconds"),
        moment,
        source,
        final,
    )
    line = _manifest_line(version, plan)
    (append_durably if durable else append_lines)(folder / MANIFEST, line)
    _changed(archive_dir)
    return version


_TEMPS = ".keeping"  # a text is written as `versions/.keeping/.text.<pid>.tmp` first (a
# small folder of its own, so that sweeping what a kill left never lists every version)
_swept: set[Path] = set()  # archives whose temps this process swept already


def _temps(archive_dir: Path) -> Path:
    """The archive's folder of texts being kept, made if need be; what a kill left in it
    removed, once a process."""
    temps = archive_dir / VERSIONS / _TEMPS
    if temps not in _swept or not temps.is_dir():
        temps.mkdir(parents=True, exist_ok=True)
        sweep_temps(temps / "text")
        _swept.add(temps)
    return temps


def _kept(folder: Path, sha: str) -> Path | None:
    """The file that holds this text in folder, if one does: `<sha12>.md` (or, for two
    texts whose sha256 begin alike, `<sha12>.2.md`...)."""
    for candidate in _names(folder, sha):
        if not os.path.lexists(candidate):
            return None
        if _holds(candidate, sha):
            return candidate
    return None


def _names(folder: Path, sha: str) -> Iterator[Path]:
    yield folder / f"{sha[:12]}.md"
    for number in range(2, 100):
        yield folder / f"{sha[:12]}.{number}.md"


def _copy_in(
    fd: int, folder: Path, temps: Path, mtime_ns: int, *, durable: bool
) -> tuple[str, int, Path | None]:
    """The file's bytes as a new file in folder: (sha256, size, its path; None if that
    text is kept already). A temp file first, renamed to a name nothing has."""
    temp = temps / f".text.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()  # left by a killed process that had this pid
    try:
        out = os.open(temp, NEW_FLAGS, 0o644)
        try:
            sha, size = copy_hashed(fd, out)
            if durable:
                os.fsync(out)
        finally:
            os.close(out)
        if _kept(folder, sha) is not None:
            return sha, size, None
        os.utime(temp, ns=(mtime_ns, mtime_ns))
        for final in _names(folder, sha):
            try:
                rename_noreplace(temp, final)
            except FileExistsError:
                if _holds(final, sha):  # another run kept this very text meanwhile
                    return sha, size, None
                continue  # another text whose sha256 begins alike
            if durable:
                fsync_dir(folder)
            return sha, size, final
        raise OSError(errno.EEXIST, "no free name for this text", os.fspath(folder))
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def _holds(path: Path, sha: str) -> bool:
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError:
        return False
    try:
        return hash_fd(fd) == sha
    finally:
        os.close(fd)


def kept_plans(archive_dir: Path) -> Iterator[str]:
    """The names (`foo.md`) of the plans that have kept versions."""
    try:
        names = sorted(entry.name for entry in os.scandir(archive_dir / VERSIONS))
    except OSError:
        return
    for name in names:
        if not name.startswith(".") and (plan := _plan_of(archive_dir, name)) is not None:
            yield plan


def versions_size(archive_dir: Path) -> tuple[int, int, int]:
    """(plans, texts, bytes) the kept versions take: their files, as they lie on disk."""
    plans = texts = total = 0
    for plan in kept_plans(archive_dir):
        try:
            entries = list(os.scandir(folder_of(archive_dir, plan)))
        except OSError:
            continue
        plans += 1
        for entry in entries:
            if entry.name.endswith(".md") and not entry.name.startswith("."):
                with contextlib.suppress(OSError):
                    total += entry.stat(follow_symlinks=False).st_size
                    texts += 1
    return plans, texts, total
