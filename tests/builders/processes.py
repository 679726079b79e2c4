"""clarity as a user runs it: a separate process (`python -m clarity`), in a pseudo-terminal,
killed at a chosen moment, or in-process with its own state; and the CLI's Result."""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import io
import json
import os
import pty
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clarity.cli import main


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def json_of(cli: Any, *args: str) -> dict[str, Any]:
    """What `clarity ARGS... --json` answers, run by the cli fixture; exit 0 asserted."""
    ran = cli(*args, "--json")
    assert ran.exit_code == 0, ran.stderr
    document: dict[str, Any] = json.loads(ran.stdout)
    return document


REAL_HOME = os.environ.get("HOME", "")  # as the test run found it: never written to


def without_root_file_access() -> None:
    """In a child before exec: drop the capabilities that let root read or write any file."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


AS_ROOT = sys.platform == "linux" and os.geteuid() == 0


def drain(controller: int) -> bytes:
    """Everything a process drew on a pseudo-terminal, until it closed it; then closed."""
    drawn = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        drawn += chunk
    os.close(controller)
    return drawn


def full_disk(limit: int) -> Callable[[], None]:
    """For a child (preexec_fn): its files may not grow past `limit` bytes, as on a disk
    that is almost full: a write past it is cut short, then fails (EFBIG)."""

    def apply_limit() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply_limit


RenameHook = Callable[[Path, Path], None]


def before_each_rename(monkeypatch: pytest.MonkeyPatch, hook: RenameHook) -> None:
    """Call hook(src, dst) before every rename a move makes: clarity's own no-replace
    rename, and os.rename (send2trash's, on the platforms it still serves)."""
    from clarity import fsio

    real_rename, real_noreplace = os.rename, fsio.rename_noreplace

    def rename(src, dst, *args, **kwargs):  # os.rename, as it is called
        hook(Path(os.fsdecode(src)), Path(os.fsdecode(dst)))  # bytes from send2trash
        return real_rename(src, dst, *args, **kwargs)

    def rename_noreplace(src: Path, dst: Path) -> None:
        hook(Path(src), Path(dst))
        real_noreplace(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(fsio, "rename_noreplace", rename_noreplace)


def run_process(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    unprivileged: bool = False,
) -> Result:
    """Run `python -m clarity` as a separate process: what a user's shell does.
    unprivileged: as a user whom permissions refuse, even when the tests run as root."""
    completed = subprocess.run(
        [sys.executable, "-m", "clarity", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=120,
        check=False,
        preexec_fn=without_root_file_access if unprivileged and AS_ROOT else None,
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


@contextlib.contextmanager
def isolated_state(home: Path) -> Iterator[None]:
    """This example's own state and trash (hypothesis reuses the test's fixtures)."""
    names = ("HOME", "XDG_STATE_HOME", "XDG_DATA_HOME")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(
        HOME=str(home),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "share"),
    )
    trash_module = sys.modules.get("send2trash.plat_other")
    try:
        if trash_module is not None:
            importlib.reload(trash_module)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if trash_module is not None:
            importlib.reload(trash_module)


def run_json(*args: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([*args, "--json"])
    return code, json.loads(out.getvalue()) if out.getvalue() else {}


CHILD = r"""
import errno, json, os, signal, sys
moment, plans_dir = sys.argv[1], sys.argv[2]
real_rename, real_unlink, real_fsync, real_link = os.rename, os.unlink, os.fsync, os.link
import clarity.fsio as fsio
real_noreplace = fsio.rename_noreplace

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def in_plans(path):
    return os.path.dirname(os.fsdecode(path)) == plans_dir

synced = {}  # journal path -> its size at its latest fsync

def journal_path(fd):
    path = os.readlink(f"/proc/self/fd/{fd}")
    return path if path.endswith(".jsonl") and "/runs/" in path else None

def check_announced(src):  # the move of src must be in a journal's synced part
    src = os.fsdecode(src)
    for path, size in synced.items():
        with open(path, "rb") as stream:
            for line in stream.read(size).splitlines():
                record = json.loads(line)
                if record.get("op") == "intent" and record.get("src") == src:
                    return
    sys.stderr.write(f"moved before its intent was on disk: {src}\n")
    os._exit(3)

def before(src, dst):
    if moment.startswith("cross") and in_plans(src) and not in_plans(dst):  # not the claim
        raise OSError(errno.EXDEV, "cross-device link", src)
    if moment == "durable-before-move" and (in_plans(src) or in_plans(dst)):
        check_announced(src)  # an apply's move out, or an undo's move back

landed = []  # files moved so far into the folder a counted moment watches

def after(src, dst):
    dst = os.fsdecode(dst)
    if moment == "after-rename" and in_plans(src) and "-agent-" not in dst:
        die()
    if moment == "after-trash" and "/Trash/files/" in dst:
        die()
    if moment == "after-restore" and in_plans(dst):
        die()
    # "back-into-plans:N" / "back-into-archive:N": killed once N files have landed there
    where, _, count = moment.partition(":")
    if where == "swap-archive" and "/plans-archive/" in dst and not dst.endswith("-partial"):
        landed.append(dst)
        if len(landed) == int(count):  # the archive folder replaced by a link to itself
            archive = dst[: dst.index("/plans-archive/") + len("/plans-archive")]
            real_rename(archive, archive + ".real")
            os.symlink(archive + ".real", archive)
    into_archive = "/plans-archive/" in dst and not dst.endswith("-partial")
    if (where, True) in (("back-into-plans", in_plans(dst)), ("back-into-archive", into_archive)):
        landed.append(dst)
        if len(landed) >= int(count):
            die()

def rename(src, dst, *args, **kwargs):  # send2trash's
    before(src, dst)
    real_rename(src, dst, *args, **kwargs)
    after(src, dst)

def rename_noreplace(src, dst):  # clarity's own moves
    before(src, dst)
    keeping = "/.keeping/" in os.fsdecode(src)
    if moment == "before-keep-rename" and keeping:
        die()  # a text kept as a temp file, not yet named
    real_noreplace(src, dst)
    if moment == "after-keep-rename" and keeping:
        die()  # named, not yet recorded
    if moment == "after-shelve-copy" and os.fsdecode(src).endswith("-partial"):
        die()  # a kept text copied into the archive, its record not yet in the index
    after(src, dst)

def unlink(path, *args, **kwargs):
    if moment == "cross-before-unlink" and in_plans(path):
        die()
    if moment == "cross-written-before-unlink" and in_plans(path):
        with open(path, "ab") as stream:  # a program that held it open writes, then the kill
            stream.write(b"written at the last moment\n")
        die()
    real_unlink(path, *args, **kwargs)

def fsync(fd):
    real_fsync(fd)
    if moment == "cross-mid-copy" and os.readlink(f"/proc/self/fd/{fd}").endswith("-partial"):
        die()
    if (journal := journal_path(fd)) is not None:
        synced[journal] = os.fstat(fd).st_size
        if moment == "after-announce" and b'"op": "intent"' in open(journal, "rb").read():
            die()  # the batch's intents are on disk; nothing has moved

def link(src, dst, *args, **kwargs):
    if moment == "mid-trash-claim" and ".clarity-claim." in os.fsdecode(src):
        die()  # the trash record written beside its name, not yet linked into place
    real_link(src, dst, *args, **kwargs)

os.rename, os.unlink, os.fsync, os.link = rename, unlink, fsync, link
fsio.rename_noreplace = rename_noreplace
from clarity.cli import main
if moment == "cross-written-before-unlink":
    # A write at that moment needs a system with no lease (alone.py): a thread that is
    # not the main one takes none. (With one held, this process's own open would wait.)
    import threading
    codes = []
    thread = threading.Thread(target=lambda: codes.append(main(sys.argv[3:])))
    thread.start()
    thread.join()
    sys.exit(codes[0])
sys.exit(main(sys.argv[3:]))
"""


def run_until_killed(moment: str, plans_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, moment, str(plans_dir), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def killed(moment: str, plans_dir: Path, *args: str) -> None:
    process = run_until_killed(moment, plans_dir, *args)
    assert process.returncode == -9, process.stderr  # it really was killed at that moment


def in_a_terminal(args: list[str], answer: bytes) -> subprocess.CompletedProcess[str]:
    """Run clarity with a real terminal on stdin, and type the answer."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "clarity", *args],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(controller, answer)
        out, err = process.communicate(timeout=120)
    finally:
        os.close(terminal)
        os.close(controller)
    return subprocess.CompletedProcess(args, process.returncode, out, err)
