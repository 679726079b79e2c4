"""Files clarity writes for other programs (a slash command, timer units, a plist).

Each ends with a stamp line holding the sha256 of everything above it. A file
whose stamp still matches is clarity's, untouched: it may be replaced or
removed. A file without a matching stamp was edited by someone (or was never
clarity's): it is left alone unless the user says --force, and even then the
old text is kept beside it as `<name>.bak` (or `.bak.2`, `.bak.3`, ... : an earlier
backup is never replaced).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from clarity.errors import ClarityError
from clarity.fsio import move_aside, write_atomic

_STAMP = re.compile(r"clarity-managed sha256:([0-9a-f]{64})")
_MOST_BACKUPS = 1000  # name.bak ... name.bak.1000


class CommentStyle(StrEnum):
    HASH = "#"  # systemd units, shell
    XML = "<!--"  # Markdown, plists

    def line(self, text: str) -> str:
        return f"# {text}\n" if self is CommentStyle.HASH else f"<!-- {text} -->\n"


class Outcome(StrEnum):
    INSTALLED = "installed"
    UNCHANGED = "unchanged"
    UPDATED = "updated"
    REPLACED = "replaced"  # an edited file, with --force; its text kept as .bak
    REMOVED = "removed"
    ABSENT = "absent"


@dataclass(frozen=True, slots=True)
class Change:
    path: Path
    outcome: Outcome
    backup: Path | None = None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stamped(text: str, style: CommentStyle) -> str:
    """text with the stamp line that proves, later, that nobody changed it."""
    body = text if text.endswith("\n") else text + "\n"
    note = "clarity-managed sha256:" + _digest(body) + " (edit freely: clarity then leaves it be)"
    return body + style.line(note)


def is_untouched(text: str) -> bool:
    """True if text ends with a stamp that matches the text above it."""
    body, _, last = text.rstrip("\n").rpartition("\n")
    match = _STAMP.search(last)
    return match is not None and match.group(1) == _digest(body + "\n")


def _read(path: Path) -> str | None:
    """The text of a file clarity manages (or of the user's file in its place): a FIFO or a
    device there is an error, never a hang (settings_files.read_settings_text)."""
    from clarity.settings.files import read_settings_text

    try:
        return read_settings_text(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ClarityError(
            f"cannot read {path}: {error.strerror or error}; fix or move it, then try again"
        ) from None
    except UnicodeDecodeError:
        return ""  # not text: certainly not a file clarity wrote


def write_text(path: Path, text: str) -> None:
    """Text written whole (atomically), its folder made; a failure is one line.

    A file that is there already is written as it is: through a link to the file it
    points at (a settings.json kept with dotfiles stays a link), with its permissions
    (a 0600 file stays private), and not at all when it is read-only.
    """
    try:
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        mode = None
        if target.exists():
            if not os.access(target, os.W_OK):
                raise ClarityError(
                    f"{path} is read-only; make it writable to let clarity change it, "
                    "and run it again"
                )
            mode = stat.S_IMODE(target.stat().st_mode)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, text.encode("utf-8"), mode=mode)
    except OSError as error:
        raise ClarityError(
            f"cannot write {path}: {error.strerror or error}; check the folder's permissions"
        ) from None


def _keep_aside(path: Path) -> Path:
    """Move path to the first free name of name.bak, name.bak.2, name.bak.3, ...:
    an earlier backup (the user's text of an earlier --force) is never replaced."""
    try:
        return move_aside(path, ".bak", _MOST_BACKUPS)
    except OSError as error:
        raise ClarityError(
            f"cannot keep {path} as {path.name}.bak: {error.strerror or error}; "
            "remove the backups you do not need, then try again"
        ) from None


def _edited(path: Path, what: str) -> ClarityError:
    return ClarityError(
        f"{path} was changed since clarity wrote it (or is not clarity's); "
        f"clarity leaves it alone: use --force to {what} it (your text is kept beside it as "
        f"{path.name}.bak, or .bak.2, .bak.3, ... if that is taken)"
    )


def install(path: Path, text: str, style: CommentStyle, *, force: bool = False) -> Change:
    """Write text (stamped) to path, unless that would clobber someone's edits."""
    wanted = stamped(text, style)
    current = _read(path)
    if current is None:
        write_text(path, wanted)
        return Change(path, Outcome.INSTALLED)
    if current == wanted:
        return Change(path, Outcome.UNCHANGED)
    if is_untouched(current):
        write_text(path, wanted)
        return Change(path, Outcome.UPDATED)
    if not force:
        raise _edited(path, "replace")
    backup = _keep_aside(path)
    write_text(path, wanted)
    return Change(path, Outcome.REPLACED, backup)


def remove(path: Path, *, force: bool = False) -> Change:
    """Remove a file clarity wrote; an edited one only with force, and kept as .bak."""
    current = _read(path)
    if current is None:
        return Change(path, Outcome.ABSENT)
    if is_untouched(current):
        try:
            path.unlink()
        except OSError as error:
            raise ClarityError(f"cannot remove {path}: {error.strerror or error}") from None
        return Change(path, Outcome.REMOVED)
    if not force:
        raise _edited(path, "remove")
    return Change(path, Outcome.REMOVED, _keep_aside(path))
