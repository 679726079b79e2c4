"""Work a long-lived server (MCP, browse) does behind its callers: in a thread of its own,
one at a time for a key, so that no call waits on it (issue 45: a search's 95th
percentile was the refresh that every call after two seconds paid).

What the work finds is for the next call; a call answers from what is known now."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

_RUNNING: set[Hashable] = set()
_LOCK = threading.Lock()


def run_behind(key: Hashable, work: Callable[[], object]) -> bool:
    """Start `work` in a daemon thread unless work of this key is running already; whether
    it started. What it returns is dropped, and so is what it raises: the work is a
    cache's, and the next call that does it itself says what is wrong (a thread's
    traceback on a server's stderr would say it to nobody)."""
    with _LOCK:
        if key in _RUNNING:
            return False
        _RUNNING.add(key)

    def run() -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 - see above
            pass
        finally:
            with _LOCK:
                _RUNNING.discard(key)

    threading.Thread(target=run, name=f"clarity-behind-{key!r}"[:64], daemon=True).start()
    return True


def running(key: Hashable | None = None) -> bool:
    """Whether work of this key (of any, None) is under way (tests wait on it)."""
    with _LOCK:
        return bool(_RUNNING) if key is None else key in _RUNNING


class LastFound(Generic[T]):
    """What a server found last for one question (the last question only: the memo never
    grows), and when. Asked again while what it depends on is as it was (its stamp), it
    is the answer; once older than `within` seconds it is found again behind the calls,
    which answer from it meanwhile. A new question, or a stamp that moved, is found while
    the call waits (a plan added is there at once)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._last: dict[Hashable, tuple[Hashable, float, T]] = {}

    def get(
        self, key: Hashable, find: Callable[[], T], *, within: float, stamp: Hashable = None
    ) -> T:
        def again() -> T:
            started = time.monotonic()
            found = find()
            self._last.clear()
            self._last[key] = (stamp, started, found)
            return found

        known = self._last.get(key)
        if known is None or known[0] != stamp:
            return again()
        if time.monotonic() - known[1] >= within:
            run_behind((self._name, key), again)
        return known[2]
