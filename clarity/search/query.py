"""What a person typed, as the index is asked (pure: no I/O).

The index tokenizes words as FTS5's unicode61 does (letters and digits, any
case, diacritics aside). Each word typed is required, as a prefix: `cach`
finds cache and caching, `cache-layer` the two words in a row. A word with
no letter or digit (`%`, `'`) or in a script written without spaces (CJK,
Thai: 検索 inside 全文検索の索引) is matched with LIKE over the same text
instead, which reads every row but finds a substring anywhere. Nothing typed
is ever FTS5 syntax: every word is quoted.
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

LIKE_ESCAPE = "\\"
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR")


class Terms(NamedTuple):
    indexed: tuple[str, ...]  # matched through the index, ranked (BM25)
    short: tuple[str, ...]  # matched with LIKE, as substrings

    @property
    def match(self) -> str | None:
        """The FTS5 MATCH expression of the indexed words, or None."""
        if not self.indexed:
            return None
        return " AND ".join('"' + word.replace('"', '""') + '"*' for word in self.indexed)

    def like_patterns(self) -> list[str]:
        return ["%" + _escaped(word) + "%" for word in self.short]


def terms(query: str, *, phrase: bool = False) -> Terms:
    """The words of a query (or, phrase: the whole query as one string)."""
    words = [query.strip()] if phrase else query.split()
    words = [word for word in words if word]
    return Terms(
        tuple(word for word in words if _tokenized(word)),
        tuple(word for word in words if not _tokenized(word)),
    )


def _tokenized(word: str) -> bool:
    """Whether the index's words can find this one: it has a letter or a digit, and none
    of a script written without spaces between words."""
    alphanumeric = [ch for ch in word if ch.isalnum()]
    if not alphanumeric:
        return False
    return not any(unicodedata.name(ch, "").startswith(_UNSPACED) for ch in alphanumeric)


def _escaped(word: str) -> str:
    """A word for LIKE: its own % and _ matched as themselves."""
    return "".join(LIKE_ESCAPE + ch if ch in "%_\\" else ch for ch in word)
