"""What `scan --all` reviewed and what `apply --all` did, kept in clarity's state folder, so
that `apply --all` carries out the scans a person reviewed, folder by folder (not the
folders found since), and `undo --all` takes back what the latest `apply --all` did
(also in a folder no longer found: a plansDirectory changed, CLAUDE_CONFIG_DIR unset).

    <state dir>/every-root-scan.json    the roots the latest scan --all covered
    <state dir>/every-root-apply.json   the roots and runs the latest apply --all made
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.errors import ClarityError
from clarity.settings.locations import Origin, Source
from clarity.sources import source_named
from clarity.sources.claude_code import NAME as CLAUDE_CODE
from clarity.workflows.roots import PlansRoot, RootOutcome, Roots, for_each_root

if TYPE_CHECKING:
    from clarity.executor.results import RunReport
    from clarity.model import ScanReport
    from clarity.settings.config import Settings

SCANNED = "every-root-scan.json"
APPLIED = "every-root-apply.json"
_PATHS = ("plans_dir", "archive_dir", "claude_dir")  # and "project", which may be null
_TEXTS = ("source", "archive_source")


def _entry(root: PlansRoot, **more: str) -> dict[str, Any]:
    entry: dict[str, Any] = {key: os.fsdecode(getattr(root, key)) for key in _PATHS}
    entry["project"] = None if root.project is None else os.fsdecode(root.project)
    entry.update({key: getattr(root, key) for key in _TEXTS}, **more)
    entry["archive_origin"] = root.archive_source.origin.value  # what code decides on
    entry["agent"] = root.agent
    return entry


def _root(entry: Any) -> PlansRoot | None:
    """The root an entry names, or None for one that is not an entry clarity wrote."""
    if not isinstance(entry, dict):
        return None
    texts = {key: entry.get(key) for key in (*_PATHS, *_TEXTS)}
    project = entry.get("project")
    if not all(isinstance(value, str) for value in texts.values()):
        return None
    if not isinstance(project, str | None):
        return None
    agent = str(entry.get("agent") or CLAUDE_CODE)  # an entry written before there were others
    try:
        archive_origin = Origin(entry.get("archive_origin"))
        source_named(agent)
    except (ValueError, KeyError):  # a record of an earlier version, or a hand's: scan again
        return None
    return PlansRoot(
        Path(str(texts["plans_dir"])),
        str(texts["source"]),
        Path(str(texts["archive_dir"])),
        Source(str(texts["archive_source"]), archive_origin),
        Path(str(texts["claude_dir"])),
        None if project is None else Path(project),
        agent,
    )


def _write(name: str, entries: list[dict[str, Any]]) -> None:
    from clarity.fsio import write_atomic
    from clarity.settings.locations import state_dir

    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(entries, indent=2, ensure_ascii=True)  # a name of any bytes, kept
    write_atomic(folder / name, text.encode("ascii") + b"\n")


def _read(name: str) -> list[Any] | None:
    from clarity.settings.locations import state_dir

    try:
        entries = json.loads((state_dir() / name).read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return []
    return entries if isinstance(entries, list) else []


def remember_scans(outcomes: Sequence[RootOutcome[ScanReport]], agent: str = "") -> None:
    """The roots a `scan --all` covered: what `apply --all` will carry out. A scan of one
    agent's folders (`--from`) replaces that agent's alone: the others' latest scans stay
    reviewed, and `apply --all` carries out each folder's latest scan."""
    entries = [_entry(outcome.root) for outcome in outcomes]
    if agent:
        kept = [
            entry
            for entry in _read(SCANNED) or []
            if isinstance(entry, dict)
            and (root := _root(entry)) is not None
            and root.agent != agent
        ]
        entries = kept + entries
    _write(SCANNED, entries)


def reviewed_roots() -> Roots:
    """The roots of the latest `scan --all`. ClarityError when there was none."""
    entries = _read(SCANNED)
    if entries is None:
        raise ClarityError(
            "apply --all carries out the scan --all you reviewed, and there is none; "
            "run clarity scan --all first, or clarity apply --all --rescan"
        )
    return Roots(tuple(root for entry in entries if (root := _root(entry))), ())


