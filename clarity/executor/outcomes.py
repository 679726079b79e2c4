"""One announced move carried out, and its outcome journaled and told: the step undo and
restore share (apply's mover adds the trash and its group bookkeeping around the same).

A name taken at the moment of the move (FileExistsError, from the no-replace rename)
is rolled back, the file left where it was: skipped, not failed. Any other OSError
fails the move, said in a line that names what to fix (moves.error_text).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clarity.executor.journal import Journal
from clarity.executor.moves import error_text
from clarity.executor.records import Ending, Move, Outcome
from clarity.executor.results import ActionResult, Status


def carry_out(
    journal: Journal, seq: int, dst: Path, move: Callable[[], None], taken: str
) -> Outcome:
    """Run move (which puts the file at dst) and journal how it ended; taken: the reason
    when dst's name was taken meanwhile."""
    try:
        move()
    except FileExistsError:
        outcome = Outcome(Ending.ROLLED_BACK, error=taken)
    except OSError as error:
        outcome = Outcome(Ending.FAILED, error=error_text(error, dst))
    else:
        outcome = Outcome(Ending.DONE, dst)
    journal.outcome(seq, outcome)
    return outcome


def result_of(name: str, move: Move, outcome: Outcome) -> ActionResult:
    """The result line of a carried-out move: done, skipped (rolled back) or failed."""
    if outcome.ending is Ending.DONE:
        return ActionResult(name, move, Status.DONE, outcome.dst)
    if outcome.ending is Ending.ROLLED_BACK:
        return ActionResult(name, move, Status.SKIPPED, reason=outcome.error)
    return ActionResult(name, move, Status.FAILED, error=outcome.error)
