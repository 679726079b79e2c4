"""The extractive summary of a plan (SPEC 8, without the agent): pure text in, text out.

The first meaningful paragraph of the body, shortened: not frontmatter, not
a heading, not a code block, table or rule. A plan that is only a checklist
is summarised by its first items.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SUMMARY_CHARS = 320

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE = re.compile(r"^\s*\|")
_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?")
# Emphasis marks where they open or close a run, never inside a word or a code span
# (`__init__` stays as it is written).
_INLINE = re.compile(r"(?<!\w)(\*\*|__)(?=\S)|(?<=\S)(\*\*|__)(?!\w)")
_CODE = re.compile(r"`+([^`]*)`+")  # its text kept as written, the backticks dropped
# A link's text for the link, its address holding a pair of brackets at most (a
# wikipedia address: `Foo_(bar)`) and a title, if any.
_LINK = re.compile(r"(!?)\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")


def _body_lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").split("\n")
    if lines and lines[0].strip() == "---":
        for index, line in enumerate(lines[1:], start=1):
            if line.strip() in ("---", "..."):
                return lines[index + 1 :]
    return lines


def _blocks(lines: list[str]) -> Iterator[list[str]]:
    """Paragraph-like blocks, with fenced code, headings, rules and tables dropped.

    Found one at a time: a summary needs only the first prose block, and a
    long plan's opening holds many.
    """
    current: list[str] = []
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
        elif (
            in_fence
            or not line.strip()
            or _HEADING.match(line)
            or _RULE.match(line)
            or _TABLE.match(line)
        ):
            pass
        elif _SETEXT.match(line) and current:
            current = []  # the lines above were a setext heading
            continue
        else:
            current.append(line.strip())
            continue
        if current:
            yield current
            current = []
    if current:
        yield current


def _plain(text: str) -> str:
    pieces = _CODE.split(_LINK.sub(r"\2", text))  # prose, code, prose, code, ...
    plain = "".join(p if n % 2 else _INLINE.sub("", p) for n, p in enumerate(pieces))
    return " ".join(plain.split())


def shorten(text: str, limit: int = SUMMARY_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "\u2026"


def extract_summary(text: str, limit: int = SUMMARY_CHARS) -> str:
    """One short paragraph saying what the plan is about ('' if it has no prose)."""
    first: list[str] | None = None
    for block in _blocks(_body_lines(text)):
        if not all(_LIST_ITEM.match(line) for line in block):
            return shorten(_plain(" ".join(block)), limit)
        first = first or block
    if first:  # only lists: their first items say what was planned
        items = [_plain(_LIST_ITEM.sub("", line, count=1)) for line in first]
        return shorten("; ".join(item for item in items if item), limit)
    return ""
