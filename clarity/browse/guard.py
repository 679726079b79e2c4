"""What every request must pass and every answer carries (SPEC 9.3).

A request is served only when its `Host` is the loopback name and port this server
answers at (a foreign Host is DNS rebinding: a page elsewhere made a name point here),
its method is GET or HEAD, and it carries the token: in the address clarity printed
(`?token=`, as Jupyter's), or in the cookie the first such request sets. The token in
an address is then taken out of it (a redirect), so it stays out of history and of
the plan links. Every answer forbids scripts but the page's own, framing, and
sniffing.

Every page lives under a secret path (`/<prefix>/`), and the cookie is scoped to it:
browsers send a loopback cookie to every port of that host, so a cookie scoped to `/`
would reach any other local server the browser opens, and with it every plan. No
other server is ever asked for a path under the prefix, which only this server's
redirect tells the browser. The pages link to each other relatively, within it.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

# Scripts, styles and pictures from this server only; no inline script (a plan's text
# could hold one), no plugin, no frame, no form sent elsewhere, no request out.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def hosts_for(port: int) -> frozenset[bytes]:
    """The Host values this server answers: its loopback names, with its port."""
    return frozenset(f"{name}:{port}".encode() for name in ("127.0.0.1", "[::1]", "localhost"))


def _cookie(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key != b"cookie":
            continue
        for part in value.split(b";"):
            found, _, text = part.strip().partition(b"=")
            if found == name:
                return text
    return None


class Guard:
    """The ASGI app in front of the page's: refuses, or passes on with the headers."""

    def __init__(self, app: App, token: str, port: int, prefix: str) -> None:
        self.app = app
        self.token = token.encode()
        self.hosts = hosts_for(port)
        self.cookie = f"clarity-browse-{port}".encode()
        self.prefix = prefix.rstrip("/").encode()  # "/<secret>", the pages under it

    async def _refuse(self, send: Send, status: int, text: str, extra: Any = ()) -> None:
        body = (text + "\n").encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    *HEADERS,
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    *extra,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _given(self, token: bytes | None) -> bool:
        return token is not None and hmac.compare_digest(token, self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no websocket, no lifespan: nothing else is served
        headers: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
        hosts = [value for key, value in headers if key == b"host"]
        host = hosts[0] if len(hosts) == 1 else None  # two Hosts: which one was meant?
        if host not in self.hosts:
            await self._refuse(
                send, 403, "Refused: this page answers only at its loopback address."
            )
            return
        if scope["method"] not in ("GET", "HEAD"):
            await self._refuse(
                send,
                405,
                "Refused: this page is read-only (GET and HEAD).",
                [(b"allow", b"GET, HEAD")],
            )
            return
        # The query as sent, its parts kept byte for byte (a name that is not UTF-8 too).
        parts = [part for part in scope.get("query_string", b"").split(b"&") if part]
        tokens = [part[6:] for part in parts if part.startswith(b"token=")]
        if tokens:
            if len(tokens) > 1 or not self._given(unquote_to_bytes(tokens[0])):
                await self._refuse(send, 403, "Refused: that token is not this server's.")
                return
            rest = b"&".join(part for part in parts if not part.startswith(b"token="))
            # always a path of this server, under the prefix: "//elsewhere/" would be
            # another site, and a path given with the prefix is not given it twice
            asked = self._page(_raw_path(scope)) or b"/" + _raw_path(scope).lstrip(b"/\\")
            where = self.prefix + asked + (b"?" + rest if rest else b"")
            cookie = b"%s=%s; HttpOnly; SameSite=Strict; Path=%s/" % (
                self.cookie,
                self.token,
                self.prefix,
            )
            await self._refuse(
                send, 303, "See the page.", [(b"location", where), (b"set-cookie", cookie)]
            )
            return
        page = self._page(_raw_path(scope))
        if page is None or not self._given(_cookie(headers, self.cookie)):
            await self._refuse(
                send,
                403,
                "Refused: open the address clarity browse printed (it carries the token).",
            )
            return
        if _raw_path(scope) == self.prefix:  # the list, asked without its slash
            await self._refuse(send, 303, "See the page.", [(b"location", self.prefix + b"/")])
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        inner = dict(scope)
        inner["raw_path"] = page
        inner["path"] = scope["path"][len(self.prefix) :] or "/"
        await self.app(inner, receive, with_headers)

    def _page(self, raw_path: bytes) -> bytes | None:
        """The page's own path under the prefix (`/plan`), or None if it is not under it."""
        if raw_path == self.prefix:
            return b"/"
        if raw_path.startswith(self.prefix + b"/"):
            return raw_path[len(self.prefix) :]
        return None


def _raw_path(scope: Scope) -> bytes:
    raw = scope.get("raw_path")
    return raw if isinstance(raw, bytes) else str(scope["path"]).encode()
