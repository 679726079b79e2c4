"""The rich console clarity draws with: every string it renders is shown escaped.

rich turns each string it is given (a table cell, a printed line, a title)
into text through Console.render_str; this console escapes the string first
(clarity.printable) and never reads it as markup (`[bold]` in a file name) or
emoji codes (`:warning:`). The renderers hand it strings, not Text built
elsewhere, so nothing they show skips the escape. A write that fails is one
error (clarity.render.output), and a reader that went away ends the run quietly.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, HighlighterType, JustifyMethod, OverflowMethod
from rich.style import Style
from rich.text import Text

from clarity.printable import printable
from clarity.render.output import ReaderGone, cannot_write


class PlainConsole(Console):
    def render_str(
        self,
        text: str,
        *,
        style: str | Style = "",
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        highlighter: HighlighterType | None = None,
    ) -> Text:
        return super().render_str(
            printable(text),
            style=style,
            justify=justify,
            overflow=overflow,
            emoji=False,
            markup=False,
            highlight=highlight,
            highlighter=highlighter,
        )

    def on_broken_pipe(self) -> None:
        """The reader went away: main ends the run quietly (rich itself exits with 1)."""
        self.quiet = True
        raise ReaderGone

    def _check_buffer(self) -> None:  # where rich writes and flushes what it drew
        try:
            super()._check_buffer()
        except OSError as error:
            self.quiet = True  # nothing more is tried on a stream that failed
            raise cannot_write(error) from None


def plain_console(**options: Any) -> PlainConsole:
    """A console for a report: no automatic highlighting (the report styles what matters
    itself, and rich's highlighter compiles a score of regexes: 9 ms of each run)."""
    return PlainConsole(highlight=False, markup=False, emoji=False, **options)


def print_prose(console: PlainConsole, text: str) -> None:
    """A line of prose on the console: on a terminal, broken between words to its width
    (never inside a command, render.fit); whole for a pipe or a file."""
    from clarity.render.fit import fit

    parts = fit(printable(text), console.width) if console.is_terminal else [text]
    for part in parts:
        console.print(part, soft_wrap=True)
