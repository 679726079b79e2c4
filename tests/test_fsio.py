"""The file primitives: a move that never replaces, even racing a writer."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from clarity import fsio
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.processes import run_process


@pytest.fixture(params=["native", "link-unlink"])
def noreplace_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways to rename without replacing: the kernel's flag, and link + unlink."""
    if request.param == "link-unlink":
        monkeypatch.setattr(fsio, "_native", [None])
    elif fsio._native_rename() is None:
        pytest.skip("no renameat2 or renamex_np here")
    return str(request.param)


def test_a_rename_onto_an_existing_name_fails_and_keeps_both(
    tmp_path: Path, noreplace_kind: str
) -> None:
    make_files(tmp_path, {"a.md": "mine\n", "b.md": "theirs\n"})
    with pytest.raises(FileExistsError):
        fsio.rename_noreplace(tmp_path / "a.md", tmp_path / "b.md")
    assert (tmp_path / "a.md").read_text() == "mine\n"
    assert (tmp_path / "b.md").read_text() == "theirs\n"


def test_a_rename_onto_a_dangling_link_fails_too(tmp_path: Path, noreplace_kind: str) -> None:
    make_files(tmp_path, {"a.md": "mine\n"})
    (tmp_path / "b.md").symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError):
        fsio.rename_noreplace(tmp_path / "a.md", tmp_path / "b.md")
    assert (tmp_path / "a.md").read_text() == "mine\n"


def test_a_rename_to_a_free_name_moves_the_file_whole(tmp_path: Path, noreplace_kind: str) -> None:
    make_files(tmp_path, {"a.md": Plan("mine\n", 3)})
    mtime = (tmp_path / "a.md").stat().st_mtime_ns
    fsio.rename_noreplace(tmp_path / "a.md", tmp_path / "c.md")
    assert not (tmp_path / "a.md").exists()
    assert ((tmp_path / "c.md").read_text(), (tmp_path / "c.md").stat().st_mtime_ns) == (
        "mine\n",
        mtime,
    )


class Writer:
    """Another program creating, again and again, the names undo wants to put back.

    Each file it makes holds its own bytes; it reads them back before removing
    the file, so a file replaced under it is seen.
    """

    def __init__(self, folder: Path, names: list[str]) -> None:
        self.folder, self.names = folder, names
        self.made = 0
        self.replaced: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        mine = b"the writer's own bytes\n"
        while not self._stop.is_set():
            for name in self.names:
                path = self.folder / name
                try:
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                except OSError:
                    continue  # undo put its plan back here, or the name is busy
                os.write(fd, mine)
                os.close(fd)
                self.made += 1
                if path.read_bytes() != mine:
                    self.replaced.append(name)  # lost: something renamed over it
                    continue
                path.unlink()

    def __enter__(self) -> Writer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def test_undo_racing_a_writer_never_replaces_the_writers_file(
    plans_dir: Path, isolated_home: Path
) -> None:
    plans = {f"plan-{n:03d}.md": f"# Plan {n} COMPLETED\n\nbody {n}\n" for n in range(400)}
    make_files(plans_dir, {name: Plan(text, 20) for name, text in plans.items()})
    run_process("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO)
    assert run_process("apply", "--plans-dir", str(plans_dir), "--yes").exit_code == 0
    archive = plans_dir.parent / "plans-archive" / "2026-Q4"
    with Writer(plans_dir, list(plans)) as writer:
        undo = run_process("undo", "--plans-dir", str(plans_dir), "--yes")
    assert undo.exit_code in (0, 1), undo.stderr  # 1: some names were taken at the move
    assert writer.made > 0
    assert writer.replaced == []
    for name, text in plans.items():  # each plan is back, or still archived: never lost
        homes = [plans_dir / name, archive / name]
        assert text.encode() in [p.read_bytes() for p in homes if p.exists()], name


def test_write_new_takes_the_first_free_name_and_never_replaces_one(tmp_path: Path) -> None:
    from clarity.fsio import write_new

    names = [tmp_path / "plan.md", tmp_path / "plan-2.md", tmp_path / "plan-3.md"]
    names[0].write_bytes(b"theirs")
    assert write_new(names, b"mine", mtime=1_700_000_000) == names[1]
    assert names[0].read_bytes() == b"theirs" and names[1].read_bytes() == b"mine"
    assert names[1].stat().st_mtime == 1_700_000_000
    names[2].write_bytes(b"also theirs")
    with pytest.raises(FileExistsError):
        write_new(names, b"no room")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan-2.md", "plan-3.md", "plan.md"]
