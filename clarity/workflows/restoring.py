"""`clarity restore NAME` as the CLI calls it: the lock, recovery, the checks, the question;
the executor does the moving (executor/restore.py).

Every file of the group is checked before anything moves: it is in the
archive, a regular file (never a link), with the size and sha256 its index
record names; and no file of its name is in the plans dir. Any of these
failing refuses the whole restore in one line (exit 2), nothing moved.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clarity.archive.kept import KeptPlan
from clarity.archive.layout import archived_path
from clarity.archive.shelf import Found, find_archived, kept_named
from clarity.errors import ClarityError
from clarity.executor.records import RunKind
from clarity.executor.restore import RestoreGroup, ShelvedFile, restore_group
from clarity.executor.results import RunReport
from clarity.executor.shelve_kept import shelve_kept
from clarity.fsio import hash_file
from clarity.hints import Again, clarity_command
from clarity.judge.scan import check_plans_dir
from clarity.settings.config import Settings
from clarity.state import DirState
from clarity.workflows.runs import nothing_done, settle_before_run

ConfirmRestore = Callable[[RestoreGroup], bool]


def _checked(archive_dir: Path, plans_dir: Path, entry: dict[str, Any]) -> ShelvedFile:
    """A file of the group as it lies in the archive, or a ClarityError saying why it cannot
    come back."""
    name = str(entry.get("name"))
    if not name or "/" in name or name in (".", ".."):
        raise ClarityError(f"the index names a plan {name!r}, which is not a file name")
    relative = str(entry.get("path"))
    if os.path.lexists(plans_dir / name):
        raise ClarityError(
            f"a plan named {name} is in {plans_dir} already; clarity never replaces a file: "
            "rename or move that one first, then restore"
        )
    sha256 = entry.get("sha256")
    if not isinstance(sha256, str) or len(sha256) != 64:
        raise ClarityError(f"the index records no sha256 for {name}, so it cannot be checked")
    src = archive_dir / relative
    try:
        src = archived_path(archive_dir, relative)
        info = os.lstat(src)
        if not stat.S_ISREG(info.st_mode):
            raise ClarityError(f"{src} is not a regular file (clarity follows no link); left")
        same = info.st_size == entry.get("size") and hash_file(src) == sha256
    except FileNotFoundError:
        raise ClarityError(
            f"{name} is in the archive's index but not at {src} (moved by hand?); nothing moved"
        ) from None
    except OSError as error:
        raise ClarityError(f"cannot read {src}: {error.strerror or error}") from None
    if not same:
        raise ClarityError(
            f"{src} is not the file that was archived (its bytes differ from the index's "
            "sha256); nothing moved"
        )
    return ShelvedFile(name, src, sha256, info.st_size, info.st_mtime_ns)


def restore_group_of(found: Found, plans_dir: Path) -> RestoreGroup:
    """The group to put back for a named plan, every file checked."""
    if found.is_subplan:
        raise ClarityError(
            f"{found.name} is a sub-plan of {found.plan.name}; restore {found.plan.relative} "
            "and its sub-plans come back with it"
        )
    plan = found.plan
    entries = [plan.record, *plan.subplans]
    files = tuple(_checked(plan.archive_dir, plans_dir, entry) for entry in entries)
    return RestoreGroup(plan.record, files)


def run_restore(settings: Settings, value: str, *, confirm: ConfirmRestore) -> RunReport:
    """Put back the archived plan a person named, with its sub-plans."""
    _refuse_an_agents_store(settings, value)
    check_plans_dir(settings)
    state = DirState.for_plans_dir(settings.plans_dir)
    with state.lock():
        notes, _ = settle_before_run(state)  # a killed run first: the index is then current
        kept = kept_named(settings.archive_dir, settings.plans_dir, value)
        if kept is not None:  # deleted by Claude Code: its kept text goes on the shelf first
            if not confirm(_kept_group(kept)):
                return nothing_done(RunKind.RESTORE, settings, notes, "nothing was restored")
            record = shelve_kept(state, settings.archive_dir, settings.plans_dir, kept)
            value = str(record["path"])
            confirm = _yes
        try:
            found = find_archived(settings.archive_dir, value)
        except ClarityError:
            _refuse_a_live_plan(settings, value)
            raise
        group = restore_group_of(found, settings.plans_dir)
        if not confirm(group):
            return nothing_done(RunKind.RESTORE, settings, notes, "nothing was restored")
        report = restore_group(state, settings.plans_dir, settings.archive_dir, group)
    warning = _cleanup_warning(settings, group)
    return dataclasses.replace(
        report,
        notes=(*notes, *report.notes, *warning),
    )


def _refuse_an_agents_store(settings: Settings, value: str) -> None:
    """An agent's own session store is never written (sources/): a plan kept from it goes
    back into a folder the person names, with the archive that keeps it."""
    from clarity.sources import source_of

    source = source_of(settings)
    if source.may_move:
        return
    command = clarity_command(
        "restore", value, "--plans-dir", "DIR", "--archive-dir", os.fspath(settings.archive_dir)
    )
    raise ClarityError(
        f"{settings.plans_dir} is {source.label}'s own folder, where clarity never writes; "
        f"put the plan into a folder of yours: {command}"
    )


def _refuse_a_live_plan(settings: Settings, value: str) -> None:
    """The reason nothing is restored, when a plan of that name is in the plans dir (its
    kept texts are versions of it, not a plan Claude Code deleted)."""
    text = value.strip()
    name = text if text.endswith(".md") else f"{text}.md"
    if text and "/" not in text and os.path.lexists(settings.plans_dir / name):
        stem = name.removesuffix(".md")
        history = Again.of(settings).command("history", stem)
        raise ClarityError(
            f"{name} is in {settings.plans_dir} now, so there is nothing to restore; "
            f"its earlier texts: {history}"
        )


def _yes(group: RestoreGroup) -> bool:
    return True  # the person said yes already, to the kept text


def _kept_group(kept: KeptPlan) -> RestoreGroup:
    """The kept text as the question shows it: from its file in versions/."""
    version = kept.version
    text = ShelvedFile(kept.name, version.path, version.sha256, version.size, version.mtime_ns)
    return RestoreGroup({"kept": True}, (text,))


def _cleanup_warning(settings: Settings, group: RestoreGroup) -> list[str]:
    """A plan put back with its old mtime may be past Claude Code's cleanup age there: say
    so, since Claude Code deletes it at its next start (clarity keeps the mtime exact)."""
    retention = settings.retention
    if retention is None:
        return []
    plan = group.files[0]
    now = time.time()
    age_days = (now - plan.mtime_ns / 1e9) / 86400
    left = retention.left(plan.mtime_ns / 1e9, now)
    if left >= settings.keep_days:
        return []
    undo = Again.of(settings).command("undo")
    if left >= 1:  # near it: said with the days left, as the scan report says them
        return [
            f"warning: {plan.name} is {age_days:.0f} days old, and Claude Code deletes plans "
            f"older than {retention.days:g} days from {settings.plans_dir}: it goes in "
            f"{int(left)} day{'s' if int(left) != 1 else ''} unless you change it (any edit "
            f"makes it new), copy it elsewhere, or {undo} puts it back in the archive"
        ]
    return [
        f"warning: {plan.name} is {age_days:.0f} days old, and Claude Code deletes plans older "
        f"than {retention.days:g} days from {settings.plans_dir} at its next start; copy it "
        f"elsewhere to keep working on it, or {undo} puts it back in the archive"
    ]
