"""Running a scheduler's own program (crontab, systemctl, launchctl) with one-line errors."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from clarity.errors import ClarityError


@dataclass(frozen=True, slots=True)
class Tool:
    program: str  # looked up on PATH at each call
    missing: str  # what to tell the user when it is not installed

    def run(
        self, *args: str, text: str | None = None, check: bool = True, hint: str = ""
    ) -> subprocess.CompletedProcess[str]:
        """Run it; with check, a non-zero exit is a ClarityError quoting what it said."""
        found = shutil.which(self.program)
        if found is None:
            raise ClarityError(self.missing)
        try:
            done = subprocess.run(
                [found, *args], input=text, capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ClarityError(f"{' '.join([self.program, *args])} failed: {error}") from None
        if check and done.returncode != 0:
            raise self.failed(done, hint)
        return done

    def failed(self, done: subprocess.CompletedProcess[str], hint: str = "") -> ClarityError:
        """One line: the command, what it said, and the hint."""
        said = " ".join((done.stderr or done.stdout).split()) or f"exit {done.returncode}"
        return ClarityError(f"{' '.join([self.program, *done.args[1:]])} failed: {said}{hint}")

    def installed(self) -> bool:
        return shutil.which(self.program) is not None
