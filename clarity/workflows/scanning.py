"""`clarity scan` as the CLI calls it: settle a killed run, scan (the agent reviewing
dormant plans when it is on), and record the proposal apply will carry out.

The counterpart of runs.py for the command that moves nothing; what this
returns is a ScanReport for a renderer, and what it has to say on the way
(a run settled, a scan not recorded) goes to a `note` callback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from clarity.errors import ClarityError

if TYPE_CHECKING:
    from clarity.model import ScanReport, ScanRequest
    from clarity.progress import Progress
    from clarity.settings.config import Settings

Note = Callable[[str], None]

UNSETTLED = (
    "a run that was interrupted is not settled yet (a plan it was moving may be missing "
    "from this report); the next clarity apply, archive, undo or restore settles it"
)


def run_scan(
    settings: Settings,
    request: ScanRequest,
    note: Note,
    *,
    progress: Progress | None = None,
    record: bool = True,
    settle: bool = True,
) -> ScanReport:
    """Scan, and record the proposal for apply: what the person reviews is what apply
    carries out. record=False: a report nobody reviews (the schedule's) keeps the
    reviewed one. settle=False: a reader's scan (the MCP server, the skill's report)
    reads the last settled state and leaves a killed run to the next command that
    moves files: it never moves one itself."""
    from clarity.judge.proposal import save_proposal
    from clarity.workflows.pipeline import PlanFolder, Review

    folder = PlanFolder(settings)
    state = folder.state
    if settings.plans_dir.is_dir() and state.running_run() is not None:
        if settle:
            from clarity.workflows.runs import settle_interrupted  # the executor, when needed

            for line in settle_interrupted(state):
                note(line)
        else:
            note(UNSETTLED)
    report, proposal = folder.scan_and_propose(request, review=Review.TO_REPORT, progress=progress)
    if not record:
        return report
    try:
        save_proposal(state, proposal)
    except (ClarityError, OSError) as error:
        message = error.message if isinstance(error, ClarityError) else str(error)
        note(f"warning: this scan was not recorded, so apply needs --rescan: {message}")
        return report
    return report._replace(proposal=proposal.id)


def check_plans_folder(settings: Settings) -> None:
    """That the plans dir settings name is there and is a folder (and its archive can be
    beside it): one line saying what to do, else (a schedule installs nothing for it)."""
    from clarity.judge.scan import check_plans_dir

    check_plans_dir(settings)
