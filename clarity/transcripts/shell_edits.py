"""Files a Bash tool call edited in place: `sed -i` and `perl -i`, the way sessions edit
when an Edit failed (seen in real transcripts).

Only these in-place editors count: a command that merely runs (tests, git,
a build) edits nothing here, and one that writes through a redirection is
not told apart from one that writes a log. A command that cannot be split
(unbalanced quotes) edits nothing. Relative paths are taken from the
session's working directory.
"""

from __future__ import annotations

import posixpath
import re
import shlex

_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
_SED_VALUE_OPTIONS = frozenset({"-e", "-f", "--expression", "--file", "-l", "--line-length"})
_PERL_VALUE_OPTIONS = frozenset({"-e", "-E", "-M", "-m", "-I"})


def _in_place(name: str, words: list[str]) -> list[str]:
    """The files one simple command edits in place (none unless it is sed -i or perl -i)."""
    program = posixpath.basename(name)
    if program in ("sed", "gsed"):
        value_options = _SED_VALUE_OPTIONS
    elif program == "perl":
        value_options = _PERL_VALUE_OPTIONS
    else:
        return []
    flags = [word for word in words if word.startswith("-") and not word.startswith("--")]
    if not (any("i" in flag for flag in flags) or any(w.startswith("--in-place") for w in words)):
        return []
    operands: list[str] = []
    script_given = skip = False
    for word in words:
        if skip:
            skip = False
        elif word in value_options:
            script_given = script_given or word in ("-e", "-E", "--expression", "-f", "--file")
            skip = True
        elif word.startswith("-") and len(word) > 1:
            if program == "perl" and not word.startswith("--") and word.endswith("e"):
                script_given = skip = True  # -pe, -pie: the script follows
        elif word:  # '' is BSD sed's empty backup suffix (sed -i '' ...)
            operands.append(word)
    return operands if script_given else operands[1:]  # else the first operand is the script


def files_edited(command: object, cwd: object) -> list[str]:
    """The files (absolute, when cwd is) that a Bash command edits in place."""
    if not isinstance(command, str):
        return []
    found: list[str] = []
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            return []  # unbalanced quotes: not a command to read
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]  # VAR=value before the program
        if not words:
            continue
        for path in _in_place(words[0], words[1:]):
            if not posixpath.isabs(path) and isinstance(cwd, str) and posixpath.isabs(cwd):
                path = posixpath.normpath(posixpath.join(cwd, path))
            found.append(path)
    return found
