"""What clarity remembers about each plans directory (SPEC 7), and the lock.

    <state dir>/dirs/<plans dir name>-<hash>/
        plans_dir        the plans directory this folder is for (for people)
        proposal.json    the latest scan's proposal
        facts.cache      what that scan read from each plan (see facts_cache; disposable)
        sessions.json    what Claude Code's transcripts said, and how far they were read
        runs/NNNNNN-<kind>.jsonl   the journal of each apply, archive, restore and undo
                                   (restores also say which plans to keep active a while)
        running          the run in progress; gone once it ends
        lock, owner      held (and who holds it) while a run moves files
    <state dir>/archives/<archive name>-<hash>/
        archive_dir      the archive this folder is for (for people)
        lock             held while a run changes that archive's index

Plans dirs may share an archive, so its index has a lock of its own, taken
after the plans dir's (never the other way round: no deadlock) and held for
one change of the index, not a run: two runs in two dirs still move in parallel.
It lives here, in clarity's own folder, not in the archive, which a person may
have made read-only. Both locks are fcntl locks: the OS drops a killed run's.

Every file but the cache is plain text a person can read. Writes are atomic (temp file,
fsync, rename) so a kill never leaves a half-written proposal.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from clarity.errors import ClarityError
from clarity.fsio import fsync_dir, write_atomic
from clarity.settings.locations import state_dir

if TYPE_CHECKING:
    from filelock import BaseFileLock

LOCK_WAIT_SECONDS = 10.0  # a second apply waits this long for the first, then gives up
# An archive's lock is held for one index change, not a run, so a run can wait long for
# it; giving up leaves the change for the next run (executor/indexing.py).
ARCHIVE_LOCK_WAIT_SECONDS = 60.0


class ArchiveLockError(OSError):
    """The archive's lock was not had (held too long by another run, or not makeable)."""


def _folder_name(directory: Path) -> str:
    real = os.path.realpath(directory)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:12]
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(real).name)[:40] or "root"
    return f"{readable}-{digest}"


class DirState(NamedTuple):
    """The state folder of one plans directory (keyed by its real path)."""

    root: Path
    plans_dir: Path

    @classmethod
    def for_plans_dir(cls, plans_dir: Path, base: Path | None = None) -> DirState:
        base = base if base is not None else state_dir()
        return cls(base / "dirs" / _folder_name(plans_dir), plans_dir)

    @property
    def proposal_file(self) -> Path:
        return self.root / "proposal.json"

    @property
    def facts_cache_file(self) -> Path:
        return self.root / "facts.cache"

    @property
    def shared(self) -> Path:
        """clarity's state folder, which every plans dir's shares (the approval ledger)."""
        return self.root.parent.parent

    @property
    def sessions_file(self) -> Path:
        return self.root / "sessions.json"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    @property
    def running_file(self) -> Path:
        return self.root / "running"

    def ensure(self) -> None:
        """Create the folder; a state dir that can't be written is a precondition error."""
        try:
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            label = self.root / "plans_dir"
            if not label.exists():
                write_atomic(label, os.fsencode(self.plans_dir) + b"\n")
        except OSError as error:
            raise ClarityError(
                f"cannot write clarity's state in {self.root}: {error.strerror or error}; "
                "make it writable or point XDG_STATE_HOME elsewhere"
            ) from None

    def run_files(self) -> list[Path]:
        """Journals of past runs, oldest first."""
        try:
            names = sorted(p.name for p in self.runs_dir.iterdir() if p.name.endswith(".jsonl"))
        except FileNotFoundError:
            return []
        return [self.runs_dir / name for name in names]

    def new_run_file(self, kind: str) -> Path:
        """A name for the next run's journal; call with the lock held."""
        files = self.run_files()
        number = int(files[-1].name.split("-", 1)[0]) + 1 if files else 1
        return self.runs_dir / f"{number:06d}-{kind}.jsonl"

    def running_run(self) -> Path | None:
        """The journal of a run that started and never ended (killed), if any."""
        try:
            name = self.running_file.read_text(encoding="utf-8").strip()
        except OSError:
            return None  # no marker (or no state folder at all): nothing was interrupted
        return self.runs_dir / name if name else None

    def mark_running(self, run_file: Path | None) -> None:
        if run_file is None:
            with contextlib.suppress(FileNotFoundError):
                self.running_file.unlink()
            fsync_dir(self.root)
        else:
            write_atomic(self.running_file, run_file.name.encode() + b"\n")

    def _acquire(self, wait: float) -> BaseFileLock | None:
        """This directory's lock if it comes free within `wait` seconds, else None."""
        from filelock import FileLock, Timeout

        self.ensure()
        file_lock = FileLock(self.root / "lock")
        try:
            file_lock.acquire(timeout=wait)
        except Timeout:
            return None
        write_atomic(self.root / "owner", f"{os.getpid()}\n".encode())
        return file_lock

    @contextlib.contextmanager
    def lock(self, wait: float | None = None) -> Iterator[None]:
        """Hold this directory's lock: one run at a time moves its files."""
        file_lock = self._acquire(_lock_wait() if wait is None else wait)
        if file_lock is None:
            raise ClarityError(
                f"another clarity run is moving plans in {self.plans_dir}{self._owner()}; "
                "wait for it to finish and try again"
            )
        try:
            yield
        finally:
            file_lock.release()

    @contextlib.contextmanager
    def try_lock(self) -> Iterator[bool]:
        """The lock if it is free right now (True), else go on without it (False)."""
        file_lock = self._acquire(0)
        try:
            yield file_lock is not None
        finally:
            if file_lock is not None:
                file_lock.release()

    def archive_folder(self, archive_dir: Path) -> Path:
        """clarity's state of an archive that plans dirs may share: its lock, and what it
        said of the archive once."""
        # Beside dirs/: every plans dir's state (root = <state dir>/dirs/<name>) finds it.
        return self.root.parent.parent / "archives" / _folder_name(archive_dir)

    @contextlib.contextmanager
    def archive_lock(self, archive_dir: Path) -> Iterator[None]:
        """Hold the lock of the archive's index, for one read-change-write of it. Call
        with this directory's lock held; take no other lock inside. Raises ArchiveLockError.
        """
        from filelock import FileLock, Timeout

        folder = self.archive_folder(archive_dir)
        wait = ARCHIVE_LOCK_WAIT_SECONDS
        try:
            folder.mkdir(parents=True, exist_ok=True)
            label = folder / "archive_dir"
            if not label.exists():
                write_atomic(label, os.fsencode(archive_dir) + b"\n")
            file_lock = FileLock(folder / "lock")
            file_lock.acquire(timeout=wait)
        except Timeout:
            text = f"another clarity run held the archive's lock over {wait:g} s"
            raise ArchiveLockError(errno.ETIMEDOUT, text, str(folder / "lock")) from None
        except OSError as error:
            text = f"cannot make the archive's lock: {error.strerror or error}"
            raise ArchiveLockError(error.errno or 0, text, str(folder)) from None
        try:
            yield
        finally:
            file_lock.release()

    def _owner(self) -> str:
        try:
            pid = (self.root / "owner").read_text(encoding="utf-8").strip()
        except OSError:
            return ""
        return f" (process {pid})" if pid.isdigit() else ""


def _lock_wait() -> float:
    text = os.environ.get("CLARITY_LOCK_WAIT", "")
    try:
        return max(0.0, float(text)) if text else LOCK_WAIT_SECONDS
    except ValueError:
        raise ClarityError(
            f"CLARITY_LOCK_WAIT={text!r} is not a number of seconds; unset it or give one"
        ) from None
