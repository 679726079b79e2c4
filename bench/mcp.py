"""Figures for the MCP server as a client waits on it (SPEC 9.1, issue 34), at `size` live and
`size` archived plans, in a running server (its tools called through the SDK's own
call_tool, as a request from stdio ends up):

- get_plan of an archived plan: median milliseconds, against a tool of the same SDK that
  only returns a small dict (what any server on it pays); target 5 ms.
- list_plans, a page of 100, warm (its scan reused while the folder is unchanged):
  median milliseconds against the same small tool; target 10 ms.
- search_plans: against a bare FTS5 query of the same index, both in that process;
  target 2x; and its 95th percentile over the calls, paced as a client asks (a call
  every 50 ms or so, so that the index's refresh comes due a few times): target 15 ms.
- `clarity search` as a whole process: against `clarity --help` plus the bare query;
  target 1.5x.
"""

from __future__ import annotations

import json
import statistics
import sys

from bench.harness import Bench, Figure, clarity_command, take_turns
from bench.search import WORD, _archive

_IN_SERVER = """
import asyncio, json, sys, time
from pathlib import Path
from clarity.claude_code.mcp_server import build_server
from clarity.settings.config import load_settings
import sqlite3
from clarity.search.where import index_file
from clarity.search.query import terms
from clarity.state import DirState
import os
live, archive, name, word = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
repeat = int(sys.argv[5])
given = {"plans_dir": str(live), "archive_dir": str(archive)}
settings = load_settings(given, os.environ, Path.cwd())
server = build_server(settings)

@server.tool()
def echo(text: str) -> dict:
    return {"text": text}

async def timed(tool, arguments):
    started = time.perf_counter()
    answer = await server.call_tool(tool, arguments)
    return time.perf_counter() - started

async def main():
    times = {"get": [], "echo": [], "search": [], "bare": [], "list": []}
    await timed("get_plan", {"name": name})
    await timed("search_plans", {"query": word})
    await timed("list_plans", {"limit": 100})  # the first: a scan of every plan
    db = sqlite3.connect(index_file(DirState.for_plans_dir(live)))  # no lock: a reader
    match = terms(word).match
    for _ in range(repeat):
        times["get"].append(await timed("get_plan", {"name": name}))
        times["echo"].append(await timed("echo", {"text": "x"}))
        times["search"].append(await timed("search_plans", {"query": word}))
        times["list"].append(await timed("list_plans", {"limit": 100}))
        started = time.perf_counter()
        db.execute(
            "SELECT rowid FROM text WHERE text MATCH ? ORDER BY rank LIMIT 10", (match,)
        ).fetchall()
        times["bare"].append(time.perf_counter() - started)
        await asyncio.sleep(0.05)  # a client between two questions
    print(json.dumps(times))

asyncio.run(main())
"""

_BARE_QUERY = """
import sqlite3, sys, time
from pathlib import Path
from clarity.search.query import terms
from clarity.search.where import index_file
from clarity.state import DirState
db = sqlite3.connect(index_file(DirState.for_plans_dir(Path(sys.argv[1]))))
db.execute(
    "SELECT rowid FROM text WHERE text MATCH ? ORDER BY rank LIMIT 20", (terms(sys.argv[2]).match,)
).fetchall()
"""


def mcp_figures(bench: Bench, size: int, repeat: int) -> list[Figure]:
    live, _ = bench.corpus(size)
    archive = _archive(bench, bench.corpus(size + 1)[0])
    name = sorted(path.name for path in (archive / "2026-Q3").glob("*.md"))[size // 2]
    search = clarity_command(
        "search", *WORD.split(), "--json", "--plans-dir", live, "--archive-dir", archive
    )
    bench.run(search)  # the index, built
    out, _ = bench.capture(
        [sys.executable, "-c", _IN_SERVER, str(live), str(archive), name, WORD, str(20 * repeat)]
    )
    times = json.loads(out)
    figures = [
        Figure(
            f"MCP get_plan of an archived plan, {size:,} live + {size:,} archived",
            times["get"],
            times["echo"],
            None,
            note=f"median {statistics.median(times['get']) * 1000:.2f} ms (target 5 ms); "
            "baseline: a tool of the same SDK that returns a small dict",
        ),
        Figure(
            f"MCP list_plans (a page of 100), warm server, {size:,} live plans",
            times["list"],
            times["echo"],
            None,
            note=f"median {statistics.median(times['list']) * 1000:.2f} ms (target 10 ms); "
            "baseline: a tool of the same SDK that returns a small dict",
        ),
        Figure(
            f"MCP search_plans, {size:,} live + {size:,} archived",
            times["search"],
            times["bare"],
            2.0,
            note=f"median {statistics.median(times['search']) * 1000:.1f} ms, 95th percentile "
            f"{_p95(times['search']) * 1000:.1f} ms (target 15 ms), slowest "
            f"{max(times['search']) * 1000:.1f} ms, over {len(times['search'])} calls; baseline: "
            "the bare FTS5 query of the same index",
        ),
    ]
    bare = [sys.executable, "-c", _BARE_QUERY, str(live), WORD]
    whole_s, floor_s = take_turns(
        repeat,
        lambda: bench.run(search),
        lambda: bench.run(clarity_command("--help")) + bench.run(bare),
    )
    figures.append(
        Figure(
            f"clarity search as a process, {size:,} live + {size:,} archived",
            whole_s,
            floor_s,
            1.5,
            note="baseline: clarity --help, plus a process running the bare FTS5 query",
        )
    )
    return figures


def _p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1]
