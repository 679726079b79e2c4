"""`clarity mcp`: a Model Context Protocol server on stdio, so that Claude asks clarity
(SPEC 9.1). Imported by that command alone (the `mcp` SDK is an extra).

Three tools, all read-only, shaped as MCP servers for history are: a search
returns compact records, a get returns the full text.

- search_plans(query, project?, where?, limit?): live and archived plans by
  their words, best first (clarity search);
- get_plan(name): one plan's text (bounded), live or archived, with what
  clarity knows of it;
- list_plans(project?, plan_class?, since?, limit?): the scan's view, each
  plan with its class and reason (a scan that records nothing).

Nothing here moves, writes or deletes a plan: the search index and the facts
cache, clarity's own caches in its state folder, are all it writes. A bad
argument, or anything clarity refuses, is a tool error the client sees, never
a crash of the server.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import ValidationError

from clarity import __version__
from clarity.config import Settings
from clarity.errors import ClarityError

P = ParamSpec("P")
R = TypeVar("R")
TEXT_CHARS = 100_000  # of a plan get_plan returns, at most: a context is not a disk
LIST_MOST = 500
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
_WHERE = {"all": None, "live": "live", "archive": "archive", "kept": "kept"}
_CLASSES = ("active", "completed", "stale", "dormant")


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"since {value!r} is not a date; give one as 2026-10-01") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _limit(value: int, most: int) -> int:
    if not 1 <= value <= most:
        raise ValueError(f"limit must be between 1 and {most}")
    return value


def _project(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.strip() or "\0" in value:
        raise ValueError("project must be a folder's path")
    try:
        return str(Path(value).expanduser().absolute())
    except RuntimeError:  # ~nouser/x: no such user, no home to expand
        raise ValueError("project names the home of no user here; give the folder's path") from None


def _text_safe(value: Any) -> Any:
    """A result (or a message) with every string made text JSON can carry: a file name of
    bytes that are not UTF-8, or a lone surrogate a client sent, as U+FFFD (the SDK would
    fail to send it, and the client would get no answer at all)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # each surrogate one U+FFFD, as search's names show them
            return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in value)
        return value
    if isinstance(value, dict):
        return {_text_safe(key): _text_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_text_safe(item) for item in value]
    return value


