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
    """A running server: its port, its token, and the cookie the token earns."""

    port: int
    token: str

    @classmethod
    def from_url(cls, url: str) -> Served:
        parts = urlsplit(url)
        token = re.search(r"token=([^&]+)", parts.query)
        assert parts.hostname == "127.0.0.1" and parts.port and token
        return cls(parts.port, token.group(1))

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
    ) -> Answer:
        connection = http.client.HTTPConnection(address, self.port, timeout=timeout)
        headers = {"Host": host or f"127.0.0.1:{self.port}"}
        if cookie == "yes":
            headers["Cookie"] = self.cookie
        elif cookie:
            headers["Cookie"] = cookie
        try:
            connection.request(method, path, headers=headers)
            response = connection.getresponse()
            body = response.read().decode("utf-8", "replace")
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        finally:
            connection.close()

    def page(self, path: str) -> str:
        answer = self.ask(path)
        assert answer.status == 200, (path, answer.status, answer.body[:500])
        return answer.body
