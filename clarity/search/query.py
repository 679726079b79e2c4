"""What a person typed, as the index is asked (pure: no I/O).

The index tokenizes words as FTS5's unicode61 does (letters and digits, any
case, diacritics aside). Each word typed is required, as a prefix: `cach`
finds cache and caching, `cache-layer` the two words in a row; a word that
ends in a sign (`C++`, `auth:`) is matched whole, not as a prefix (`c*` would
find every plan). A word led by `-` (`-cache`) leaves out the plans that hold
it. A word in a script written without spaces (CJK, Thai: 検索 inside
全文検索の索引), or one of signs alone (`%`), is matched with LIKE over the
same text instead, which reads every row but finds a substring anywhere.
Nothing typed is ever FTS5 syntax: every word is quoted. A word typed twice
is asked once, and a query has at most MOST_WORDS words and MOST_CHARS
characters (FTS5's time grows with the square of the words).
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

LIKE_ESCAPE = "\\"
MOST_WORDS = 32
MOST_CHARS = 4096
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR")


class QueryError(ValueError):
    """A query that cannot be asked; its text says why and what to type instead (one line,
    never echoing what was typed: it may not even be text)."""


class Terms(NamedTuple):
    indexed: tuple[str, ...]  # matched through the index, ranked (BM25)
    short: tuple[str, ...]  # matched with LIKE, as substrings
    left_out: tuple[str, ...] = ()  # words a hit must not hold (typed as -word), indexed
    left_out_short: tuple[str, ...] = ()  # ... matched with LIKE

    @property
    def match(self) -> str | None:
        """The FTS5 MATCH expression of the indexed words, or None."""
        if not self.indexed:
            return None
        found = " AND ".join(_quoted(word) for word in self.indexed)
        return " NOT ".join([found, *(_quoted(word) for word in self.left_out)])

    def like_patterns(self) -> list[str]:
        return ["%" + _escaped(word) + "%" for word in self.short]

    def unlike_patterns(self) -> list[str]:
        """LIKE patterns a hit must not match: words left out that the index cannot ask
        (or all of them, when no indexed word is there to put NOT after)."""
        words = self.left_out_short if self.indexed else (*self.left_out, *self.left_out_short)
        return ["%" + _escaped(word) + "%" for word in words]


def _quoted(word: str) -> str:
    whole = word[-1:].isalnum() is False  # `C++`: the word c itself, not every c...
    return '"' + word.replace('"', '""') + '"' + ("" if whole else "*")


def terms(query: str, *, phrase: bool = False) -> Terms:
    """The words of a query (or, phrase: the whole query as one string). QueryError when
    there is nothing to search for, or more than a search can ask."""
    if any("\ud800" <= ch <= "\udfff" for ch in query):
        raise QueryError("the query holds bytes that are not text (not UTF-8); type it again")
    if len(query) > MOST_CHARS:
        raise QueryError(
            f"a query of {len(query):,} characters is longer than a search takes "
            f"({MOST_CHARS:,}); search for a few of its words"
        )
    words = [query.strip()] if phrase else query.split()
    wanted: list[str] = []
    unwanted: list[str] = []
    seen: set[str] = set()
    for word in words:
        if not phrase and len(word) > 1 and word.startswith("-"):
            target, word = unwanted, word[1:]
        else:
            target = wanted
        key = ("-" if target is unwanted else "") + word.casefold()
        if word and key not in seen:
            seen.add(key)
            target.append(word)
    if len(wanted) + len(unwanted) > MOST_WORDS:
        raise QueryError(
            f"{len(wanted) + len(unwanted)} different words is more than a search takes "
            f"({MOST_WORDS}); search for the few that matter"
        )
    if not any(_has_word(word) for word in wanted):
        what = "what to find, not only what to leave out" if unwanted else "a word"
        raise QueryError(f"nothing to search for: give {what}, e.g. clarity search cache")
    return Terms(
        tuple(word for word in wanted if _tokenized(word)),
        tuple(word for word in wanted if not _tokenized(word)),
        tuple(word for word in unwanted if _tokenized(word)),
        tuple(word for word in unwanted if not _tokenized(word)),
    )


def _has_word(word: str) -> bool:
    return any(ch.isalnum() for ch in word)


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
