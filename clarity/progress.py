"""How the core reports progress without knowing about terminals (terminal.ProgressBar draws it)."""

from __future__ import annotations

from collections.abc import Callable

Tick = Callable[[int], None]  # count more items done
Progress = Callable[[str, int], Tick | None]  # (phase, total) -> its tick; None: not shown
