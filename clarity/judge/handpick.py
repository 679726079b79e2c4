"""Plans a person names on the command line (`clarity archive NAME...`).

The person's explicit choice: any plan may be archived (a pinned one, one
in progress, a dormant one to keep) except one a live session uses.

A name may be given as `foo.md`, `foo` or a path to the file in the plans
directory. Every name is checked before anything moves: one bad name stops
the whole command, so a typo never leaves half a selection archived.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path

from clarity.errors import ClarityError
from clarity.hints import Again
from clarity.judge.proposal import Proposal, proposal_of, proposed_group
from clarity.model import Action, Basis, ScanReport, Verdict
from clarity.settings.locations import expand_home


def _plan_name(value: str, plans_dir: Path) -> str:
    text = value.strip()
    if not text:
        raise ClarityError("an empty plan name was given; name plans as they appear in the scan")
    path = expand_home(text)
    if path.parent != Path() and os.path.realpath(path.parent) != os.path.realpath(plans_dir):
        raise ClarityError(f"{text} is not in the plans directory {plans_dir}; name a plan there")
    return path.name if path.name.endswith(".md") else f"{path.name}.md"


def _check(
    value: str, name: str, verdict: Verdict | None, report: ScanReport, again: Again
) -> Verdict:
    if verdict is None:
        skipped = next((s for s in report.skipped if s.path.name == name), None)
        if skipped is not None:
            raise ClarityError(f"{value}: not archived: {skipped.reason}")
        raise ClarityError(
            f"no plan named {name} in {report.plans_dir}; {again.command('scan')} lists the plans"
        )
    if verdict.basis is Basis.IN_USE:
        raise ClarityError(
            f"{name} is {verdict.reason}; clarity never moves a plan a live session uses"
        )
    if verdict.parent is not None:
        raise ClarityError(
            f"{name} is a sub-plan of {verdict.parent}; archive {verdict.parent} "
            "and its sub-plans go with it"
        )
    if verdict.held and report.kept_in_place:
        raise ClarityError(
            f"{name} is in {report.agent_label}'s own folder, where clarity never writes: "
            f"its text is kept at every apply instead ({again.command('history', name)} "
            "lists what is kept)"
        )
    if verdict.held:
        raise ClarityError(
            f"{name} (or a sub-plan of it) is tracked by git, which keeps its history, so "
            "clarity leaves it in place; add --include-tracked to archive it anyway"
        )
    return verdict


def _unknown(name: str, by_name: dict[str, Verdict]) -> str:
    stems = {plan.removesuffix(".md"): plan for plan in by_name}
    close = difflib.get_close_matches(name.removesuffix(".md"), list(stems), n=3, cutoff=0.75)
    guess = f" (did you mean {' or '.join(stems[stem] for stem in close)}?)" if close else ""
    return f"no plan named {name}{guess}"


def archive_proposal(report: ScanReport, values: Iterable[str], again: Again) -> Proposal:
    """A proposal that archives the named plans with their sub-plans, or a ClarityError
    (again: how the command it suggests names these plans' folder)."""
    by_name = {verdict.name: verdict for verdict in report.verdicts}
    chosen: dict[str, Verdict] = {}
    values = list(values)
    names = {value: _plan_name(value, report.plans_dir) for value in values}
    unknown = [
        name
        for name in names.values()
        if name not in by_name and not any(s.path.name == name for s in report.skipped)
    ]
    if unknown:  # every typo at once, each with the names it is close to
        said = "; ".join(_unknown(name, by_name) for name in unknown)
        listing = again.command("scan")
        raise ClarityError(f"{said} in {report.plans_dir}; {listing} lists the plans")
    for value in values:
        name = names[value]
        chosen[name] = _check(value, name, by_name.get(name), report, again)
    if not chosen:
        raise ClarityError("name at least one plan to archive, e.g. clarity archive foo.md")
    groups = []
    for name, verdict in chosen.items():
        # a sub-plan a live session uses stays, as the plan would
        free = tuple(sub for sub in verdict.subplans if by_name[sub].basis is not Basis.IN_USE)
        group = proposed_group(
            verdict._replace(subplans=free), by_name, Action.ARCHIVE, None, report.project(verdict)
        )
        if group is None:
            raise ClarityError(f"{name} changed or vanished while it was read; try again")
        groups.append(group)
    return proposal_of(report, groups)
