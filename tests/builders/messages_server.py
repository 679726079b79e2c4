"""A local server that speaks the Messages API, for the real anthropic SDK to talk to.

It answers POST /v1/messages with a forced tool call whose input depends on
the tool asked for, or with whatever replies a test queues (errors,
malformed bodies). Every request body is kept so tests can see what was sent.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    status: int = 200
    body: bytes | dict[str, Any] | None = None  # None: the default tool answer
    headers: dict[str, str] = field(default_factory=dict)


def error_reply(status: int, kind: str, message: str) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    # retry-after-ms: the SDK's retries happen at once instead of after a backoff
    return Reply(status, body, {"retry-after-ms": "1"})


ANSWERS: dict[str, dict[str, Any]] = {
    "record_summary": {"summary": "Agent summary: built the cache, chose LRU for its simplicity."},
    "record_verdict": {
        "verdict": "abandoned",
        "reason": "No activity for weeks and no steps done.",
        "confidence": 0.8,
    },
}


class MessagesServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: deque[Reply] = deque()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def sent_text(self) -> str:
        """Every user message sent so far, as one string."""
        return "\n".join(
            str(message["content"]) for body in self.requests for message in body["messages"]
        )

    def _answer(self, request: dict[str, Any]) -> Reply:
        if self.replies:
            reply = self.replies.popleft()
            if reply.body is not None:
                return reply
        tool = request["tool_choice"]["name"]
        body = {
            "id": f"msg_{len(self.requests)}",
            "type": "message",
            "role": "assistant",
            "model": request["model"],
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": tool, "input": ANSWERS[tool]}
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": len(json.dumps(request)) // 4, "output_tokens": 60},
        }
        return Reply(200, body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                request = json.loads(self.rfile.read(length))
                server.requests.append(request)
                reply = server._answer(request)
                body = (
                    reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                )
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet

        return Handler

    def __enter__(self) -> MessagesServer:
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def claude(monkeypatch: pytest.MonkeyPatch) -> Iterator[MessagesServer]:
    """A Messages API on 127.0.0.1, with the SDK pointed at it and a key set."""
    with MessagesServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-for-the-local-server")
        yield server
