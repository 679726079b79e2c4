"""`clarity schedule install|show|remove`: the weekly run (SPEC 9)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from clarity.cli.app import App, Group, app, help_when_bare
from clarity.cli.groups import Folders, grouped, settings_from
from clarity.cli.options import note
from clarity.errors import ClarityError
from clarity.render.output import say
from clarity.schedule.choose import SchedulerName
from clarity.schedule.when import HOUR, MINUTE, Mode

if TYPE_CHECKING:
    from clarity.schedule.choose import Scheduler

schedule_app = App(
    help="Run clarity weekly: install, show or remove the schedule.",
    cls=Group,
    invoke_without_command=True,
    rich_markup_mode=None,
)
schedule_app.callback()(help_when_bare)
app.add_typer(schedule_app, name="schedule")

SchedulerOption = Annotated[
    SchedulerName,
    typer.Option(
        "--scheduler",
        help="auto: launchd on macOS, a systemd user timer where one can run, else cron.",
    ),
]


@schedule_app.command("install")
@grouped
def install(
    scheduler: SchedulerOption = SchedulerName.AUTO,
    mode: Annotated[
        Mode,
        typer.Option(
            "--mode",
            help="apply: apply --rescan --yes. report: only scan, saving a markdown report.",
        ),
    ] = Mode.APPLY,
    *,
    folders: Folders,
) -> None:
    """Install a weekly run of clarity (Mondays at 10:00)."""
    settings = settings_from(folders)
    from clarity.executable import clarity_argv
    from clarity.schedule.choose import every_scheduler
    from clarity.schedule.choose import scheduler as choose
    from clarity.schedule.job import make_job, report_file
    from clarity.schedule.rollback import make_dirs, remove_dirs
    from clarity.settings.locations import state_dir
    from clarity.workflows.scanning import check_plans_folder

    check_plans_folder(settings)
    state = state_dir()
    job = make_job(mode, clarity_argv(), settings, os.environ, state)  # refuses before writing
    chosen = choose(scheduler)
    made = make_dirs(state)  # the scheduler appends to a log in it
    try:
        outcome = chosen.install(job)
    except ClarityError:
        remove_dirs(made)  # a refused install leaves nothing behind, not even this
        raise
    said = "already installed, unchanged" if outcome.value == "unchanged" else outcome.value
    lines = [
        f"{said}: a weekly {mode.value} with {chosen.name}, Mondays at {HOUR:02d}:{MINUTE:02d}",
        f"  runs: {job.shell()}",
        f"  log:  {job.log}",
    ]
    if mode is Mode.REPORT:
        lines.append(f"  report: {report_file(state)}")
    say(lines)
    for other in every_scheduler():
        if other.name != chosen.name and _installed(other) is not None:
            note(
                f"a clarity schedule is also installed with {other.name}; "
                f"clarity schedule remove --scheduler {other.name} takes it out"
            )


def _installed(scheduler: Scheduler) -> str | None:
    try:
        return scheduler.installed()
    except ClarityError as error:
        note(f"could not check {scheduler.name}: {error.message}")
        return None


def _status(scheduler: Scheduler) -> str:
    try:
        return scheduler.status()
    except ClarityError as error:
        return f"cannot ask {scheduler.name}: {error.message}"


@schedule_app.command("show")
def show() -> None:
    """Print what clarity has installed with each scheduler, and whether it runs it."""
    from clarity.schedule.choose import every_scheduler
    from clarity.schedule.job import log_file, report_file
    from clarity.settings.locations import state_dir

    found = [(s, text) for s in every_scheduler() if (text := _installed(s)) is not None]
    if not found:
        say(["no clarity schedule is installed; clarity schedule install adds one"])
        return
    for chosen, text in found:
        lines = text.rstrip().expandtabs(4).split("\n")  # a plist indents with tabs
        say([f"{chosen.name}: {_status(chosen)}", *lines, ""])
    state = state_dir()
    say(
        f"{label}: {path}"
        for label, path in (("log", log_file(state)), ("latest report", report_file(state)))
        if path.exists()
    )


@schedule_app.command("remove")
def remove(scheduler: SchedulerOption = SchedulerName.AUTO) -> None:
    """Take the weekly run out again (auto: from every scheduler that has it)."""
    from clarity.schedule.choose import every_scheduler
    from clarity.schedule.choose import scheduler as choose

    chosen = every_scheduler() if scheduler is SchedulerName.AUTO else [choose(scheduler)]
    removed = [s.name for s in chosen if s.remove().value == "removed"]
    if removed:
        say([f"removed the clarity schedule from {', '.join(removed)}"])
    else:
        say(["no clarity schedule was installed"])
