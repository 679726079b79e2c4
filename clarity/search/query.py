"""What a person typed, as the index is asked (pure: no I/O).

Words of three characters or more go to FTS5's trigram index as quoted
strings, all of them required: a substring of any case matches, in any
script (CJK included), and FTS5 ranks the rows by BM25. A shorter word
(`ui`, the two characters of 検索) is below a trigram: it is matched with
LIKE over the same text, which reads every row but finds it all the same.
"""

from __future__ import annotations

from typing import NamedTuple

TRIGRAM = 3


class Terms(NamedTuple):
    indexed: tuple[str, ...]  # matched through the trigram index, ranked
    short: tuple[str, ...]  # matched with LIKE

    @property
    def match(self) -> str | None:
        """The FTS5 MATCH expression of the indexed words, or None."""
        if not self.indexed:
            return None
        return " AND ".join('"' + word.replace('"', '""') + '"' for word in self.indexed)

    def like_patterns(self) -> list[str]:
        return ["%" + _escaped(word) + "%" for word in self.short]


def terms(query: str, *, phrase: bool = False) -> Terms:
    """The words of a query (or, phrase: the whole query as one string, as `archived` has
    always matched it)."""
    words = [query.strip()] if phrase else query.split()
    words = [word for word in words if word]
    return Terms(
        tuple(word for word in words if len(word) >= TRIGRAM),
        tuple(word for word in words if len(word) < TRIGRAM),
    )


LIKE_ESCAPE = "\\"


def _escaped(word: str) -> str:
    """A word for LIKE: its own % and _ matched as themselves."""
    return "".join(LIKE_ESCAPE + ch if ch in "%_\\" else ch for ch in word)
