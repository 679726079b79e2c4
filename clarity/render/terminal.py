"""The terminal side of the commands: output formats, the question, the progress bar.

The core returns data; this module decides how it reaches the user, so the
typer app in cli/ stays a list of commands.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from clarity.errors import EXIT_ACTION_FAILED, Cancelled, ClarityError
from clarity.printable import printable
from clarity.progress import Tick
from clarity.render import output

T = TypeVar("T")

if TYPE_CHECKING:
    from clarity.hints import Again
    from clarity.model import ScanReport
    from clarity.workflows.reports import RunReport


class Format(StrEnum):
    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


def choose_format(json_flag: bool, chosen: Format | None) -> Format:
    if json_flag and chosen not in (None, Format.JSON):
        raise ClarityError("--json and --format markdown/table disagree; give one of them")
    return Format.JSON if json_flag else (chosen or Format.TABLE)


def print_scan_report(
    report: ScanReport, output_format: Format, again: Again, *, show_all: bool = False
) -> None:
    """The report on stdout; the table folds long lists of plans apply handles unless show_all.
    again: how its hints repeat the command on the same plans."""
    if output_format is Format.TABLE:
        from clarity.render.console import plain_console
        from clarity.render.table_report import print_scan

        print_scan(report, plain_console(), again, show_all=show_all)
    elif output_format is Format.JSON:
        from clarity.render.json_report import scan_json

        output.send_pieces(scan_json(report))
    else:
        output.say_text(scan_report_text(report, output_format, again, show_all=show_all))


def scan_report_text(
    report: ScanReport, output_format: Format, again: Again, *, show_all: bool = True
) -> str:
    """The report as text (for a file: every plan in it, unless not show_all): no colours,
    a fixed width for the table."""
    if output_format is Format.JSON:
        from clarity.render.json_report import scan_json

        return "".join(scan_json(report))
    if output_format is Format.MARKDOWN:
        from clarity.render.markdown_report import scan_markdown

        return scan_markdown(report, again, show_all=show_all)
    import io

    from clarity.render.console import plain_console
    from clarity.render.table_report import print_scan

    buffer = io.StringIO()
    print_scan(  # a file is read at leisure, or searched: every plan is in it
        report,
        plain_console(file=buffer, width=120, color_system=None, force_terminal=False),
        again,
        show_all=True,
    )
    return buffer.getvalue()


# How each format's report begins: a file that does not is not one of clarity's reports.
_REPORT_STARTS = (b"Plans in ", b"## clarity: Plans in ", b'{"schema_version"')


def _check_replaceable(path: Path) -> None:
    """scan --output replaces only an earlier report: scan is the command the /clarity skill
    runs unasked, and must change nothing of the person's (a ~/.bashrc, say)."""
    import stat

    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    except OSError as error:
        raise ClarityError(
            f"cannot write the report to {path}: {error.strerror or error}"
        ) from None
    if stat.S_ISREG(info.st_mode):
        try:
            with path.open("rb") as stream:
                if stream.read(32).startswith(_REPORT_STARTS):
                    return
        except OSError:
            pass
    raise ClarityError(
        f"{path} is there already and is not a report clarity wrote; clarity scan --output "
        "replaces only its own reports: choose a new file"
    )


def save_scan_report(report: ScanReport, output_format: Format, path: Path, again: Again) -> None:
    """Write the report to path whole (atomically): a reader never sees half of it."""
    save_report_text(path, lambda: scan_report_text(report, output_format, again))


def save_report_text(path: Path, text: Callable[[], str]) -> None:
    """Write a report's text to path whole (atomically), replacing only an earlier report."""
    from clarity.fsio import write_atomic

    _check_replaceable(path)
    if not path.parent.is_dir():  # a mistyped folder is said, never made (issue 36, item 3)
        raise ClarityError(
            f"cannot write the report to {path}: there is no folder {path.parent}; "
            "make it first, or choose another --output"
        )
    try:
        write_atomic(path, text().encode("utf-8"))
    except OSError as error:
        raise ClarityError(
            f"cannot write the report to {path}: {error.strerror or error}; choose another --output"
        ) from None


