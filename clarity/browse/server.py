"""`clarity browse`: bind loopback, print the address with its token, serve until Ctrl-C.

uvicorn serves (the MCP SDK brings it and Starlette): one socket on 127.0.0.1 and,
where the machine has IPv6, one on ::1 at the same port, never a wider address.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import signal
import socket
import sys
from collections.abc import Callable

from clarity.errors import ClarityError
from clarity.settings.config import Settings

Say = Callable[[str], None]
STOPPING = (signal.SIGINT, signal.SIGTERM)
MAX_CONNECTIONS = 64  # a person's browser opens a few; past this one is closed at once
IDLE_SECONDS = 10.0  # a connection that has not sent a whole request by then is closed


def _socket(family: socket.AddressFamily, host: str, port: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def bind_loopback(port: int) -> list[socket.socket]:
    """Sockets on 127.0.0.1 (port 0: one the system picks) and ::1 at the same port."""
    try:
        first = _socket(socket.AF_INET, "127.0.0.1", port)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise ClarityError(
                f"port {port} on 127.0.0.1 is in use; give another with --port, "
                "or leave --port out to take a free one"
            ) from None
        raise ClarityError(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}; "
            "give another port with --port"
        ) from None
    chosen = first.getsockname()[1]
    try:
        return [first, _socket(socket.AF_INET6, "::1", chosen)]
    except OSError:  # no IPv6 here, or ::1 taken at that port: 127.0.0.1 alone serves
        return [first]


def _protocol() -> type:
    """uvicorn's HTTP protocol, bounded: idle connections never pile up until the
    process runs out of files (1,100 of them once stopped it answering, and asyncio
    printed a traceback for each accept that failed)."""
    import asyncio

    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Bounded(H11Protocol):
        made = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.made = self.loop.time()
            self.loop.call_later(IDLE_SECONDS, self._close_if_idle)
            if len(self.connections) > MAX_CONNECTIONS:
                # Room for the newest (a person's click): the oldest idle one goes first.
                idle = [c for c in self.connections if isinstance(c, Bounded) and c.idle()]
                oldest = min(idle, key=lambda c: c.made, default=self)
                oldest.transport.close()

        def idle(self) -> bool:
            """No request whole yet (none sent, or one sent a byte at a time). One being
            answered is never idle; between requests uvicorn's keep-alive closes it."""
            return self.cycle is None and not self.transport.is_closing()

        def _close_if_idle(self) -> None:
            if self.idle():
                self.transport.close()

    return Bounded


def _can_open() -> bool:
    """Whether a graphical browser can be opened: on Linux without a display, Python's
    webbrowser would start a text browser in this very terminal."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def serve(settings: Settings, *, port: int, open_page: bool, say: Say, warn: Say) -> None:
    """Serve the page until Ctrl-C (or SIGTERM); says the address, and that it stopped;
    warns of a page that failed."""
    import uvicorn

    from clarity.browse.app import make_app
    from clarity.browse.guard import Guard
    from clarity.workflows.catalogue import Browser, check_named_folder

    check_named_folder(settings)
    sockets = bind_loopback(port)
    chosen = sockets[0].getsockname()[1]
    token = secrets.token_urlsafe(24)
    prefix = "/" + secrets.token_urlsafe(18)  # the pages' secret path (browse/guard.py)
    browser = Browser(settings)
    config = uvicorn.Config(
        Guard(make_app(browser, warn), token, chosen, prefix),
        # Its own lines would be a traceback for a page cut short by Ctrl-C, or a warning
        # for each malformed request any local program sends: the pages say their errors.
        log_level="critical",
        access_log=False,
        lifespan="off",
        server_header=False,
        date_header=False,
        timeout_graceful_shutdown=1,
        http=_protocol(),
        timeout_keep_alive=5,
        # asyncio accepts up to `backlog` connections at each wake (uvicorn's 2,048): 400
        # at once took every file the process had, and the first catalogue, made meanwhile,
        # failed with "Too many open files". At most the cap at a time leaves it room.
        backlog=MAX_CONNECTIONS,
    )
    server = uvicorn.Server(config)
    # asyncio's own log would print a traceback for each connection it could not accept
    # (out of files): the page's failures are said through warn, and nothing else is.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    # Ctrl-C (or SIGTERM) from now on asks the server to stop, even before it runs:
    # a person who stops it at once gets the same one line, never a traceback.
    previous = {sig: signal.signal(sig, server.handle_exit) for sig in STOPPING}
    try:
        browser.start()  # the first catalogue is made while the browser opens
        url = f"http://127.0.0.1:{chosen}/?token={token}"
        say(f"clarity browse: every plan, read-only, at {url}")
        if open_page and _can_open():
            import webbrowser

            webbrowser.open(url)
        elif open_page:
            say("Open that address in a browser (no display here to open one). Ctrl-C stops it.")
        else:
            say("Ctrl-C stops it.")
        server.run(sockets=sockets)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sock in sockets:
            sock.close()
    say("clarity browse stopped.")
