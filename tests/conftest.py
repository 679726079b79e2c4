"""The fixtures every test gets: a home, config, state and trash of its own, the CLI in-process,
a plans dir. What tests build their worlds from is in tests/builders/."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from clarity.cli import main
from tests.builders.processes import Result

# Fixtures that live in their own modules, made visible to every test.
from tests.builders.standins import real_crontab_kept, standins  # noqa: F401


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


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run clarity in-process, as the console script does, and capture what it prints."""

    def run(*args: str) -> Result:
        code = main(list(args))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def plans_dir(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "plans"
    directory.mkdir()
    yield directory


@pytest.fixture
def other_filesystem(tmp_path: Path) -> Iterator[Path]:
    """A folder on another filesystem than tmp_path (a tmpfs), or skip."""
    import tempfile

    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second filesystem to move across")
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        yield Path(folder)
