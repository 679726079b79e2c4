"""Errors a user can cause: one line that says what is wrong and what to do."""

from __future__ import annotations

EXIT_ACTION_FAILED = 1
EXIT_USAGE = 2


class ClarityError(Exception):
    """A usage, config or precondition problem; the CLI prints it as one line."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


class Stop(ClarityError):
    """A run that ends before its work for a reason that is no error (said as
    `clarity: MESSAGE`, not `clarity: error: ...`)."""


class NoPlansYet(Stop):
    """A first run: Claude Code's plans folder is not there yet (it writes it in plan
    mode). Not an error (exit 0); a folder the person named that is not there still is."""

    def __init__(self, plans_dir: str, demo: str = "clarity demo") -> None:
        super().__init__(
            f"no plans yet in {plans_dir} (Claude Code writes them in plan mode); "
            f"try {demo} to see what clarity does",
            0,
        )


class Cancelled(Stop):
    """The person said neither yes nor no (Ctrl-C, or the end of input, at the question):
    nothing had started, so nothing was moved."""

    def __init__(self) -> None:
        super().__init__("cancelled; nothing was moved", EXIT_INTERRUPTED)