def remember_applies(outcomes: Sequence[RootOutcome[RunReport]]) -> None:
    """The roots and runs an `apply --all` made, for `undo --all`."""
    entries = [
        _entry(outcome.root, run=outcome.result.run)
        for outcome in outcomes
        if outcome.result is not None and outcome.result.run is not None
    ]
    _write(APPLIED, entries)


def undo_applies(
    settings: Settings, run_one: Callable[[Settings], RunReport]
) -> list[RootOutcome[RunReport]]:
    """Undo, in each root, the run the latest `apply --all` made there, if it is still the
    latest run of that root (a later one is undone there by the person, by name)."""
    from clarity.state import DirState

    entries = [entry for entry in _read(APPLIED) or [] if isinstance(entry, dict)]
    made = {
        os.fsdecode(root.plans_dir): entry["run"]
        for entry in entries
        if (root := _root(entry)) is not None and isinstance(entry.get("run"), str)
    }
    roots = Roots(tuple(root for entry in entries if (root := _root(entry))), ())

    def undo_one(root_settings: Settings) -> RunReport:
        run = made[os.fsdecode(root_settings.plans_dir)]
        files = DirState.for_plans_dir(root_settings.plans_dir).run_files()
        latest = files[-1].name if files else None
        if latest != run:
            from clarity.hints import Again

            again = Again.of(root_settings).command("undo")
            raise ClarityError(
                f"apply --all ran {run} here, but {latest} ran since; undo here with {again}"
            )
        return run_one(root_settings)

    outcomes = for_each_root(settings, roots, undo_one)
    undone = {os.fsdecode(o.root.plans_dir) for o in outcomes if o.result is not None}
    if undone:
        _write(APPLIED, [e for e in entries if e.get("plans_dir") not in undone])
    return outcomes


def every_root(settings: Settings) -> Roots:
    """Every plans folder on the machine that is still there (one an agent deleted, whose
    texts clarity kept, has nothing to scan); a ClarityError when there is none yet."""
    from clarity.workflows.roots import find_roots

    found = find_roots(settings)
    found = Roots(tuple(r for r in found.roots if not r.gone), found.passed_over)
    if not found.roots and settings.only_agent:
        raise ClarityError(
            f"--from {settings.only_agent}: no plans folder of that agent on this machine "
            "(clarity roots lists them)"
        )
    if not found.roots:
        raise ClarityError(
            "no plans folder on this machine yet (clarity roots says where it looked); "
            "Claude Code writes one when a session first plans"
        )
    return found


def scan_every_root(
    settings: Settings, scan_one: Callable[[Settings], ScanReport], *, record: bool
) -> list[RootOutcome[ScanReport]]:
    """`scan --all`: each folder scanned; recorded, what apply --all carries out. A
    transcript that names none of the folders is read once for all (transcripts/survey)."""
    from clarity.transcripts.survey import surveyed

    roots = every_root(settings)
    with surveyed(root.plans_dir for root in roots.roots):
        outcomes = for_each_root(settings, roots, scan_one)
    if record:  # what apply --all carries out, folder by folder
        remember_scans(outcomes, settings.only_agent)
    return outcomes


def apply_every_root(
    settings: Settings, apply_one: Callable[[Settings], RunReport], *, rescan: bool
) -> list[RootOutcome[RunReport]]:
    """`apply --all`: each folder found now with --rescan, else each folder scan --all
    reviewed; what it did recorded, for undo --all."""
    roots = every_root(settings) if rescan else reviewed_roots()
    if settings.only_agent:  # --from: the other agents' folders are left as they are
        roots = Roots(tuple(r for r in roots.roots if r.agent == settings.only_agent), ())
    from clarity.transcripts.survey import surveyed

    with surveyed(root.plans_dir for root in roots.roots):  # as scan_every_root
        outcomes = for_each_root(settings, roots, apply_one)
    remember_applies(outcomes)
    return outcomes
