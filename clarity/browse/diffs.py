"""Two versions of a plan, compared line by line: side by side or unified (difflib)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

CONTEXT = 3  # unchanged lines shown around each change


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a side-by-side diff: a line on either side (None: none there)."""

    kind: str  # "same", "changed", "removed", "added", "gap"
    old_number: int | None
    old: str | None
    new_number: int | None
    new: str | None


def side_by_side(old: str, new: str) -> list[Row]:
    a, b = old.splitlines(), new.splitlines()
    rows: list[Row] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        if rows:
            rows.append(Row("gap", None, None, None, None))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [
                    Row("same", i + 1, a[i], j + 1, b[j])
                    for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                ]
                continue
            olds, news = list(range(i1, i2)), list(range(j1, j2))
            for k in range(max(len(olds), len(news))):
                i = olds[k] if k < len(olds) else None
                j = news[k] if k < len(news) else None
                kind = (
                    "changed"
                    if i is not None and j is not None
                    else "removed"
                    if j is None
                    else "added"
                )
                rows.append(
                    Row(
                        kind,
                        None if i is None else i + 1,
                        None if i is None else a[i],
                        None if j is None else j + 1,
                        None if j is None else b[j],
                    )
                )
    return rows


def unified(old: str, new: str, old_label: str, new_label: str) -> list[tuple[str, str]]:
    """(kind, line) of a unified diff: kind is "head", "hunk", "removed", "added", "same"."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), old_label, new_label, n=CONTEXT, lineterm=""
    )
    shown: list[tuple[str, str]] = []
    for line in lines:
        if line.startswith(("---", "+++")) and len(shown) < 2:
            shown.append(("head", line))
        elif line.startswith("@@"):
            shown.append(("hunk", line))
        elif line.startswith("-"):
            shown.append(("removed", line))
        elif line.startswith("+"):
            shown.append(("added", line))
        else:
            shown.append(("same", line))
    return shown
