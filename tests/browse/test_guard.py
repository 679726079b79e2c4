"""What `clarity browse` refuses, over real sockets (SPEC 9.3): no token, a foreign Host
(DNS rebinding), any method but GET and HEAD, any address but loopback; and the
headers every answer carries."""

from __future__ import annotations

import signal
import socket
import subprocess

import pytest

from clarity.browse.guard import POLICY
from tests.browse.page import browse_server, clarity
from tests.browse.server import Served

PAGES = ["/", "/pictures", "/search?q=cache", "/search/hits?q=cache", "/static/browse.js"]


@pytest.mark.parametrize("path", [*PAGES, "/plan?r=x&p=live&v=x.md", "/nowhere"])
def test_a_request_without_the_token_is_refused(served, path):
    answer = served.ask(path, cookie=None)
    assert answer.status == 403
    assert "open the address clarity browse printed" in answer.body
    assert "misty-sleeping-cherny" not in answer.body  # no plan's name, title or text


def test_a_wrong_token_is_refused_in_the_address_and_in_the_cookie(served):
    assert served.ask("/?token=" + "x" * len(served.token), cookie=None).status == 403
    last = "A" if served.token[-1] != "A" else "B"  # another token, whatever this one ends in
    wrong = f"clarity-browse-{served.port}={served.token[:-1]}{last}"
    assert served.ask("/", cookie=wrong).status == 403
    other_port = f"clarity-browse-{served.port + 1}={served.token}"
    assert served.ask("/", cookie=other_port).status == 403


def test_the_token_in_the_address_becomes_a_cookie_and_leaves_the_address(served):
    answer = served.ask(f"/?class=active&token={served.token}", cookie=None)
    assert answer.status == 303
    assert answer.headers["location"] == served.prefix + "/?class=active"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(served.cookie + ";")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert cookie.endswith(f"; Path={served.prefix}/")  # never sent to another server's pages
    assert served.ask("/?class=active", cookie=served.cookie).status == 200


@pytest.mark.parametrize("path", ["/", "/plan?r=x&p=live&v=x.md", "/static/browse.js"])
def test_the_cookie_outside_the_secret_path_is_refused(served, path):
    # A page outside the prefix is one the cookie is never sent to: nothing is there.
    last = "A" if served.prefix[-1] != "A" else "B"  # another prefix, whatever this one ends in
    for outside in (path, served.prefix[:-1] + last + path, served.prefix + "x" + path):
        answer = served.ask(outside, raw=True)
        assert answer.status == 403 and "misty-sleeping-cherny" not in answer.body


def test_the_secret_path_without_its_slash_leads_to_the_list(served):
    answer = served.ask(served.prefix, raw=True)
    assert (answer.status, answer.headers["location"]) == (303, served.prefix + "/")


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "evil.example", "127.0.0.1:{other}", "127.0.0.1", "0.0.0.0:{port}"],
)
def test_a_foreign_host_is_refused_even_with_the_token(served, host):
    named = host.format(port=served.port, other=served.port + 1)
    answer = served.ask("/", host=named)
    assert answer.status == 403
    assert "loopback" in answer.body
    assert served.ask(f"/?token={served.token}", host=named, cookie=None).status == 403


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}"])
def test_the_loopback_names_are_served(served, host):
    assert served.ask("/", host=host.format(port=served.port)).status == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_only_get_and_head_are_served(served, method):
    answer = served.ask("/", method=method)
    assert answer.status == 405
    assert answer.headers["allow"] == "GET, HEAD"


def test_head_answers_without_a_body(served):
    answer = served.ask("/", method="HEAD")
    assert answer.status == 200
    assert answer.body == ""


@pytest.mark.parametrize("path", [*PAGES, "/plan?r=x&p=live&v=x.md"])
def test_every_answer_carries_the_policy(served, path):
    for cookie in ("yes", None):
        headers = served.ask(path, cookie=cookie).headers
        assert headers["content-security-policy"] == POLICY
        assert "script-src 'self'" in POLICY and "unsafe-inline" not in POLICY
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["cache-control"] == "no-store"
        assert headers["x-frame-options"] == "DENY"


