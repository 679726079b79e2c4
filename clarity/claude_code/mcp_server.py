"""`clarity mcp`: a Model Context Protocol server on stdio, so that Claude asks clarity
(SPEC 9.1), to the MCP standard of 2025-06-18: each tool has a title, read-only
annotations, an outputSchema (mcp_shapes.py) and answers with structuredContent.
Imported by that command alone.

Three tools, all read-only, shaped as MCP servers for history are: a search
returns compact records, a get returns the full text.

- search_plans(query, project?, where?, limit?): live and archived plans of every
  plans folder by their words, best first (clarity search);
- get_plan(name): one plan's text (bounded), live or archived, with what
  clarity knows of it;
- list_plans(project?, plan_class?, since?, limit?, cursor?): the scan's view,
  each plan with its class and reason (a scan that records nothing), a page at a
  time.

And every plan is a resource, `plan://NAME` (an earlier text:
`plan://NAME/versions/N`), so that a person can @-mention one; resources/list
offers the newest. What each answers is in mcp_answers.py.

Nothing here moves, writes or deletes a plan: the search index and the facts
cache, clarity's own caches in its state folder, are all it writes. A bad
argument, or anything clarity refuses, is a tool error the client sees, never
a crash of the server."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar
from urllib.parse import quote, unquote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp_types import Resource as MCPResource
from mcp_types import ToolAnnotations
from pydantic import ValidationError

from clarity import __version__
from clarity.claude_code import mcp_answers as answers
from clarity.claude_code.mcp_shapes import Found, PlanList, PlanText
from clarity.errors import ClarityError
from clarity.settings.config import Settings

P = ParamSpec("P")
R = TypeVar("R")
_READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


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

    return _refusing(tool, ToolError)


def _read(resource: Callable[P, R]) -> Callable[P, R]:
    """What clarity refuses when a resource is read: the client's resource error, one line."""
    return _refusing(resource, ResourceError)


def _refusing(call: Callable[P, R], refusal: type[Exception]) -> Callable[P, R]:
    @functools.wraps(call)
    def answer(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            result: R = _text_safe(call(*args, **kwargs))
        except ClarityError as error:
            raise refusal(_text_safe(error.message)) from None
        except (ValueError, OSError) as error:
            raise refusal(_text_safe(str(error))) from None
        return result

    # The SDK sends the docstring as the description: without the source's indentation
    answer.__doc__ = inspect.cleandoc(call.__doc__) if call.__doc__ else None
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
    pydantic's lines with a URL; clarity's own refusals without the SDK's prefix. Its
    resources/list offers the newest plans, each `plan://NAME`, for a person to @-mention."""

    def __init__(self, settings: Settings) -> None:
        # WARNING: the SDK's INFO lines ("Processing request of type ...", boxed by Rich)
        # would fill the client's log with one line a call; a warning still shows.
        super().__init__(
            "clarity", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
        )
        self._settings = settings

    async def list_resources(self) -> list[MCPResource]:
        return [
            MCPResource(
                uri=f"plan://{quote(name.removesuffix('.md'), safe='')}",
                name=name,
                title=f"{name} ({where})",
                mime_type="text/markdown",
            )
            for name, where in answers.plan_names(self._settings)
        ]

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
    server = _OneLineServer(settings)

    @server.tool(title="Search Claude Code plans", annotations=_READ_ONLY)
    @_anticipated
    def search_plans(
        query: str, project: str | None = None, where: str = "all", limit: int = 10
    ) -> Found:
        """Find Claude Code plans by their words, best first: the live ones (~/.claude/plans
        and every project's plansDirectory), those clarity archived, and earlier texts of a
        plan and plans Claude Code deleted that clarity kept (where "kept", the reason says
        which version). where: all, live, archive or kept. Each hit: name, where it lives,
        class, project, date, title and the line that matched. Reads plan files and
        clarity's search index; changes nothing."""
        return answers.search(settings, query, project, where, limit)

    @server.tool(title="Read a Claude Code plan", annotations=_READ_ONLY)
    @_anticipated
    def get_plan(name: str) -> PlanText:
        """One plan's text (at most 100,000 characters), by its name (foo, foo.md; an
        archived one also as 2026-Q4/foo.md): live first, then the archive, then a text
        clarity kept; with the archive's record of it. Reads the plan file; changes nothing."""
        return answers.get_plan(settings, name)

    @server.tool(title="List Claude Code plans by class", annotations=_READ_ONLY)
    @_anticipated
    def list_plans(
        project: str | None = None,
        plan_class: str | None = None,
        since: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> PlanList:
        """The live plans as clarity's scan sees them, newest first: each with its class
        (active, completed, stale, dormant), the reason, project, date and title. A page
        holds `limit` plans; pass the answer's nextCursor as cursor for the next. Reads plan
        files and Claude Code's session transcripts; changes nothing (it records no scan)."""
        return answers.list_plans(settings, project, plan_class, since, limit, cursor)

    @server.resource(
        "plan://{name}",
        title="A Claude Code plan",
        description="A plan's text by its name: live, archived or kept by clarity.",
        mime_type="text/markdown",
    )
    @_read
    def plan(name: str) -> str:
        return answers.resource_text(settings, unquote(name))

    @server.resource(
        "plan://{name}/versions/{number}",
        title="An earlier text of a Claude Code plan",
        description="Version N of a plan (1 = the oldest), as clarity history lists them.",
        mime_type="text/markdown",
    )
    @_read
    def plan_version(name: str, number: str) -> str:
        if not number.isdigit():
            raise ValueError(f"version {number!r} is not a number; 1 is the oldest")
        return answers.version_text(settings, unquote(name), int(number))

    return server


def serve(settings: Settings) -> None:
    """Answer on stdin and stdout until the client goes."""
    from clarity.claude_code.mcp_stdin import repair_stdin

    server = build_server(settings)
    repair_stdin()  # a lone surrogate in a request: answered, not dropped by the SDK
    server.run("stdio")
