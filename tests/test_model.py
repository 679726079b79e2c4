"""The shared value objects' own answers (clarity/model.py)."""

from __future__ import annotations

from clarity.model import Retention
from tests.builders.files import DAY, NOW


def test_retention_answers_when_claude_code_deletes_a_plan_for_every_reader() -> None:
    retention = Retention(30.0, "Claude Code's default")
    now = NOW.timestamp()
    twenty_days_old = now - 20 * DAY
    assert retention.left(twenty_days_old, now) == 10.0
    assert retention.whole_days_left(twenty_days_old, now) == 10  # not 9.999999
    assert retention.whole_days_left(now - 29.5 * DAY, now) == 0  # within a day
    assert retention.whole_days_left(now - 31 * DAY, now) == -1  # at its next start
    assert [retention.near(now - age * DAY, now, 7) for age in (22, 23, 24)] == [
        False,
        True,
        True,
    ]
