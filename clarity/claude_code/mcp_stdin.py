"""The MCP server's stdin, each line's lone surrogate escapes made U+FFFD before the SDK
reads it (issue 36, H4).

`"\\ud800"` is valid JSON text, but the SDK's parser (pydantic-core) refuses a string
holding a lone surrogate, and the request then gets no answer at all: the client waits
forever. So a thread reads the real stdin line by line, repairs each, and hands it on
through a pipe that becomes sys.stdin; the tool then answers (a name no plan has, a
query that is not text) in clarity's one line.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from typing import BinaryIO

# A \uD800-\uDFFF escape after an even run of backslashes (else the backslash is escaped
# itself), unless it is the high half of a pair whose low half follows, or such a low half.
_LONE = re.compile(
    rb"(?<!\\)((?:\\\\)*)"
    rb"(?:\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def repaired(line: bytes) -> bytes:
    """The line with each lone surrogate escape written as \\ufffd."""
    if b"\\u" not in line:
        return line
    return _LONE.sub(lambda match: match.group(1) + rb"\ufffd", line)


def _pump(source: BinaryIO, sink: int) -> None:
    try:
        for line in source:
            data = repaired(line)
            while data:
                data = data[os.write(sink, data) :]
    except OSError:
        pass  # the server went first: nothing left to hand on
    finally:
        os.close(sink)


def repair_stdin() -> None:
    """Put the repairing pipe in sys.stdin's place (before the SDK opens it)."""
    reader, writer = os.pipe()
    source = sys.stdin.buffer
    threading.Thread(target=_pump, args=(source, writer), daemon=True).start()
    sys.stdin = os.fdopen(reader, "r", encoding="utf-8", errors="replace")
