"""A plan's page and the diff of two of its versions (pages.py has the list, search and
pictures, and the templates' environment every page is written with)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from clarity.browse.pages import encoded, plan_url, render
from clarity.hints import Again
from clarity.model import Place, PlanClass

if TYPE_CHECKING:
    from clarity.model import SessionEvidence
    from clarity.workflows.browsing import PlanView
    from clarity.workflows.catalogue import Catalogue, RootView


@dataclass(frozen=True, slots=True)
class ShownSession:
    id: str
    approved: str
    how: str
    files: int
    commits: int
    todos: str
    last: str


def _session(found: SessionEvidence | None) -> ShownSession | None:
    if found is None:
        return None
    how = "with context cleared (carried out in a new session)" if found.after_clear else "in it"
    if found.withdrawn:
        how += f"; withdrawn: {found.withdrawn}"
    todos = "" if found.todos is None else f"{found.todos[0]}/{found.todos[1]}"
    return ShownSession(
        found.session,
        f"{datetime.fromtimestamp(found.approved_at):%Y-%m-%d %H:%M}",
        how,
        found.files_edited,
        found.commits + found.patches,
        todos,
        f"{datetime.fromtimestamp(found.last_activity):%Y-%m-%d %H:%M}",
    )


def _plan_commands(view: PlanView) -> list[tuple[str, str]]:
    again = Again.of(view.root.settings)
    stem = view.name.removesuffix(".md")
    commands = [("Print it", again.command("show", stem))]
    listed = view.listed
    if view.place == "live" and listed is not None:
        if listed.action == "archive" or listed.plan_class in (
            PlanClass.COMPLETED,
            PlanClass.DORMANT,
        ):
            commands.append(("Archive it now", again.command("archive", stem)))
        if listed.action == "trash":
            commands.append(("Trash it with the other stale stubs", again.command("apply")))
    elif view.place in (Place.ARCHIVE, Place.KEPT):
        commands.append(("Put it back in the plans folder", again.command("restore", stem)))
    if view.history is not None and len(view.history.texts) > 1:
        commands.append(("Its versions", again.command("history", stem)))
    return commands


def plan_page(
    view: PlanView, catalogue: Catalogue, body_html: str | None, *, too_deep: bool
) -> str:
    """The plan's page: its Markdown rendered (body_html), or its plain text (None)."""
    rid = view.root.id
    listed = view.listed

    def linked(name: str) -> str | None:
        for plan in catalogue.plans:
            if plan.root == rid and plan.name == name:
                return plan_url(rid, plan.place, plan.value)
        return None

    if view.subplans:  # an archived plan's: each beside it in the archive
        subplans = [
            (name, None if path is None else plan_url(rid, "archive", path))
            for name, path in view.subplans
        ]
    else:
        subplans = [(name, linked(name)) for name in (listed.subplans if listed else ())]
    parent_name, parent_url = None, None
    if listed is not None and listed.parent:
        parent_name, parent_url = listed.parent, linked(listed.parent)
    elif view.parent is not None:
        parent_name, parent_url = view.parent[0], plan_url(rid, "archive", view.parent[1])
    here = plan_url(rid, view.place, listed.value if listed else view.name)
    project = listed.project if listed else None
    if project is None and view.record:
        project = view.record.get("project")
    stem = view.name.removesuffix(".md")
    return render(
        "plan.html",
        catalogue,
        title=view.name,
        view=view,
        # markdown.to_html escaped every character of the plan
        body=None if body_html is None else Markup(body_html),
        raw_url=here + "&raw=1",
        rendered_url=here,
        too_deep=too_deep,
        session=_session(view.session),
        project=project,
        subplans=subplans,
        parent_name=parent_name,
        parent_url=parent_url,
        commands=_plan_commands(view),
        shown=len(view.text.encode("utf-8", "surrogateescape")),
        show_command=Again.of(view.root.settings).command("show", stem),
        diff_url=lambda a, b, how: diff_url(rid, view.name, a, b, how),
    )


def diff_url(rid: str, name: str, first: int, second: int, how: str) -> str:
    return f"diff?r={rid}&v={encoded(name)}&a={first}&b={second}&view={how}"


def diff_page(
    catalogue: Catalogue,
    root: RootView,
    name: str,
    first: int,
    second: int,
    how: str,
    rows: Sequence[Any],
    back: str | None,
) -> str:
    stem = name.removesuffix(".md")
    other = "unified" if how == "split" else "split"
    return render(
        "diff.html",
        catalogue,
        title=f"{name}: {first} → {second}",
        name=name,
        first=first,
        second=second,
        view=how,
        rows=rows,
        back=back,
        other_url=diff_url(root.id, name, first, second, other),
        command=Again.of(root.settings).command("diff", stem, str(first), str(second)),
    )