def _anticipated(tool: Callable[P, R]) -> Callable[P, R]:
    """What clarity refuses (a bad argument, a plan it cannot find or read) reaches the
    model as the tool's error, in clarity's one line; the SDK would mask it as a crash."""

    @functools.wraps(tool)
    def answer(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            result: R = _text_safe(tool(*args, **kwargs))
        except ClarityError as error:
            raise ToolError(_text_safe(error.message)) from None
        except (ValueError, OSError) as error:
            raise ToolError(_text_safe(str(error))) from None
        return result

    return answer


# What Claude is told of the server when it connects (the module's docstring is for us).
INSTRUCTIONS = (
    "clarity knows every Claude Code plan on this machine: the live ones (the plans "
    "directory), those clarity archived, and every earlier text of a plan clarity kept "
    "(plans Claude Code deleted too). search_plans finds plans by their words, best "
    "first; get_plan reads one, live, archived or kept; list_plans gives each live plan's class "
    "(active, completed, stale, dormant) and why. Use them to answer questions about earlier "
    "plans (what was decided, what is still open). All read-only: nothing here moves a plan."
)


class _OneLineServer(MCPServer):
    """The SDK's server, its tool errors in clarity's one line (issue 36, item 9): an
    argument of the wrong type is said as `limit: Input should be a valid integer`, not
    pydantic's lines with a URL; clarity's own refusals without the SDK's prefix."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            if isinstance(error, UnexpectedToolError):
                raise  # a crash: the SDK says nothing of it to the client, as it should
            cause = error.__cause__
            if isinstance(cause, ValidationError):
                said = "; ".join(
                    f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
                    for problem in cause.errors()
                )
                raise ToolError(_text_safe(f"{name}: {said}")) from cause
            text = str(error).removeprefix(f"Error executing tool {name}: ")
            raise ToolError(text) from error.__cause__


def build_server(settings: Settings) -> MCPServer:
    server = _OneLineServer("clarity", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(annotations=_READ_ONLY)
    @_anticipated
    def search_plans(
        query: str, project: str | None = None, where: str = "all", limit: int = 10
    ) -> dict[str, Any]:
        """Find Claude Code plans, live (~/.claude/plans and every project's plansDirectory)
        or archived by clarity, by their words, best first; also earlier texts of a plan,
        and plans Claude Code deleted, that clarity kept (where "kept", the reason saying
        which version). where: all, live, archive or kept. Each hit: name, where it
        lives, class, project, date, title and the line that matched."""
        from clarity.render.search_report import hits_document
        from clarity.workflows.searching import search_plans as search

        if where not in _WHERE:
            raise ValueError("where must be all, live, archive or kept")
        from clarity.search import SearchRequest

        request = SearchRequest(
            query, place=_WHERE[where], project=_project(project), limit=_limit(limit, 100)
        )
        found = search(settings, request)
        document = hits_document(found)
        for hit in document["hits"]:
            del hit["score"]
        return document

    @server.tool(annotations=_READ_ONLY)
    @_anticipated
    def get_plan(name: str) -> dict[str, Any]:
        """One plan's text, by its name (foo, foo.md; an archived one also as 2026-Q4/foo.md),
        live first, then the archive; with what clarity knows of it."""
        return _get_plan(settings, name)

    @server.tool(annotations=_READ_ONLY)
    @_anticipated
    def list_plans(
        project: str | None = None,
        plan_class: str | None = None,
        since: str | None = None,
        limit: int = 100,
    ) -> dict[str, Any]:
        """The live plans as clarity's scan sees them: each with its class (active, completed,
        stale, dormant), the reason, project, date and title; newest first."""
        return _list_plans(settings, project, plan_class, since, limit)

    return server


def _get_plan(settings: Settings, name: str) -> dict[str, Any]:
    from clarity.workflows.plan_by_name import plan_by_name, record_of

    try:  # a bounded part: a plan of 3 GiB is not read whole for a context
        found = plan_by_name(settings, name, most=4 * TEXT_CHARS)
    except ClarityError as error:
        raise ValueError(error.message) from None
    body = found.data.decode("utf-8", "replace")
    return {
        "name": found.name,
        "where": found.where,
        "path": str(found.path),
        "record": record_of(found),
        "text": body[:TEXT_CHARS],
        "truncated": found.cut or len(body) > TEXT_CHARS,
    }


def _list_plans(
    settings: Settings,
    project: str | None,
    plan_class: str | None,
    since: str | None,
    limit: int,
) -> dict[str, Any]:
    from clarity.render.json_report import scan_document
    from clarity.workflows.scanning import run_scan

    if plan_class is not None and plan_class not in _CLASSES:
        raise ValueError(f"plan_class must be one of {', '.join(_CLASSES)}")
    after = _since(since)
    folder = _project(project)
    notes: list[str] = []
    report = run_scan(
        settings,
        datetime.now().astimezone(),
        (),
        None,
        notes.append,
        project=None if folder is None else Path(folder),
        record=False,
        settle=False,  # a read-only tool: a killed run is left to the next apply
    )
    plans = [
        plan
        for plan in scan_document(report)["plans"]
        if (plan_class is None or plan["class"] == plan_class)
        and (after is None or datetime.fromisoformat(plan["mtime"]) >= after)
    ]
    plans.sort(key=lambda plan: plan["mtime"], reverse=True)
    keep = ("name", "class", "action", "reason", "title", "project", "mtime", "age_days")
    shown = plans[: _limit(limit, LIST_MOST)]
    return {
        "plans_dir": str(settings.plans_dir),
        "total": len(plans),
        "plans": [{key: plan.get(key) for key in keep} for plan in shown],
        "notes": notes,
    }


def serve(settings: Settings) -> None:
    """Answer on stdin and stdout until the client goes."""
    from clarity.claude_code.mcp_stdin import repair_stdin

    server = build_server(settings)
    repair_stdin()  # a lone surrogate in a request: answered, not dropped by the SDK
    server.run("stdio")
