"""Shared test helpers: dict-tree fixtures on a real filesystem, and the CLI in-process."""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from clarity.cli import main

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
NOW_ISO = NOW.isoformat()
DAY = 86400.0


@dataclass(frozen=True)
class Plan:
    """A file to lay out: its content and how many days before NOW it was modified."""

    content: str | bytes = ""
    age_days: float = 0.0


Tree = Mapping[str, "str | bytes | Plan | Tree"]


def make_files(root: Path, tree: Tree, now: datetime = NOW) -> Path:
    """Lay out a dict tree under root: dicts are folders, strings/bytes/Plans are files."""
    root.mkdir(parents=True, exist_ok=True)
    for name, spec in tree.items():
        path = root / name
        if isinstance(spec, Mapping):
            make_files(path, spec, now)
            continue
        plan = spec if isinstance(spec, Plan) else Plan(spec)
        data = plan.content.encode() if isinstance(plan.content, str) else plan.content
        path.write_bytes(data)
        mtime = now.timestamp() - plan.age_days * DAY
        os.utime(path, (mtime, mtime))
    return root


def read_files(root: Path) -> dict[str, bytes]:
    """Every file under root, by path relative to root."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def snapshot(root: Path) -> dict[str, tuple[bytes | str, int]]:
    """Names, bytes (or link targets) and mtimes of everything under root."""
    state: dict[str, tuple[bytes | str, int]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            state[str(path.relative_to(root))] = (str(path.readlink()), info.st_mtime_ns)
        elif path.is_file():
            state[str(path.relative_to(root))] = (path.read_bytes(), info.st_mtime_ns)
        else:
            state[str(path.relative_to(root))] = ("<dir>", info.st_mtime_ns)
    return state


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


REAL_HOME = os.environ.get("HOME", "")  # as the test run found it: never written to


@pytest.fixture(scope="session", autouse=True)
def no_real_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Before any fixture of a wider scope than a test's runs clarity (a module's report,
    say), home, config, state and trash are a temp folder's: the per-test isolated_home
    comes later than those."""
    home = tmp_path_factory.mktemp("session-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        for var, below in (
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"),
        ):
            patch.setenv(var, str(home / below))
        for var in [v for v in os.environ if v.startswith(("CLARITY_", "CLAUDE_"))]:
            patch.delenv(var)
        yield home


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Keep every test away from the real home, config, state, trash and Claude dirs."""
    home = tmp_path_factory.mktemp("home")
    for var in list(os.environ):
        if var.startswith(("CLARITY_", "CLAUDE_", "ANTHROPIC_")):
            monkeypatch.delenv(var)
    # Nothing may reach the network: an SDK that is not pointed at a test server
    # finds a closed port on this machine.
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("COLUMNS", "100")
    workdir = home / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    # send2trash reads XDG_DATA_HOME when it is imported: point it at this test's trash
    trash_module = sys.modules.get("send2trash.plat_other")
    if trash_module is not None:
        importlib.reload(trash_module)
    return home


def trash_files(home: Path) -> Path:
    """The freedesktop home trash's files/ folder for the isolated home."""
    return home / ".local" / "share" / "Trash" / "files"


def contents(*roots: Path) -> Counter[bytes]:
    """How many copies of each file's bytes lie anywhere under the roots."""
    found: Counter[bytes] = Counter()
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                found[path.read_bytes()] += 1
    return found


def without_root_file_access() -> None:
    """In a child before exec: drop the capabilities that let root read or write any file."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


AS_ROOT = sys.platform == "linux" and os.geteuid() == 0


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run clarity in-process, as the console script does, and capture what it prints."""

    def run(*args: str) -> Result:
        code = main(list(args))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


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


@pytest.fixture
def plans_dir(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "plans"
    directory.mkdir()
    yield directory


# Fixtures that live in their own modules, made visible to every test.
from tests.standins import real_crontab_kept, standins  # noqa: E402, F401 (fixtures, after helpers they use)
