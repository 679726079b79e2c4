"""The built wheel, installed in a clean venv, runs every kind of command: the demo, scan,
apply and undo on a plans folder of its own, the MCP server's initialize, browse's start,
and `uvx --from <wheel> clarity --version`. Standard library only.

    python .ci/wheel_smoke.py <venv bin folder> <wheel>
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.argv[1])
WHEEL = Path(sys.argv[2])
CLARITY = str(BIN / "clarity")
NOW = "2026-11-21T10:00:00+00:00"


def run(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [CLARITY, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    if done.returncode != 0:
        sys.exit(f"clarity {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="clarity-wheel-"))
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "LANG": "C.UTF-8",
    }
    print(run("--version", env=env).strip())
    run("demo", env=env)
    plans = home / "plans"
    plans.mkdir()
    plan = plans / "done.md"
    plan.write_text("# Done COMPLETED\n")
    from datetime import datetime

    moment = datetime.fromisoformat(NOW).timestamp() - 3 * 86400  # three days before NOW
    os.utime(plan, (moment, moment))
    scanned = json.loads(run("scan", "--plans-dir", str(plans), "--now", NOW, "--json", env=env))
    assert [p["class"] for p in scanned["plans"]] == ["completed"], scanned
    run("apply", "--plans-dir", str(plans), "--yes", "--now", NOW, env=env)
    assert not plan.exists()
    run("undo", "--plans-dir", str(plans), "--yes", env=env)
    assert plan.read_text() == "# Done COMPLETED\n"
    print("scan, apply, undo: ok")

    server = subprocess.Popen(
        [CLARITY, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    assert server.stdin is not None and server.stdout is not None
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "wheel-smoke", "version": "1"},
        },
    }
    server.stdin.write(json.dumps(hello) + "\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    server.kill()
    assert answer["result"]["serverInfo"]["name"] == "clarity", answer
    print("mcp initialize: ok")

    page = subprocess.Popen(
        [CLARITY, "browse", "--no-open", "--port", "0", "--plans-dir", str(plans)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    assert page.stdout is not None
    address = ""
    deadline = time.monotonic() + 60
    while not address and time.monotonic() < deadline:
        line = page.stdout.readline()
        address = next((word for word in line.split() if word.startswith("http://")), "")
    try:
        # the address's token is traded for a cookie on the first visit, then redirected
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with browser.open(address, timeout=30) as response:
            body = response.read().decode()
        assert response.status == 200 and "clarity" in body, body[:300]
    finally:
        page.kill()
    print("browse: ok")

    uvx = BIN / "uvx"
    version = subprocess.run(
        [str(uvx), "--from", str(WHEEL), "clarity", "--version"],
        capture_output=True,
        text=True,
        # the machine's own index and certificate settings, which uv reads from there
        env={**os.environ, **env, "UV_CACHE_DIR": str(home / "uv-cache"), "UV_NATIVE_TLS": "1"},
        timeout=600,
        check=False,
    )
    assert version.returncode == 0 and version.stdout.startswith("clarity "), version.stderr
    print(f"uvx --from {WHEEL.name} clarity --version: {version.stdout.strip()}")


if __name__ == "__main__":
    main()
