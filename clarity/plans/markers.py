"""Terminal markers (SPEC 4): compiled once, matched against one line at a time.

- A marker written in capitals matches only in capitals; others in any case.
- A marker is a whole phrase: no letter or digit directly before or after it.
- `--` also matches an en or em dash, and the space after it is optional;
  any other space matches any run of white space.
- A phrase (a marker of several words) that goes on to a purpose is not
  terminal: "No further planning required to start P1." says the plan is
  ready to start, not done.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

COMPLETED_STATUSES = frozenset({"completed", "complete", "done", "finalized"})

# [^\W_] is "a letter or a digit" in any script: \w without the underscore.
_NOT_AFTER_ALNUM = r"(?<![^\W_])"
_NOT_BEFORE_ALNUM = r"(?![^\W_])"
_DASH = "(?:--|\u2013|\u2014)"


# What makes a phrase marker a precondition rather than an end: it goes on to
# what comes next ("required to start P1", "needed before we begin"), or says
# the plan is ready for it ("; ready for implementation").
_PURPOSE = re.compile(  # matched right after the marker, within its sentence
    r"""[^.;!?]*?\b(?:
        (?:to|then)\s+(?:start|begin|proceed|implement|kick|continue|move|go|get\s+started|
            work|execute|tackle|launch|build|resume|code|develop|commence)\b
        | (?:before|until|prior\s+to|in\s+order\s+to)\s+\w
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_READY = re.compile(r"\bready\s+(?:to|for)\b", re.IGNORECASE)  # anywhere after the marker


class Marker(NamedTuple):
    text: str  # as configured: what a reason quotes
    pattern: re.Pattern[str]
    # Its longest ASCII word, lowercased: an ASCII line without it cannot match.
    # None when there is no such word (or the marker is not ASCII): always search.
    keyword: str | None = None
    phrase: bool = False  # several words: may go on to a purpose (see _PURPOSE)

    def found_in(self, line: str) -> bool:
        """Whether the line ends a plan with this marker (a phrase's purpose excepted)."""
        for match in self.pattern.finditer(line):
            end = match.end()
            if not (self.phrase and (_PURPOSE.match(line, end) or _READY.search(line, end))):
                return True
        return False


def _is_capitals(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and all(ch.isupper() for ch in letters)


def _phrase_pattern(text: str) -> str:
    parts: list[str] = []
    index = 0
    while index < len(text):
        if text.startswith("--", index):
            parts.append(_DASH + r"\s*")
            index += 2
            # the configured space after `--` is what `\s*` stands for
            while index < len(text) and text[index].isspace():
                index += 1
        elif text[index].isspace():
            parts.append(r"\s+")
            while index < len(text) and text[index].isspace():
                index += 1
        else:
            parts.append(re.escape(text[index]))
            index += 1
    return _NOT_AFTER_ALNUM + "".join(parts) + _NOT_BEFORE_ALNUM


def _keyword(text: str) -> str | None:
    if not text.isascii():
        return None
    words = re.findall(r"[A-Za-z0-9]+", text)
    return max(words, key=len).lower() if words else None


def compile_marker(text: str) -> Marker:
    flags = 0 if _is_capitals(text) else re.IGNORECASE
    pattern = re.compile(_phrase_pattern(text.strip()), flags)
    phrase = len(text.split()) > 1 and not text.lstrip().startswith("--")
    return Marker(text=text, pattern=pattern, keyword=_keyword(text), phrase=phrase)


def compile_markers(texts: Iterable[str]) -> tuple[Marker, ...]:
    return tuple(compile_marker(text) for text in texts if text.strip())


def first_marker(markers: Iterable[Marker], line: str | None) -> Marker | None:
    if not line:
        return None
    lowered = line.lower() if line.isascii() else None
    for marker in markers:
        if lowered is not None and marker.keyword is not None and marker.keyword not in lowered:
            continue  # most lines: a substring test rules the marker out, no regex search
        if marker.found_in(line):
            return marker
    return None
