"""Talking to a running `clarity browse` as a browser would, over a real socket."""

from __future__ import annotations

import http.client
import re
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: str


@dataclass(frozen=True)
class Served:
    """A running server: its port, its token, the cookie the token earns, and the secret
    path its pages live under (which the token's redirect tells)."""

    port: int
    token: str
    prefix: str = ""

    @classmethod
    def from_url(cls, url: str) -> Served:
        parts = urlsplit(url)
        token = re.search(r"token=([^&]+)", parts.query)
        assert parts.hostname == "127.0.0.1" and parts.port and token
        served = cls(parts.port, token.group(1))
        entered = served.ask(f"/?token={served.token}", cookie=None)
        assert entered.status == 303, entered
        prefix = entered.headers["location"].removesuffix("/")
        assert re.fullmatch(r"/[A-Za-z0-9_-]{24}", prefix), prefix
        return cls(served.port, served.token, prefix)

    def address(self, path: str) -> str:
        """Where a page is asked for: a path of the page's own (`/plan?...`) or a link
        on it (`plan?...`) under the prefix; one with the token, or under the prefix
        already, as it is."""
        if not self.prefix or "token=" in path or path.startswith(self.prefix + "/"):
            return path
        return self.prefix + (path if path.startswith("/") else "/" + path)

    @property
    def cookie(self) -> str:
        return f"clarity-browse-{self.port}={self.token}"

    def ask(
        self,
        path: str,
        *,
        method: str = "GET",
        host: str | None = None,
        cookie: str | None = "yes",
        address: str = "127.0.0.1",
        timeout: float = 60,
        raw: bool = False,
    ) -> Answer:
        """raw: the path as it is, not under the prefix."""
        connection = http.client.HTTPConnection(address, self.port, timeout=timeout)
        headers = {"Host": host or f"127.0.0.1:{self.port}"}
        if cookie == "yes":
            headers["Cookie"] = self.cookie
        elif cookie:
            headers["Cookie"] = cookie
        try:
            connection.request(method, path if raw else self.address(path), headers=headers)
            response = connection.getresponse()
            body = response.read().decode("utf-8", "replace")
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        finally:
            connection.close()

    def page(self, path: str) -> str:
        answer = self.ask(path)
        assert answer.status == 200, (path, answer.status, answer.body[:500])
        return answer.body
