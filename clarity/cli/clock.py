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
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        from clarity.errors import ClarityError

        raise ClarityError(
            f"--now: {text!r} is not an ISO-8601 date-time; write e.g. 2026-11-21T10:00:00+00:00"
        ) from None
    if not 1 < moment.year < 9999:  # a day either side must still be a date
        from clarity.errors import ClarityError

        raise ClarityError(f"--now: {text!r} is out of range; give a moment in years 2 to 9998")
    return moment if moment.tzinfo is not None else moment.astimezone()
