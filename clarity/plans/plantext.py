"""Parse what the rules need out of a plan's head and tail text (SPEC 3).

Pure functions on text already read and decoded; the reader decides how much
of a file that is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from clarity.model import Frontmatter, TextStatus

_FRONTMATTER_OPEN = re.compile(r"-{3,}[ \t]*\r?(?:\n|$)")
_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_H1_UNDERLINE = re.compile(r"^ {0,3}=+[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BLOCK_START = re.compile(  # a quote, list item, thematic break or setext H2 underline
    r"^ {0,3}(?:>|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[-*_]{3,}[ \t]*$|-+[ \t]*$)"
)
_TRUE_WORDS = frozenset({"true", "yes", "on"})
_SECTION = re.compile(r"^ {0,3}#{2,6}(?:[ \t]|$)")  # a heading below the title
STUB_LINES = 2  # "a title and a line or two"


class HeadFacts(NamedTuple):
    frontmatter: Frontmatter
    title: str | None
    warnings: tuple[str, ...]
    body: str  # the text after any frontmatter: where status fields are looked for


class FrontmatterUnclosed(Exception):
    """The head opens a frontmatter block that does not close within it."""


def opens_frontmatter(text: str) -> bool:
    return _FRONTMATTER_OPEN.match(text) is not None


def split_frontmatter(text: str) -> tuple[str, str]:
    """Return (yaml block, body); raise FrontmatterUnclosed if the block never closes."""
    from frontmatter.default_handlers import YAMLHandler  # lazy: pulls in yaml

    try:
        block, body = YAMLHandler().split(text)
    except ValueError as error:  # python-frontmatter's word for "no closing ---"
        raise FrontmatterUnclosed from error
    return block, body


# A block of `key: plain-word` lines reads the same to any YAML parser: a str
# per key. The rest (quotes, lists, nesting, null, booleans, numbers) goes to
# PyYAML, the parser python-frontmatter uses. Most plans with frontmatter have
# only simple lines, and PyYAML takes about 50 us on each.
_SIMPLE_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ \t]+([A-Za-z][A-Za-z0-9_. -]*?)[ \t]*")
_NOT_PLAIN_WORDS = frozenset(
    ["null", "true", "false", "yes", "no", "on", "off", "y", "n"]
)  # YAML 1.1 reads these as null or a bool, not as the word


def _simple_mapping(block: str) -> dict[str, str] | None:
    mapping: dict[str, str] = {}
    for line in block.split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        match = _SIMPLE_LINE.fullmatch(line)
        if match is None or match.group(2).lower() in _NOT_PLAIN_WORDS:
            return None
        mapping[match.group(1)] = match.group(2)
    return mapping


def _load_yaml(block: str) -> Any:
    simple = _simple_mapping(block)
    if simple is not None:
        return simple or None
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it
    return yaml.load(block, Loader=loader)  # a safe loader: plans are data


def _frontmatter_keys(metadata: Any) -> tuple[Frontmatter, tuple[str, ...]]:
    if metadata is None:
        return Frontmatter(), ()
    if not isinstance(metadata, dict):
        return Frontmatter(), ("frontmatter is not a key: value mapping; ignored",)
    status = metadata.get("status")
    pinned = metadata.get("pinned")
    return (
        Frontmatter(
            status=None if status is None else str(status),
            pinned=pinned is True or (isinstance(pinned, str) and pinned.lower() in _TRUE_WORDS),
            todos=_todos(metadata.get("todos")),
        ),
        (),
    )


def _todos(value: Any) -> TextStatus | None:
    """What a `todos:` list says: done when every item's status is `completed` (Cursor
    marks each so as the work is done: pending, in_progress, completed, cancelled). An
    empty list, or one whose items carry no status, says nothing."""
    if not isinstance(value, list):
        return None
    items = [item.get("status") for item in value if isinstance(item, dict)]
    statuses = [status for status in items if isinstance(status, str)]
    if not statuses or len(statuses) != len(items):
        return None
    done = sum(status.strip().lower() == "completed" for status in statuses)
    evidence = f"frontmatter todos: {done}/{len(statuses)} completed"
    return TextStatus(evidence, done == len(statuses), binding=True)


def parse_frontmatter(text: str) -> tuple[Frontmatter, str, tuple[str, ...]]:
    """Frontmatter keys, the body after the block, and warnings.

    Malformed YAML is ignored with a warning and the plan is classified on the
    body after the block. Raises FrontmatterUnclosed when the block never
    closes, so the reader can read further before giving up.
    """
    if not opens_frontmatter(text):
        return Frontmatter(), text, ()
    block, body = split_frontmatter(text)
    try:
        metadata = _load_yaml(block)
    except Exception as error:  # noqa: BLE001 - any YAML failure is the plan's problem, not ours
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return Frontmatter(), body, (f"malformed frontmatter ignored: {first_line}",)
    frontmatter, warnings = _frontmatter_keys(metadata)
    return frontmatter, body, warnings


_STRUCTURE_KEYS = frozenset({"id", "status"})  # a todo's bookkeeping: no words of the plan
# Values looked at in one frontmatter: YAML's aliases make a few lines a tree of a
# billion nodes (numbers, no words), so the walk is bounded by what it visits.
_NODES_MOST = 10_000


def searchable_text(text: str) -> str:
    """The text as search indexes it: a frontmatter block's words without its YAML (keys,
    dashes, a todo's id and status), so that a hit's snippet reads as the plan does
    (Cursor's name, overview and todos), then the body. A block that does not parse is
    kept as written."""
    if not opens_frontmatter(text):
        return text
    try:
        block, body = split_frontmatter(text)
        metadata = _load_yaml(block)
    except Exception:  # noqa: BLE001 - unclosed or malformed: searched as written
        return text
    words: list[str] = []
    stack: list[Any] = [metadata]
    visited = 0
    while stack and visited < _NODES_MOST:
        visited += 1
        value = stack.pop()
        if isinstance(value, str):
            if value.strip():
                words.append(value.strip())
        elif isinstance(value, dict):
            kept = [v for k, v in value.items() if str(k) not in _STRUCTURE_KEYS]
            stack.extend(reversed(kept))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return "\n".join(words) + ("\n\n" if words else "") + body


def _lines(text: str) -> Iterator[str]:
    """The lines of text, found one at a time: the H1 is usually the first."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def find_h1(body: str) -> str | None:
    """Text of the first level-1 heading (ATX or setext), outside code blocks."""
    end = body.find("\n")
    first = (body if end < 0 else body[:end]).rstrip("\r")
    if first[:2] in ("# ", "#\t") and first[-1] not in "# \t":
        return first[2:].strip() or None  # most plans: what _ATX_HEADING finds, without it
    fence: str | None = None
    paragraph: list[str] = []  # the open paragraph: what a setext underline would title
    for raw in _lines(body):
        line = raw.rstrip("\r")
        fence_match = _FENCE.match(line)
        if fence is not None:
            marker = fence_match.group(1) if fence_match else ""
            if marker[:1] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence_match:
            fence, paragraph = fence_match.group(1), []
        elif not line.strip() or (not paragraph and line.startswith("    ")):
            paragraph = []  # a blank line, or an indented code line
        elif atx := _ATX_HEADING.match(line):
            if len(atx.group(1)) == 1:
                return (atx.group(2) or "").strip() or None
            paragraph = []
        elif paragraph and _SETEXT_H1_UNDERLINE.match(line):
            return " ".join(part.strip() for part in paragraph)
        elif _BLOCK_START.match(line):
            paragraph = []  # a list item, quote, thematic break or setext H2 underline
        else:
            paragraph.append(line)
    return None


def is_stub(body: str) -> bool:
    """Whether a plan's body (after its frontmatter) is a stub, not a real plan: no
    section heading (plan mode writes Context, Changes, Verification...) and no more
    than STUB_LINES lines besides its title. A title and TODO, a title alone, an empty
    file and a checkbox line are stubs."""
    lines = 0
    for raw in _lines(body):
        line = raw.strip()
        if not line or _SETEXT_H1_UNDERLINE.match(raw) or line == "#" or line.startswith("# "):
            continue  # blank, or the title
        if _SECTION.match(raw):
            return False
        lines += 1
        if lines > STUB_LINES:
            return False
    return True


def last_nonblank_line(text: str) -> str | None:
    """The last line that has a non-space character, stripped."""
    text = text.rstrip()
    return text[text.rfind("\n") + 1 :].strip() or None


def parse_head(text: str) -> HeadFacts:
    """Frontmatter and H1 from a plan's head. May raise FrontmatterUnclosed."""
    frontmatter, body, warnings = parse_frontmatter(text)
    return HeadFacts(frontmatter=frontmatter, title=find_h1(body), warnings=warnings, body=body)


def parse_head_unclosed(text: str, why: str) -> HeadFacts:
    """The head of a plan whose frontmatter never closes: classified on its whole text."""
    return HeadFacts(frontmatter=Frontmatter(), title=find_h1(text), warnings=(why,), body=text)
