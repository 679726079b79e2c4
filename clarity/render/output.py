"""The only way clarity's text reaches stdout and stderr.

Lines for a person are escaped here (clarity.printable), one output line per
line given; JSON is written exact. What rich draws goes through
render.console.PlainConsole, which escapes each string the same way. A write
that fails (stdout on a full disk) is one error line and exit 2, never a
traceback; a reader that goes away (`clarity scan | head`) ends the run quietly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from clarity.errors import ClarityError
from clarity.printable import printable_lines


class ReaderGone(Exception):
    """stdout's reader went away (`clarity scan | head`): main ends the run quietly.

    Not an OSError, which click would catch first and turn into exit 1.
    """


def cannot_write(error: OSError) -> Exception:
    """What main should hear of a failed write to stdout."""
    if isinstance(error, BrokenPipeError):
        return ReaderGone()
    return ClarityError(f"cannot write the report: {error.strerror or error}")


def _write(text: str) -> None:
    """Written through: a report that does not fit fails here, before any note after it."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as error:
        raise cannot_write(error) from None


def _note(text: str) -> None:
    """stderr holds notes beside the report: one it cannot take does not stop the run."""
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def say(lines: Iterable[str], *, err: bool = False, fitted: bool = True) -> None:
    """Lines for a person (a report, a note, a question), each escaped: one line each; on
    a terminal, each broken between words to its width (never inside a command), unless
    not fitted (Markdown, whose lines are its syntax)."""
    width = terminal_width(sys.stderr if err else sys.stdout) if fitted else None
    if width is None:
        (_note if err else _write)(printable_lines(lines))
        return
    from clarity.printable import printable
    from clarity.render.fit import fit_lines

    shown = fit_lines((printable(line) for line in lines), width)
    (_note if err else _write)("".join(line + "\n" for line in shown))


def terminal_width(stream: Any) -> int | None:
    """The columns of the terminal a stream writes to (COLUMNS, if set, says); None when
    it is not a terminal: a pipe or a file gets whole lines, for scripts and logs."""
    try:
        if not stream.isatty():
            return None
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() else os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None
    return max(width, 20)


def say_text(text: str, *, err: bool = False) -> None:
    """Text a renderer made of lines (Markdown, help): split at its newlines only, each
    line escaped, none broken (its lines are its own)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    say(lines, err=err, fitted=False)


def send_drawn(text: str) -> None:
    """What a render.console.PlainConsole drew (each string escaped as it drew it), sent on
    as it is: for the pager's short texts, captured before they are shown."""
    _write(text)


def send_json(document: Any) -> None:
    """A JSON document on stdout: exact, names and all."""
    from clarity.render.json_report import dumps

    _write(dumps(document))


def send_pieces(pieces: Iterable[str]) -> None:
    """A document on stdout a piece at a time (scan --json of 100,000 plans), written as
    it is made: never held whole."""
    try:
        for piece in pieces:
            sys.stdout.write(piece)
        sys.stdout.flush()
    except OSError as error:
        raise cannot_write(error) from None


def send_bytes(data: bytes) -> None:
    """A file's bytes on stdout, exactly (`clarity show NAME | ...`): for a pipe or a file,
    never a terminal, which would obey the control characters in them."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError as error:
        raise cannot_write(error) from None


def flush() -> None:
    """Flush stdout while main can still say why it failed (not at exit, as a traceback)."""
    try:
        sys.stdout.flush()
    except OSError as error:
        raise cannot_write(error) from None


def settle() -> None:
    """After the run: what stdout still holds goes out, or, when it cannot (the reader has
    gone, the disk is full), to /dev/null, so Python's own flush at exit has nothing left
    to fail on."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            fileno = sys.stdout.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fileno)
            os.close(devnull)
        except (OSError, ValueError):  # io.UnsupportedOperation is both
            pass
