"""When the weekly run happens, and what it does."""

from __future__ import annotations

from enum import StrEnum

WEEKDAY, HOUR, MINUTE = 1, 10, 0  # Mondays at 10:00 local time (cron's weekday numbering)


class Mode(StrEnum):
    APPLY = "apply"  # apply --rescan --yes: archive and trash as the rules say
    REPORT = "report"  # only a scan, its markdown report saved in the state dir
