"""The commands clarity suggests, written so that running one as printed acts on the same
plans (SPEC 6): the options that chose the directories are repeated, shell-quoted."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarity.settings.config import Settings

_DIR_OPTIONS = (("plans_dir", "--plans-dir"), ("archive_dir", "--archive-dir"))


def dir_options(settings: Settings) -> tuple[str, ...]:
    """The directory options this run was given, with their absolute values.

    Only options: a directory from the environment or the config file is
    chosen again by the same shell, and the default needs no words.
    """
    from clarity.settings.locations import Origin

    chosen: list[str] = []
    for key, option in _DIR_OPTIONS:
        if settings.sources[key].origin is Origin.OPTION:
            chosen += [option, str(getattr(settings, key))]
    return tuple(chosen)


@dataclass(frozen=True, slots=True)
class Again:
    """How to say a command again on the same plans (SPEC 6): the options that chose the
    directories, and, after a scan, those that shaped it (--now, thresholds...). Built by
    the entry point from what it was given and handed to the renderer beside a report:
    never inside a core value."""

    dirs: tuple[str, ...] = ()
    scan: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Settings, scan: Sequence[str] = ()) -> Again:
        return cls(dir_options(settings), tuple(scan))

    def command(self, verb: str, *args: str) -> str:
        """`clarity VERB ARGS...` with the directory options."""
        return clarity_command(verb, *args, options=self.dirs)


_GIVEN: set[str] = set()  # every command this run wrote into a text, for render.fit


def clarity_command(verb: str, *args: str, options: Sequence[str] = ()) -> str:
    """`clarity VERB ARGS... OPTIONS...`, each word quoted for a POSIX shell (a placeholder
    such as NAME... needs no quotes and gets none)."""
    command = " ".join(shell_quoted(word) for word in (program(), verb, *args, *options))
    _GIVEN.add(command)
    return command


@functools.cache
def program() -> str:
    """How to run the clarity that is running: `clarity` when that is what PATH finds,
    else the path it was run by (`.venv/bin/clarity` after README's first command), so
    that a hint pasted as printed runs (issue 36, item 6)."""
    ran = sys.argv[0] if sys.argv else ""
    if os.path.basename(ran) != "clarity" or os.sep not in ran:  # noqa: PTH119
        return "clarity"  # python -m clarity, a test, or run by its name from PATH
    found = shutil.which("clarity")
    if found is not None and os.path.realpath(found) == os.path.realpath(ran):
        return "clarity"
    return ran


def commands_given() -> frozenset[str]:
    """The commands clarity_command has written so far: text that is never broken in two
    when a line is fitted to the terminal, so that it can be pasted whole."""
    return frozenset(_GIVEN)


def shell_quoted(word: str) -> str:
    """shlex.quote, but a word with a control character (a tab or ESC in a file name) is
    written as bash and zsh's $'...' with escapes: printed as is, it would be escaped for
    the terminal and no longer name the file; written so, it still does when pasted."""
    if word.isprintable():
        return shlex.quote(word)
    return "$'" + "".join(_escaped(ch) for ch in word) + "'"


def _escaped(ch: str) -> str:
    """One character as bash and zsh read it inside $'...'."""
    if ch in "\\'":
        return "\\" + ch
    if ch.isprintable():
        return ch
    if "\udc80" <= ch <= "\udcff":  # a byte of a name that is not UTF-8: that byte
        return f"\\x{ord(ch) - 0xDC00:02x}"
    return ascii(ch)[1:-1]
