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