def test_it_listens_on_loopback_only(served):
    for address in ("127.0.0.2", _outside_address()):
        if address is None:
            continue
        with pytest.raises(ConnectionRefusedError):
            served.ask("/", address=address, timeout=5)
    if socket.has_ipv6 and _has_ipv6_loopback():
        assert served.ask("/", address="::1", host=f"[::1]:{served.port}").status == 200


def _outside_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 9))  # UDP: sends nothing, picks the route's address
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


def test_a_port_in_use_is_one_line_and_exit_2(served, home):
    run = subprocess.run(
        [clarity(), "browse", "--no-open", "--port", str(served.port)],
        env=home[1],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert f"port {served.port}" in lines[0] and "--port" in lines[0]
    assert "Traceback" not in run.stderr


def test_ctrl_c_stops_it_in_one_line(home):
    with browse_server(home[1]) as (process, url):
        assert url.startswith("http://127.0.0.1:")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)
    assert process.returncode == 0
    assert out.strip().splitlines()[-1] == "clarity browse stopped."
    assert err == ""


def test_a_port_another_program_holds_says_what_to_do(home):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        run = subprocess.run(
            [clarity(), "browse", "--no-open", "--port", str(port)],
            env=home[1],
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        taken.close()
    assert run.returncode == 2
    assert "in use" in run.stderr and "Traceback" not in run.stderr


def _raw(served, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_two_host_headers_are_refused(served):
    request = (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nHost: evil.example\r\n"
        f"Cookie: {served.cookie}\r\nConnection: close\r\n\r\n"
    ).encode()
    # refused by the server's HTTP parser (400) or by the guard (403): never served
    assert _raw(served, request).split(b"\r\n", 1)[0] in (
        b"HTTP/1.1 400 Bad Request",
        b"HTTP/1.1 403 Forbidden",
    )


@pytest.mark.parametrize("path", ["//evil.example/", "/\\evil.example/", "///evil.example/x"])
def test_the_token_redirect_stays_on_this_server(served, path):
    answer = served.ask(f"{path}?token={served.token}", cookie=None)
    assert answer.status == 303
    location = answer.headers["location"]
    assert location.startswith(served.prefix + "/") and "//" not in location


def test_the_token_redirect_keeps_every_byte_of_the_query(served):
    answer = served.ask(f"/plan?r=ab&v=bad%FF%FEbytes.md&token={served.token}&x=1", cookie=None)
    assert answer.headers["location"] == served.prefix + "/plan?r=ab&v=bad%FF%FEbytes.md&x=1"
    twice = served.ask(f"/?token={served.token}&token={served.token}", cookie=None)
    assert twice.status == 403


def _few_files() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def test_idle_connections_are_closed_and_never_stop_it_answering(home):
    # Issue 42, case 7: idle connections never timed out; with 1,024 files allowed, 1,100
    # of them stopped it answering, and it printed 126 MB of tracebacks in 20 s.
    process = subprocess.Popen(
        [clarity(), "browse", "--no-open"],
        env=home[1],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_few_files,
    )
    idle: list[socket.socket] = []
    try:
        assert process.stdout is not None
        served = Served.from_url(process.stdout.readline().split()[-1])
        for _ in range(400):  # more than its files allow
            idle.append(socket.create_connection(("127.0.0.1", served.port), timeout=30))
        assert served.page("/").startswith("<!doctype html>")  # it answers all the same
        for sock in idle:  # each closed: at once past the cap, the rest once idle (10 s)
            assert sock.recv(1) == b""
        assert served.page("/").startswith("<!doctype html>")
    finally:
        for sock in idle:
            sock.close()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)
    assert (process.returncode, err) == (0, "")
    assert out.strip().splitlines()[-1] == "clarity browse stopped."
