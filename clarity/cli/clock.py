"""The moment a scan classifies as of: now, or `--now ISO-8601`."""

from __future__ import annotations

from datetime import datetime


def parse_now(text: str | None) -> datetime:
    """An aware datetime. A value without an offset is local time.

    "Modified today" is judged in the offset of this moment: local time by
    default, or the offset written in `--now`, so a report pinned with
    `--now ...+00:00` reads the same on every machine.
    """
    if text is None:
        return datetime.now().astimezone()
    from clarity.dates import NotADate, parse_moment

    try:
        return parse_moment(text)
    except NotADate as error:
        from clarity.errors import ClarityError

        if error.out_of_range:
            raise ClarityError(f"--now: {error}") from None
        raise ClarityError(
            f"--now: {text!r} is not an ISO-8601 date-time; write e.g. 2026-11-21T10:00:00+00:00"
        ) from None
