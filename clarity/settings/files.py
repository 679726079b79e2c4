"""Settings files a person writes: clarity's config.toml, Claude Code's settings.json
(issue 26).

Each is read only if it is a regular file (through a link: a user may keep theirs
in a dotfiles repository) of a sane size, so that a FIFO, /dev/zero or a link
loop in its place is an error, never a hang or a read without end.

clarity edits the user's settings.json to add its hook, and everything it does
not touch must be written back as the user wrote it. Python's json module
would not: it reads `1e999999` as inf and writes `Infinity` (which Claude
Code's parser rejects), and accepts and writes back `NaN`. So every number is
kept with its spelling, and NaN and Infinity, which are not JSON, make the
file unreadable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clarity.fsio import read_regular

SETTINGS_LIMIT = 4 << 20  # bytes: far past any settings file a person writes
_INDENT = "  "  # json.dumps(indent=2): what clarity has always written
# The containers dump_json has open: their items still to write (numbered, keyed when
# an object's) and the bracket that closes each.
_Stack = list[tuple[Iterator[tuple[int, tuple[str | None, Any]]], str]]


def read_settings_text(path: Path) -> str:
    """The text of the settings file at path. OSError: FileNotFoundError when there is
    none, EINVAL when it (or what it links to) is not a regular file, ELOOP for a link
    loop, EFBIG past SETTINGS_LIMIT; ValueError when it is not UTF-8."""
    return read_regular(path, SETTINGS_LIMIT, follow=True).decode("utf-8")


class SpeltInt(int):
    """A JSON integer that remembers how it was written (`-0`)."""

    text: str

    def __new__(cls, text: str) -> SpeltInt:
        number = super().__new__(cls, text)
        number.text = text
        return number


class SpeltFloat(float):
    """A JSON number with a fraction or an exponent, remembering how it was written
    (`1.10`, `1e999999`, which a float alone would write as `1.1` and `Infinity`)."""

    text: str

    def __new__(cls, text: str) -> SpeltFloat:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str) -> Any:
    """The JSON value in text, numbers kept as spelt; ValueError (one line) for text
    that is not strict JSON or is nested too deeply to read."""
    try:
        return json.loads(
            text, parse_int=SpeltInt, parse_float=SpeltFloat, parse_constant=_not_json
        )
    except RecursionError:  # deeper than Python's parser goes (some hundreds of levels)
        raise ValueError("nested too deeply to read") from None
    except ValueError as error:
        raise ValueError(f"not valid JSON ({error})") from None


def indent_of(text: str) -> str:
    """The indent a JSON text's own lines use (its first indented line's), so that a file
    clarity edits keeps it; two spaces for a file with none."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return _INDENT


def dump_json(value: Any, indent: str = _INDENT) -> str:
    """value as json.dumps(indent=2, ensure_ascii=False) writes it, but each number read
    by parse_json as it was spelt, and a lone surrogate (from a `\\ud800` in the file)
    escaped as it was rather than failing to encode.

    No recursion: whatever parse_json could read, however deep, this can write.
    """
    out: list[str] = []
    stack: _Stack = []
    _write(value, out, stack)
    while stack:
        items, close = stack[-1]
        entry = next(items, None)
        if entry is None:
            stack.pop()
            out.append("\n" + indent * len(stack) + close)
            continue
        index, (key, item) = entry
        out.append(("," if index else "") + "\n" + indent * len(stack))
        if key is not None:
            out.append(_string(key) + ": ")
        _write(item, out, stack)
    return "".join(out) + "\n"


def _write(value: Any, out: list[str], stack: _Stack) -> None:
    """A value's text, or the opening of a container whose items the stack then holds."""
    if isinstance(value, dict) and value:
        out.append("{")
        stack.append((enumerate(value.items()), "}"))
    elif isinstance(value, list) and value:
        out.append("[")
        stack.append((enumerate((None, item) for item in value), "]"))
    elif isinstance(value, SpeltInt | SpeltFloat):
        out.append(value.text)
    elif isinstance(value, str):
        out.append(_string(value))
    else:  # {} [] true false null, or a number of clarity's own
        out.append(json.dumps(value, allow_nan=False))


def _string(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: written as the escape it was read from
        return json.dumps(text, ensure_ascii=True)
    return json.dumps(text, ensure_ascii=False)
