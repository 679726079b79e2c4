"""The commands clarity suggests, written so that running one as printed acts on the same
plans (SPEC 6): the options that chose the directories are repeated, shell-quoted."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarity.config import Settings

_DIR_OPTIONS = (("plans_dir", "--plans-dir"), ("archive_dir", "--archive-dir"))


def dir_options(settings: Settings) -> tuple[str, ...]:
    """The directory options this run was given, with their absolute values.

    Only options: a directory from the environment or the config file is
    chosen again by the same shell, and the default needs no words.
    """
    chosen: list[str] = []
    for key, option in _DIR_OPTIONS:
        if settings.sources[key].startswith("option"):
            chosen += [option, str(getattr(settings, key))]
    return tuple(chosen)


def clarity_command(verb: str, *args: str, options: Sequence[str] = ()) -> str:
    """`clarity VERB ARGS... OPTIONS...`, each word quoted for a POSIX shell (a placeholder
    such as NAME... needs no quotes and gets none)."""
    return shlex.join(["clarity", verb, *args, *options])
