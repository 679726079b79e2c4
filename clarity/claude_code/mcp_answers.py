"""What the MCP server's tools and resources answer (mcp_server.py says how they are
offered): each argument checked, each answer in the shape mcp_shapes.py declares. A
bad argument is a ValueError in one line, which the client sees as the tool's error.

Every read goes through workflows/: a search over every root (or the one named),
a plan by its name, a scan that records nothing."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from datetime import datetime
from pathlib import Path

from clarity.behind import LastFound
from clarity.claude_code.mcp_shapes import Found, Listed, PlanList, PlanText
from clarity.errors import ClarityError
from clarity.model import Place, PlanClass
from clarity.settings.config import Settings
from clarity.workflows.rows import PlanRow, live_rows, rows_json

TEXT_CHARS = 100_000  # of a plan get_plan returns, at most: a context is not a disk
PAGE_MOST = 500  # plans one list_plans page holds, at most
SEARCH_MOST = 100
REFRESH_SECONDS = 2.0  # a search index refresh stays good this long in the server (run_search)
# list_plans' scan is reused while the plans folder, the archive's index and the sessions
# read are as they were; past this long it is made again behind the calls (a plan edited
# in place, and the classes that age alone changes, catch up then): the warm server
# answers a page in milliseconds, never a scan of every plan on a call (issue 45).
LIST_REUSE_SECONDS = 60.0
RESOURCES_MOST = 500  # plans resources/list offers (the newest): the template reaches every one
WHERE: dict[str, str | None] = {"all": None, **{place: place for place in Place}}
CLASSES = tuple(PlanClass)


def since_of(value: str | None) -> datetime | None:
    """MCP's `since`, read as the CLI's --since is (a date without an offset: local time)."""
    if value is None:
        return None
    from clarity.dates import NotADate, parse_moment

    try:
        return parse_moment(value)
    except NotADate as error:
        raise ValueError(f"since {error}") from None


def limit_of(value: int, most: int) -> int:
    if not 1 <= value <= most:
        raise ValueError(f"limit must be between 1 and {most}")
    return value


def project_of(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.strip() or "\0" in value:
        raise ValueError("project must be a folder's path")
    try:
        return str(Path(value).expanduser().absolute())
    except RuntimeError:  # ~nouser/x: no such user, no home to expand
        raise ValueError("project names the home of no user here; give the folder's path") from None


def search(settings: Settings, query: str, project: str | None, where: str, limit: int) -> Found:
    from clarity.model import SearchRequest
    from clarity.render.search_report import hits_document
    from clarity.workflows.searching import search_plans

    if where not in WHERE:
        raise ValueError("where must be all, live, archive or kept")
    request = SearchRequest(
        query, place=WHERE[where], project=project_of(project), limit=limit_of(limit, SEARCH_MOST)
    )
    document = hits_document(search_plans(settings, request, reuse_within=REFRESH_SECONDS))
    for hit in document["hits"]:
        del hit["score"]
    found: Found = document  # type: ignore[assignment]  # hits_document writes this shape
    return found


def get_plan(settings: Settings, name: str) -> PlanText:
    from clarity.workflows.plan_by_name import plan_by_name, record_of

    try:  # a bounded part: a plan of 3 GiB is not read whole for a context
        found = plan_by_name(settings, name, most=4 * TEXT_CHARS, reuse=True)
    except ClarityError as error:
        if error.message.startswith("no live plan"):  # the CLI's advice is no tool's
            raise ValueError(
                f"no plan named {name!r}, live, archived or kept; call search_plans with "
                "words it holds, or list_plans, to find its name"
            ) from None
        raise ValueError(error.message) from None
    body = found.data.decode("utf-8", "replace")
    return PlanText(
        name=found.name,
        where=found.where,
        path=str(found.path),
        record=record_of(found),
        text=body[:TEXT_CHARS],
        truncated=found.cut or len(body) > TEXT_CHARS,
    )


def list_plans(
    settings: Settings,
    project: str | None,
    plan_class: str | None,
    since: str | None,
    limit: int,
    cursor: str | None,
) -> PlanList:
    """One page of the live plans, newest first; the cursor (opaque to the client) says
    where the next page starts, and for which question."""
    if plan_class is not None and plan_class not in CLASSES:
        raise ValueError(f"plan_class must be one of {', '.join(CLASSES)}")
    after, folder, size = since_of(since), project_of(project), limit_of(limit, PAGE_MOST)
    asked = _question(folder, plan_class, since)
    start = 0 if cursor is None else _start(cursor, asked)
    rows, notes, now = _live(settings, folder)
    chosen = [
        row
        for row in rows
        if (plan_class is None or row.plan_class == plan_class)
        and (after is None or row.mtime >= after.timestamp())
    ]
    page = chosen[start : start + size]
    more = start + size < len(chosen)
    fields = Listed.__annotations__
    return PlanList(
        plans_dir=str(settings.plans_dir),
        total=len(chosen),
        plans=[
            {key: value for key, value in plan.items() if key in fields}  # type: ignore[misc]
            for plan in rows_json(page, now)
        ],
        notes=notes,
        nextCursor=_cursor(start + size, asked) if more else None,
    )


_LISTED: LastFound[tuple[list[PlanRow], list[str], datetime]] = LastFound("list_plans")


def _live(settings: Settings, folder: str | None) -> tuple[list[PlanRow], list[str], datetime]:
    """The live plans as a scan that records nothing sees them, newest first, and the
    scan's now: the last such scan of this folder and project while the folder, the
    archive's index and the sessions are as they were; one older than LIST_REUSE_SECONDS
    (an edit in place, the classes age alone changes) is made again behind the calls,
    which meanwhile answer from it."""
    key = (str(settings.plans_dir), str(settings.archive_dir), str(folder))
    return _LISTED.get(
        key,
        lambda: _scanned(settings, folder),
        within=LIST_REUSE_SECONDS,
        stamp=_listing_stamp(settings),
    )


def _listing_stamp(settings: Settings) -> tuple[int, ...]:
    """What says the listing may have changed, at the cost of a few stats: the plans
    folder (a plan added, renamed, removed), the archive's index, and the state of the
    sessions the last scan read (a new approval)."""
    from clarity.state import DirState

    state = DirState.for_plans_dir(settings.plans_dir)
    stamp: list[int] = []
    for path in (settings.plans_dir, settings.archive_dir / "index.jsonl", state.sessions_file):
        try:
            info = path.stat()
            stamp += [info.st_mtime_ns, info.st_ctime_ns, info.st_size]
        except OSError:
            stamp.append(-1)
    return tuple(stamp)


def _scanned(settings: Settings, folder: str | None) -> tuple[list[PlanRow], list[str], datetime]:
    from clarity.model import ScanRequest
    from clarity.workflows.scanning import run_scan

    notes: list[str] = []
    request = ScanRequest(
        datetime.now().astimezone(), project=None if folder is None else Path(folder)
    )
    report = run_scan(
        settings,
        request,
        notes.append,
        record=False,
        settle=False,  # a read-only tool: a killed run is left to the next apply
    )
    rows = live_rows(report)
    rows.sort(key=lambda row: (row.mtime, row.name), reverse=True)
    return rows, notes, report.now


def _question(*asked: str | None) -> str:
    return hashlib.sha256(json.dumps(asked).encode()).hexdigest()[:16]


def _cursor(start: int, asked: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([start, asked]).encode()).decode()


def _start(cursor: str, asked: str) -> int:
    """Where the page a cursor asks for starts; ValueError for one list_plans did not give
    for this question (a cursor of another listing would page through the wrong plans)."""
    try:
        start, question = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, TypeError, binascii.Error, UnicodeEncodeError):
        raise ValueError("cursor is not one list_plans gave; leave it out to start") from None
    if question != asked or not isinstance(start, int) or start < 0:
        raise ValueError(
            "cursor belongs to a list_plans call with other arguments; ask with the same "
            "project, plan_class and since, or leave it out to start"
        )
    return start


def resource_text(settings: Settings, name: str) -> str:
    """A plan's text for resources/read (plan://NAME): live, archived or kept."""
    return get_plan(settings, name)["text"]


def version_text(settings: Settings, name: str, number: int) -> str:
    """Version `number` of a plan (plan://NAME/versions/N; 1 = the oldest)."""
    from clarity.workflows.versions import plan_history, text_of

    try:
        _, data = text_of(plan_history(settings, name), number)
    except ClarityError as error:
        raise ValueError(error.message) from None
    return data.decode("utf-8", "replace")[:TEXT_CHARS]


def plan_names(settings: Settings) -> list[tuple[str, str]]:
    """(name, where) of the newest live and archived plans, for resources/list: what a
    person may @-mention; any other plan is reached through the template by its name."""
    from clarity.workflows.plan_by_name import newest_plans

    return newest_plans(settings, RESOURCES_MOST)
