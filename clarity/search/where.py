"""Where the search index lives: in each plans dir's state folder (a cache, made anew
when damaged or missing). Light: every scan asks whether there is one."""

from __future__ import annotations

from pathlib import Path

from clarity.state import DirState

INDEX_NAME = "search.sqlite"


def index_file(state: DirState) -> Path:
    return state.root / INDEX_NAME
