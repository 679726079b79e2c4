"""The small plans dir most apply, undo and archive tests start from: one plan of each class
(a done plan with a sub-plan, a stub, an old idea, a live plan)."""

from __future__ import annotations

from tests.builders.files import (
    Plan,
)

DONE_TEXT = "# Cache layer -- Done\n\nWe put a read-through cache in front of search.\n"
PLANS = {
    "done-a.md": Plan(DONE_TEXT, 20),
    "done-a-agent-x1.md": Plan("# Sub-plan\n\nbenchmark the cache\n", 20),
    "stub.md": Plan("# stub\n", 10),
    "old.md": Plan("# Old idea\n\n" + "words " * 600, 30),
    "live.md": Plan("# Live\n\nin flight\n", 0),
}
