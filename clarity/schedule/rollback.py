"""An install the scheduler refuses leaves nothing behind (SPEC 9).

A unit or a plist is written before the scheduler is asked to load it, and
the state folder before either: when the scheduler says no, each file goes
back to what it was (absent, or its earlier text) and each folder made for
it is removed again, if it is still empty.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from clarity.errors import ClarityError


def make_dirs(folder: Path) -> list[Path]:
    """mkdir -p folder; the folders it made, deepest first."""
    made: list[Path] = []
    missing = folder
    while not missing.exists() and missing != missing.parent:
        made.append(missing)
        missing = missing.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        remove_dirs(made)
        raise ClarityError(
            f"cannot create {folder}: {error.strerror or error}; nothing was installed"
        ) from None
    return made


def remove_dirs(made: Iterable[Path]) -> None:
    """Remove folders make_dirs made, deepest first, those still empty."""
    for folder in made:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ClarityError(f"cannot read {path}: {error.strerror or error}") from None


def _put_back(path: Path, before: bytes | None) -> None:
    with contextlib.suppress(OSError):
        if before is None:
            path.unlink(missing_ok=True)
        else:
            from clarity.fsio import write_atomic

            write_atomic(path, before)


@contextlib.contextmanager
def undone_on_refusal(
    paths: Iterable[Path], settle: Callable[[bool], object] | None = None
) -> Iterator[None]:
    """Within: write paths and ask the scheduler. A ClarityError (the scheduler refused, a
    file could not be written) puts every path back as it was, calls settle (whether an
    earlier version is back) to tell the scheduler, and says so."""
    files = list(paths)
    before = {path: _read(path) for path in files}
    made = sorted(
        {folder for path in files for folder in _missing_parents(path)},
        key=lambda folder: len(folder.parts),
        reverse=True,
    )
    try:
        yield
    except ClarityError as error:
        for path, text in before.items():
            _put_back(path, text)
        remove_dirs(made)
        fresh = all(text is None for text in before.values())
        if settle is not None:
            with contextlib.suppress(ClarityError):
                settle(not fresh)
        left = "nothing was installed" if fresh else "the schedule was left as it was"
        raise ClarityError(f"{error.message}; {left}", error.exit_code) from None


def _missing_parents(path: Path) -> list[Path]:
    missing = []
    folder = path.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing
