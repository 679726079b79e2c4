"""A moment a person (or Claude) types: `--now`, `--since`, MCP's `since`. One parser, so
that every door reads `2026-10-01` alike: a value without an offset is local time."""

from __future__ import annotations

from datetime import UTC, datetime


class NotADate(ValueError):
    """The text names no moment clarity can use; str() says why (no option named)."""

    def __init__(self, text: str, *, out_of_range: bool = False) -> None:
        self.out_of_range = out_of_range
        if out_of_range:
            super().__init__(f"{text!r} is out of range; give a moment in years 2 to 9998")
        else:
            super().__init__(
                f"{text!r} is not a date; give one as 2026-10-01 (or 2026-10-01T09:00)"
            )


def parse_moment(text: str) -> datetime:
    """An aware datetime from ISO-8601 text (a date, or a date and time); without an
    offset, in local time. NotADate for text that is none, or out of range."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise NotADate(text) from None
    if not 1 < moment.year < 9999:  # a day either side must still be a date
        raise NotADate(text, out_of_range=True)
    return moment if moment.tzinfo is not None else moment.astimezone()


def iso_moment(moment_ns: int) -> str | None:
    try:
        return datetime.fromtimestamp(moment_ns / 1e9, UTC).isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError):
        return None  # a date no calendar here can show (year 36812): mtime_ns keeps it


def stamp_seconds(value: object) -> float | None:
    """Seconds since the epoch of a timestamp an agent wrote (ISO-8601, `Z` for UTC:
    `2026-11-28T06:01:05.361Z`); None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