def needs_terminal(yes: bool, command: str) -> None:
    """Refuse to ask where nobody can answer. Called once the command knows what it would
    do, so that a missing scan or nothing to undo is said first: that is the real step."""
    if not yes and not sys.stdin.isatty():
        raise ClarityError(
            f"clarity {command} asks before it moves anything, and there is no terminal to "
            f"ask at; run the same command again with --yes to go ahead without the question"
        )


def _progress_delay() -> float:
    try:
        return max(0.0, float(os.environ.get("CLARITY_PROGRESS_DELAY", "")))
    except ValueError:
        return 1.0


class ProgressBar:
    """Progress on stderr for a run still going after a second, in a terminal only.

    Called with a phase's label and total (reading plans, hashing them,
    moving them), it returns the tick for that phase. Nothing is drawn for a
    run that ends sooner, with --json, or when stderr is not a terminal
    (cron, pipes, the slash command). CLARITY_PROGRESS_DELAY sets the second.
    The second is counted from the start of the run, and again from the
    answer to a question asked within it (`paused`).
    """

    EVERY = 32  # ticks between looks at the clock: a tick is made per plan

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.delay = _progress_delay()
        self.started = time.monotonic()
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __call__(self, label: str, total: int) -> Tick | None:
        if not self.enabled or total <= 0:
            return None
        done = 0

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if done % self.EVERY == 0 or done >= total:
                self._show(label, total, done)

        return tick

    def _show(self, label: str, total: int, done: int) -> None:
        if self._progress is None:
            if not self.enabled or time.monotonic() - self.started < self.delay:
                return
            from rich.progress import Progress  # only for a run long enough to need it

            from clarity.render.console import plain_console

            console = plain_console(stderr=True)
            if not console.is_terminal:
                self.enabled = False
                return
            self._progress = Progress(console=console, transient=True)
            self._progress.start()
        task = self._tasks.get(label)
        if task is None:
            from rich.markup import escape

            # the description is read as markup: the label shown as it is, escaped
            shown = escape(printable(label))
            self._tasks[label] = self._progress.add_task(shown, total=total, completed=done)
        else:
            self._progress.update(task, completed=done)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Around a question: no bar drawn over it, and the delay counted afresh after it,
        so that the bar times the work, not the person answering."""
        self.close()
        self._tasks.clear()
        try:
            yield
        finally:
            self.started = time.monotonic()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def asking(
    yes: bool,
    command: str,
    output_format: Format,
    lines: Callable[[T], list[str]],
    *,
    bar: ProgressBar | None = None,
) -> Callable[[T], bool]:
    """The question a command that moves plans asks once it knows what it would do (so a
    missing scan or a bad name is said first): granted by --yes, refused with no terminal
    to ask at, else asked with lines(subject). bar is paused meanwhile: it times the work,
    not the answer."""

    def confirm(subject: T) -> bool:
        if yes:
            return True
        needs_terminal(yes, command)
        with bar.paused() if bar is not None else contextlib.nullcontext():
            return ask(lines(subject), output_format)

    return confirm


def ask(lines: list[str], output_format: Format) -> bool:
    to_stderr = output_format is Format.JSON
    output.say([*lines, ""], err=to_stderr)
    try:
        return typer.confirm("Go ahead?", default=False, err=to_stderr)
    except (KeyboardInterrupt, typer.Abort, EOFError):  # at the question: nothing started
        raise Cancelled from None


def print_run_report(report: RunReport, output_format: Format, again: Again) -> int:
    from clarity.render import run_report

    if output_format is Format.JSON:
        output.send_json(run_report.run_document(report))
    elif output_format is Format.MARKDOWN:
        output.say_text(run_report.result_markdown(report, again))
    else:
        output.say(run_report.result_lines(report, again))
    return EXIT_ACTION_FAILED if report.failed else 0
