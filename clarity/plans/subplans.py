"""Which plans are agent sub-plans, and of which root parent (SPEC 4).

A sub-plan is named `<parent>-agent-<id>.md` (id: letters and digits) and its
`<parent>.md` is in the same scan. A parent slug may itself contain
`-agent-`; the longest parent that exists wins, and a sub-plan of a sub-plan
belongs to the root parent.
"""

from __future__ import annotations

from collections.abc import Iterable

_SUFFIX = ".md"
_AGENT = "-agent-"


def parent_candidates(stem: str) -> list[str]:
    """Stems `P` such that `stem == P + ("-agent-" + id)+`, longest first."""
    candidates: list[str] = []
    rest = stem
    while True:
        head, sep, ident = rest.rpartition(_AGENT)
        if not sep or not head or not ident.isalnum():
            return candidates
        candidates.append(head)
        rest = head


def root_parents(names: Iterable[str]) -> dict[str, str]:
    """Map each sub-plan's name to its root parent's name; plain plans are absent."""
    stems = {name[: -len(_SUFFIX)] for name in names if name.endswith(_SUFFIX)}
    direct: dict[str, str] = {}
    for stem in stems:
        for candidate in parent_candidates(stem):
            if candidate in stems:
                direct[stem] = candidate
                break
    roots: dict[str, str] = {}
    for stem in direct:
        root = direct[stem]
        while root in direct:  # terminates: every parent stem is shorter than its child's
            root = direct[root]
        roots[stem + _SUFFIX] = root + _SUFFIX
    return roots
