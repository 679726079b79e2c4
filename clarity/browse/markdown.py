"""A plan's Markdown as HTML that cannot run: plan text is untrusted (SPEC 9.3).

markdown-it-py (it comes with rich) with raw HTML off, so `<script>` or
`<img onerror=...>` in a plan is text; its link check drops `javascript:`,
`vbscript:`, `file:` and `data:` targets. An image is shown as a link to it,
never fetched: a plan must not make the page send a request out. Task-list
items (`- [x] done`) get a disabled checkbox.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

_TASK = re.compile(r"\[([ xX])\]\s")
MAX_NESTING = 100  # markdown-it's levels: past them it drops the text, so deeper is flagged
# A line opening more quotes or list items than MAX_NESTING leaves room for (a list item
# takes two levels, its paragraph a third): the page says to read the plain text.
_TOO_DEEP = re.compile(
    r"^(?:(?:[ \t]*(?:>|[-*+]|\d{1,9}[.)])[ \t]*){30,}|[ \t]{60,}(?:>|[-*+]|\d{1,9}[.)]))",
    re.MULTILINE,
)


def _tasks(state: StateCore) -> None:
    """`[ ] ` or `[x] ` opening a list item's first paragraph: a checkbox, disabled."""
    tokens = state.tokens
    for index in range(2, len(tokens)):
        token = tokens[index]
        if (
            token.type != "inline"
            or tokens[index - 1].type != "paragraph_open"
            or tokens[index - 2].type != "list_item_open"
            or not token.children
            or token.children[0].type != "text"
        ):
            continue
        first = token.children[0]
        matched = _TASK.match(first.content)
        if matched is None:
            continue
        first.content = first.content[matched.end() :]
        box = Token("task_box", "", 0)
        box.meta = {"done": matched.group(1) != " "}
        token.children.insert(0, box)
        tokens[index - 2].attrSet("class", "task")


def _task_box(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    done = " checked" if tokens[idx].meta.get("done") else ""
    return f'<input type="checkbox" disabled{done}> '


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    source = token.attrGet("src") or ""
    from html import escape

    return (
        f'<a class="image" href="{escape(str(source))}" rel="noreferrer">[image: {escape(alt)}]</a>'
    )


def _link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("rel", "noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


def _parser() -> MarkdownIt:
    parser = MarkdownIt(
        "commonmark",
        {"html": False, "linkify": False, "typographer": False, "maxNesting": MAX_NESTING},
    )
    parser.enable(["table", "strikethrough"])
    parser.core.ruler.push("task_lists", _tasks)
    parser.add_render_rule("task_box", _task_box)
    parser.add_render_rule("image", _image)
    parser.add_render_rule("link_open", _link_open)
    return parser


_PARSER = _parser()


@functools.lru_cache(maxsize=16)  # a page opened again, or by many at once, is made once
def to_html(text: str) -> str:
    """The plan's Markdown as HTML: every character of it escaped or rendered, none run."""
    html: Any = _PARSER.render(text)
    return str(html)


def too_deep(text: str) -> bool:
    """Whether the plan nests deeper than the rendered page can show (its plain text can)."""
    return _TOO_DEEP.search(text) is not None
