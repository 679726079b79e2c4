"""Every plans folder on the machine: `clarity roots`, and scan, apply, undo and archived
with `--all` (SPEC 2), each root in turn, its own report, one failing root said and
the others gone on with (exit 1)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from clarity.cli.app import app
from clarity.cli.groups import Folders, Shape, grouped, settings_from
from clarity.errors import ClarityError
from clarity.hints import Again
from clarity.render import output
from clarity.render.terminal import Format

if TYPE_CHECKING:
    from clarity.model import ScanReport
    from clarity.settings.config import Settings
    from clarity.workflows.roots import PlansRoot, RootOutcome
    from clarity.workflows.runs import RunReport


@app.command()
@grouped
def roots(*, shape: Shape) -> None:
    """List every plans folder on the machine and how it was found: each Claude config
    dir's plans, and each project's plansDirectory. Read-only."""
    from clarity.render.roots_report import print_roots
    from clarity.workflows.roots import find_roots

    settings = settings_from(Folders())
    print_roots(find_roots(settings), shape.format)


def scan_every_root(
    settings: Settings,
    scan_one: Callable[[Settings], ScanReport],
    chosen_format: Format,
    *,
    show_all: bool,
    output_file: Path | None = None,
    record: bool = True,
    scan_words: tuple[str, ...] = (),
) -> int:
    from clarity.render.roots_report import every_scan_text, print_each, scans_document
    from clarity.render.terminal import print_scan_report, save_report_text
    from clarity.workflows import every_root_runs
    from clarity.workflows.roots import settings_for

    outcomes = every_root_runs.scan_every_root(settings, scan_one, record=record)

    def again(root: PlansRoot) -> Again:  # each root's hints name its folder
        return Again.of(settings_for(settings, root), scan_words)

    if output_file is not None:
        save_report_text(output_file, lambda: every_scan_text(outcomes, chosen_format, again))
        output.say([f"clarity: reports written to {output_file}"], err=True)
        return _failed(outcomes)
    if chosen_format is Format.JSON:
        output.send_json(scans_document(outcomes))
        return _failed(outcomes)

    def print_one(root: PlansRoot, report: ScanReport) -> None:
        print_scan_report(report, chosen_format, again(root), show_all=show_all)

    failed = print_each(outcomes, chosen_format, print_one)
    if any(o.result is not None and o.result.proposal and o.result.moves() for o in outcomes):
        from clarity.hints import clarity_command

        narrowed = ("--from", settings.only_agent) if settings.only_agent else ("--all",)
        line = f"Review the above, then run {clarity_command('apply', *narrowed)} to carry out "
        output.say([line + "exactly these scans, folder by folder."], err=True)
    return failed


def apply_every_root(
    settings: Settings,
    apply_one: Callable[[Settings], RunReport],
    chosen_format: Format,
    *,
    rescan: bool,
) -> int:
    """apply in each root (workflows/every_root_runs.py), each report printed."""
    from clarity.workflows import every_root_runs

    outcomes = every_root_runs.apply_every_root(settings, apply_one, rescan=rescan)
    return exit_code(_print_runs(settings, outcomes, chosen_format))


def undo_every_root(
    settings: Settings, run_one: Callable[[Settings], RunReport], chosen_format: Format
) -> int:
    """undo, in each root, what the latest apply --all did there; the reports printed."""
    from clarity.workflows.every_root_runs import undo_applies

    outcomes = undo_applies(settings, run_one)
    if not outcomes:
        raise ClarityError(
            "nothing to undo: no apply --all is on record (undo one folder's latest run "
            "with clarity undo --plans-dir DIR)"
        )
    return exit_code(_print_runs(settings, outcomes, chosen_format))


def _print_runs(
    settings: Settings, outcomes: list[RootOutcome[RunReport]], chosen_format: Format
) -> list[RootOutcome[RunReport]]:
    from clarity.render.roots_report import print_each, runs_document
    from clarity.render.terminal import print_run_report
    from clarity.workflows.roots import settings_for

    if chosen_format is Format.JSON:
        output.send_json(runs_document(outcomes))
    else:
        print_each(
            outcomes,
            chosen_format,
            lambda root, report: print_run_report(
                report, chosen_format, Again.of(settings_for(settings, root))
            ),
        )
    return outcomes


def exit_code(outcomes: list[RootOutcome[RunReport]]) -> int:
    return max(
        [1 if o.result is None or o.result.failed else 0 for o in outcomes],
        default=0,
    )


def _failed(outcomes: list[RootOutcome[ScanReport]]) -> int:
    return 1 if any(outcome.result is None for outcome in outcomes) else 0
