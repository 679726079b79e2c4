"""Figures for `clarity browse` (SPEC 9.3, issue 35) at `size` live and `size` archived plans,
the search index made already:

- start: from the command to the address printed, against `clarity --help` (a process
  that imports the CLI and prints); target: under 1 s.
- the first list: from the command to the list answered (the first catalogue: every
  plan scanned and the archive read), against a repeat `clarity scan --json` of the same
  plans. Reported.
- each page in a warm server (the list, a class, a live and an archived plan, search as
  you type, the pictures): the median answer over a real socket, against the page's own
  stylesheet through the same server and guard (what any answer pays); target: 200 ms.
"""

from __future__ import annotations

import functools
import http.client
import re
import signal
import statistics
import subprocess
import time
from pathlib import Path
from urllib.parse import quote

from bench.harness import Bench, Figure, clarity_command, take_turns
from bench.search import WORD, _archive

PAGE_TARGET_S = 0.2


def _ask(port: int, cookie: str, path: str) -> float:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise SystemExit(f"bench: browse answered {answer.status} to {path}")
    finally:
        connection.close()
    return time.perf_counter() - started


class _Served:
    """`clarity browse --no-open` running in the bench's home; stopped on exit."""

    def __init__(self, bench: Bench, args: list[str]) -> None:
        self.started = time.perf_counter()
        command = clarity_command("browse", "--no-open", *args)
        self.process = subprocess.Popen(
            command, env=bench.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        self.printed_s = time.perf_counter() - self.started
        found = re.search(r"127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        if found is None:
            self.stop()
            raise SystemExit(f"bench: clarity browse printed no address: {line!r}")
        self.port = int(found.group(1))
        self.cookie = f"clarity-browse-{self.port}={found.group(2)}"
        self.prefix = self._prefix(found.group(2))

    def _prefix(self, token: str) -> str:
        """The secret path the pages live under, as the token's redirect tells it."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(
                "GET", f"/?token={token}", headers={"Host": f"127.0.0.1:{self.port}"}
            )
            answer = connection.getresponse()
            answer.read()
            location = answer.getheader("location") or ""
        finally:
            connection.close()
        if answer.status != 303 or not location.endswith("/"):
            self.stop()
            raise SystemExit(f"bench: clarity browse's token led nowhere ({answer.status})")
        return location.removesuffix("/")

    def ask(self, path: str) -> float:
        return _ask(self.port, self.cookie, self.prefix + path)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.communicate(timeout=30)


def browse_figures(bench: Bench, size: int, repeat: int) -> list[Figure]:
    live, _ = bench.corpus(size)
    archive = _archive(bench, bench.corpus(size + 1)[0])
    dirs = ["--plans-dir", str(live), "--archive-dir", str(archive)]
    bench.run(clarity_command("search", *WORD.split(), *dirs))  # the index, made
    bench.run(clarity_command("scan", "--json", *dirs))  # the facts cache, as a person has it
    scan = clarity_command("scan", "--json", *dirs)
    help_s = [bench.run(clarity_command("--help")) for _ in range(repeat)]
    scan_s = [bench.run(scan) for _ in range(repeat)]
    printed, first_list = [], []
    for _ in range(repeat):
        served = _Served(bench, dirs)
        try:
            printed.append(served.printed_s)
            served.ask("/")
            first_list.append(time.perf_counter() - served.started)
        finally:
            served.stop()
    figures = [
        Figure(
            f"browse: start to the address printed, {size:,} live + {size:,} archived",
            printed,
            help_s,
            None,
            note=f"median {statistics.median(printed):.2f} s (target: under 1 s); "
            "baseline: clarity --help",
        ),
        Figure(
            f"browse: start to the first list, {size:,} live + {size:,} archived",
            first_list,
            scan_s,
            None,
            note="the first catalogue scans every plan and reads the archive; "
            "baseline: a repeat clarity scan --json of the same plans",
        ),
    ]
    served = _Served(bench, dirs)
    try:
        served.ask("/")
        live_name = sorted(path.name for path in live.glob("*.md"))[size // 2]
        archived = sorted(path.name for path in (archive / "2026-Q3").glob("*.md"))[size // 2]
        root = re.search(r'<option value="([0-9a-f]{8})"', _page(served, "/"))
        rid = root.group(1) if root else ""
        pages = {
            "the list": "/",
            "the list of one class": "/?class=active",
            "a live plan": f"/plan?r={rid}&p=live&v={quote(live_name)}",
            "an archived plan": f"/plan?r={rid}&p=archive&v={quote('2026-Q3/' + archived)}",
            "search as you type": f"/search/hits?q={quote(WORD)}",
            "the pictures": "/pictures",
        }
        for label, path in pages.items():
            page_s, floor_s = take_turns(
                5 * repeat, functools.partial(served.ask, path), lambda: served.ask(_STYLE)
            )
            median = statistics.median(page_s)
            figures.append(
                Figure(
                    f"browse: {label}, {size:,} live + {size:,} archived",
                    page_s,
                    floor_s,
                    None,
                    note=f"median {median * 1000:.0f} ms (target {PAGE_TARGET_S * 1000:.0f} ms"
                    f", {'met' if median <= PAGE_TARGET_S else 'MISSED'}); baseline: the "
                    "stylesheet through the same server",
                )
            )
    finally:
        served.stop()
    return figures


_STYLE = "/static/browse.css"


def _page(served: _Served, path: str) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=120)
    try:
        connection.request(
            "GET",
            served.prefix + path,
            headers={"Host": f"127.0.0.1:{served.port}", "Cookie": served.cookie},
        )
        return connection.getresponse().read().decode("utf-8", "replace")
    finally:
        connection.close()


def main() -> None:
    """python -m bench.browse [SIZE]: these figures alone, printed."""
    import sys
    import tempfile

    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory(prefix="clarity-bench-") as work:
        bench = Bench(Path(work))
        bench.fresh_home()
        for figure in browse_figures(bench, size, 3):
            print(f"{figure.name}: {figure.clarity_median:.3f}s vs {figure.baseline_median:.3f}s")
            print(f"    {figure.note}")


if __name__ == "__main__":
    main()
