"""`clarity mcp`: Claude asks clarity over the Model Context Protocol. Driven by the
official SDK's own client over stdio, as Claude Code would: three read-only tools, bad
arguments answered as tool errors (the server goes on), and no plan ever moved."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files, snapshot

mcp = pytest.importorskip("mcp")
from mcp.client.stdio import StdioServerParameters  # noqa: E402 - after the skip

BODY = "\n\n## Context\n\nWhy.\n\n## Steps\n\n1. One.\n"
PLANS = {
    "cache-layer.md": Plan("# Cache layer COMPLETED" + BODY + "A read-through cache.\n", 20),
    "ledger-export.md": Plan("# Ledger export to CSV" + BODY, 3),
    "old-idea.md": Plan("# An old idea about the cache" + BODY + "x" * 3000, 25),
}


def _server(plans_dir: Path) -> StdioServerParameters:
    keep = ("HOME", "XDG_", "CLAUDE_", "PYTHON", "PATH", "TZ")
    env = {key: value for key, value in os.environ.items() if key.startswith(keep)}
    args = ["-m", "clarity", "mcp", "--plans-dir", str(plans_dir)]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def ask(plans_dir: Path, *calls: tuple[str, dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """The server's tools, and its answer to each call, in one session."""

    async def session() -> tuple[list[Any], list[Any]]:
        async with mcp.Client(_server(plans_dir)) as client:
            tools = (await client.list_tools()).tools
            answers = [await client.call_tool(name, arguments) for name, arguments in calls]
            return tools, answers

    return asyncio.run(session())


def data(answer: Any) -> dict[str, Any]:
    assert not answer.is_error, answer.content
    if answer.structured_content is not None:
        return dict(answer.structured_content)
    return dict(json.loads(answer.content[0].text))


@pytest.fixture
def shelved(cli, plans_dir: Path) -> Path:
    make_files(plans_dir, PLANS)
    applied = cli("apply", "--rescan", "--yes", "--now", NOW_ISO, "--plans-dir", str(plans_dir))
    assert applied.exit_code == 0, applied.stderr
    return plans_dir


def test_claude_finds_and_reads_plans_and_nothing_moves(shelved: Path) -> None:
    archive = shelved.parent / "plans-archive"
    before = snapshot(shelved), snapshot(archive)

    tools, (found, archived, live, listed) = ask(
        shelved,
        ("search_plans", {"query": "cache"}),
        ("get_plan", {"name": "cache-layer"}),
        ("get_plan", {"name": "ledger-export.md"}),
        ("list_plans", {"plan_class": "dormant"}),
    )

    assert {tool.name for tool in tools} == {"search_plans", "get_plan", "list_plans"}
    assert all(tool.annotations.read_only_hint for tool in tools)
    hits = data(found)["hits"]
    assert {hit["name"] for hit in hits} == {"cache-layer.md", "old-idea.md"}
    assert {hit["where"] for hit in hits} == {"archive", "live"}
    shelf = data(archived)
    assert shelf["where"] == "archive" and shelf["text"].startswith("# Cache layer COMPLETED")
    assert shelf["record"]["name"] == "cache-layer.md"
    here = data(live)
    assert (here["where"], here["path"]) == ("live", str(shelved / "ledger-export.md"))
    dormant = data(listed)["plans"]
    assert [plan["name"] for plan in dormant] == ["old-idea.md"]
    assert dormant[0]["reason"].startswith("untouched for")
    assert dormant[0]["agent"] == "claude-code"  # whose plan (issue 44)
    assert (snapshot(shelved), snapshot(archive)) == before  # read-only, every tool


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("search_plans", {"query": "cache", "where": "nowhere"}, "where must be all"),
    ("search_plans", {"query": "   "}, "nothing to search for"),
    ("search_plans", {"query": "cache", "project": "~nouser/x"}, "the home of no user"),
    ("search_plans", {"query": "cache " * 2000}, "longer than a search takes"),
    ("search_plans", {"query": "cache", "limit": 0}, "limit must be between"),
    ("get_plan", {"name": "no-such-plan"}, "no plan named 'no-such-plan', live, archived"),
    ("get_plan", {"name": "../../etc/passwd"}, "call search_plans with words it holds"),
    ("list_plans", {"plan_class": "finished"}, "plan_class must be one of"),
    ("list_plans", {"since": "last week"}, "is not a date"),
    ("search_plans", {"limit": 5}, "search_plans: query: Field required"),
    ("search_plans", {"query": "x", "limit": "many"}, "search_plans: limit: Input should be"),
    ("no_such_tool", {}, ""),
]


def test_a_bad_argument_is_a_tool_error_and_the_server_goes_on(shelved: Path) -> None:
    good: tuple[str, dict[str, Any]] = ("search_plans", {"query": "ledger"})
    calls: list[tuple[str, dict[str, Any]]] = [
        call for name, arguments, _ in BAD for call in ((name, arguments), good)
    ]

    _, answers = ask(shelved, *calls)

    for (name, arguments, said), bad, after in zip(BAD, answers[::2], answers[1::2], strict=True):
        assert bad.is_error, (name, arguments)
        assert said in bad.content[0].text
        if name != "no_such_tool":  # clarity's voice: one line, no prefix, no URL
            text = bad.content[0].text
            assert "\n" not in text and "https://" not in text, text
            assert not text.startswith("Error executing tool"), text
        assert [hit["name"] for hit in data(after)["hits"]] == ["ledger-export.md"]


def test_without_the_sdk_it_says_which_extra_to_install(tmp_path: Path, plans_dir: Path) -> None:
    # A machine without the extra: an `mcp` that cannot be imported comes first on the path.
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "__init__.py").write_text("raise ImportError('no mcp here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "clarity", "mcp", "--plans-dir", str(plans_dir)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "clarity: error: clarity mcp needs the MCP SDK (the mcp package), which this install "
        "lacks: install clarity again (from its checkout: uv tool install --reinstall .)"
    ]


@pytest.mark.skipif(sys.platform != "linux", reason="the kill harness reads /proc/self/fd")
def test_after_a_killed_apply_no_reader_settles_it_and_none_moves_a_file(plans_dir: Path) -> None:
    # Issue 36 H3: list_plans ran the crash recovery; it rewrote index.jsonl and INDEX.md
    # and moved plans. Readers read the last settled state and say who settles the rest.
    from tests.builders.processes import killed, run_process

    dirs = ("--plans-dir", str(plans_dir))
    make_files(plans_dir, {**PLANS, "shipped.md": Plan("# Shipped COMPLETED" + BODY, 30)})
    assert run_process("apply", "--rescan", "--yes", "--now", NOW_ISO, *dirs).exit_code == 0
    make_files(plans_dir, {"later.md": Plan("# Later COMPLETED" + BODY, 20)})
    run_process("scan", *dirs, "--now", NOW_ISO)
    killed("cross-before-unlink", plans_dir, "apply", *dirs, "--yes")  # copied, not unlinked
    archive = plans_dir.parent / "plans-archive"
    state = Path(os.environ["XDG_STATE_HOME"]) / "clarity"
    before = snapshot(plans_dir), snapshot(archive), snapshot(state)

    _, (listed, found, got) = ask(
        plans_dir,
        ("list_plans", {}),
        ("search_plans", {"query": "shipped"}),
        ("get_plan", {"name": "shipped"}),
    )
    assert any("not settled yet" in note for note in data(listed)["notes"])
    assert [hit["name"] for hit in data(found)["hits"]] == ["shipped.md"]
    assert data(got)["where"] == "archive"
    for reader in (
        ("scan", "--print-only", "--now", NOW_ISO),
        ("scan", "--no-record", "--now", NOW_ISO),
        ("archived",),
        ("show", "shipped"),
    ):
        said = run_process(*reader, *dirs)
        assert said.exit_code == 0, (reader, said.stderr)
        assert "which was interrupted" not in said.stderr, reader
    assert (snapshot(plans_dir), snapshot(archive)) == before[:2]
    runs = {name: content for name, content in snapshot(state).items() if "/runs/" in name}
    assert runs == {name: c for name, c in before[2].items() if "/runs/" in name}

    settled = run_process("apply", *dirs, "--yes")  # the next command that moves files
    assert "which was interrupted" in settled.stderr + settled.stdout
    assert not (plans_dir / "later.md").exists()
    assert (archive / "2026-Q4" / "later.md").exists()


def test_claude_finds_words_only_an_earlier_version_holds(cli, shelved: Path) -> None:
    plan = shelved / "ledger-export.md"
    plan.write_text(plan.read_text().replace("to CSV", "to Parquet"))
    applied = cli("apply", "--rescan", "--yes", "--now", NOW_ISO, "--plans-dir", str(shelved))
    assert applied.exit_code == 0, applied.stderr

    _, (earlier, kept_only, now) = ask(
        shelved,
        ("search_plans", {"query": "CSV"}),
        ("search_plans", {"query": "CSV", "where": "kept"}),
        ("search_plans", {"query": "Parquet"}),
    )
    (hit,) = data(earlier)["hits"]
    assert (hit["name"], hit["where"]) == ("ledger-export.md", "kept")
    assert hit["reason"].startswith("version 1, kept ")
    assert [h["name"] for h in data(kept_only)["hits"]] == ["ledger-export.md"]
    assert [(h["name"], h["where"]) for h in data(now)["hits"]] == [("ledger-export.md", "live")]


def test_odd_names_and_text_that_is_not_utf8_get_an_answer(cli, plans_dir: Path) -> None:
    # Issue 36, H4: one plan whose file name is not UTF-8 made list_plans and search_plans
    # fail with no message; a lone surrogate in the arguments got no reply at all.
    make_files(plans_dir, PLANS)
    odd = os.fsdecode(b"caf\xe9-cache.md")
    (plans_dir / odd).write_text("# Caf\u00e9 cache" + BODY)

    _, (listed, found) = ask(plans_dir, ("list_plans", {}), ("search_plans", {"query": "cache"}))
    names = {plan["name"] for plan in data(listed)["plans"]}
    assert "caf\ufffd-cache.md" in names
    assert "caf\ufffd-cache.md" in {hit["name"] for hit in data(found)["hits"]}

    # The SDK's client cannot even send a lone surrogate: a client that writes its own JSON
    # can ("\ud800" is valid JSON text). Every call gets its answer.
    calls = [
        ("get_plan", '{"name": "no-\\ud800-plan"}'),
        ("search_plans", '{"query": "cache \\udc80"}'),
        ("search_plans", '{"query": "cache", "project": "/tmp/\\ud800"}'),
    ]
    answers, opened = _raw_calls(plans_dir, calls)
    from importlib.metadata import version

    assert opened["result"]["serverInfo"] == {
        "name": "clarity",
        "version": version("clarity-plans"),
    }
    assert [answer["result"]["isError"] for answer in answers] == [True, False, False]
    assert "no plan named 'no-\ufffd-plan'" in answers[0]["result"]["content"][0]["text"]


def test_the_server_says_nothing_on_stderr_while_it_answers(plans_dir: Path) -> None:
    """The SDK's INFO lines (one "Processing request" a call, boxed by Rich) would fill the
    client's log: the server logs warnings only."""
    make_files(plans_dir, PLANS)
    lines = [
        '{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": '
        '"2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": '
        '"search_plans", "arguments": {"query": "cache"}}}',
    ]
    server = _server(plans_dir)
    process = subprocess.Popen(
        [server.command, *server.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server.env,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(line + "\n" for line in lines))
    process.stdin.flush()
    answered = [json.loads(process.stdout.readline()) for _ in range(3)]  # then it is done
    _, stderr = process.communicate(timeout=120)
    assert [answer.get("id") for answer in answered] == [0, 1, 2]
    assert stderr == ""


def _raw_calls(
    plans_dir: Path, calls: list[tuple[str, str]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """tools/call requests written as raw JSON-RPC lines on the server's stdin; the answers,
    and the answer to initialize."""
    opening = [
        '{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": '
        '"2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
    ]
    requests = [
        f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", '
        f'"params": {{"name": "{name}", "arguments": {arguments}}}}}'
        for number, (name, arguments) in enumerate(calls, 1)
    ]
    server = _server(plans_dir)
    process = subprocess.Popen(
        [server.command, *server.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server.env,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    answers: dict[int, dict[str, Any]] = {}
    try:
        for line in [*opening, *requests]:
            process.stdin.write(line + "\n")
            process.stdin.flush()
        lines: queue.Queue[str] = queue.Queue()
        stdout = process.stdout

        def read() -> None:
            for line in stdout:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        while len(answers) <= len(calls):  # the client waits for its answers, as one does
            try:  # ... but not for ever: a request the server drops would hang the suite
                line = lines.get(timeout=60)
            except queue.Empty:
                raise AssertionError(f"{len(calls) - len(answers)} calls got no answer") from None
            message = json.loads(line)
            if isinstance(message.get("id"), int):
                answers[message["id"]] = message
    finally:
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()
    return [answers[number] for number in sorted(answers) if number], answers[0]


def test_to_the_standard_titles_annotations_schemas_and_structured_answers(shelved: Path) -> None:
    # issue 34: MCP 2025-06-18 as Anthropic's connector review asks it
    tools, (found, listed) = ask(
        shelved, ("search_plans", {"query": "cache"}), ("list_plans", {"limit": 2})
    )
    for tool in tools:
        assert tool.title and len(tool.description) < 2048
        hints = tool.annotations
        assert (hints.read_only_hint, hints.idempotent_hint, hints.open_world_hint) == (
            True,
            True,
            False,
        )
        assert tool.output_schema["type"] == "object" and tool.output_schema["properties"]
        assert "changes nothing" in tool.description
    for answer in (found, listed):
        assert answer.structured_content == json.loads(answer.content[0].text)
    assert {"hits", "query"} <= set(tools[0].output_schema["properties"]) | {"query"}


def _page_all(plans_dir: Path, limit: int) -> tuple[list[str], list[Any]]:
    async def session() -> tuple[list[str], list[Any]]:
        names: list[str] = []
        seen: list[Any] = []
        async with mcp.Client(_server(plans_dir)) as client:
            cursor = None
            while True:
                arguments: dict[str, Any] = {"limit": limit}
                if cursor is not None:
                    arguments["cursor"] = cursor
                answer = await client.call_tool("list_plans", arguments)
                page = data(answer)
                seen.append(page)
                names += [plan["name"] for plan in page["plans"]]
                cursor = page["nextCursor"]
                if cursor is None:
                    return names, seen
                assert len(seen) < 10

    return asyncio.run(session())


def test_list_plans_pages_through_250_plans_with_a_cursor(plans_dir: Path) -> None:
    make_files(
        plans_dir, {f"plan-{i:03d}.md": Plan(f"# Plan {i}\n" + BODY, 20 + i) for i in range(250)}
    )
    names, pages = _page_all(plans_dir, 100)
    assert [len(page["plans"]) for page in pages] == [100, 100, 50]
    assert all(page["total"] == 250 for page in pages)
    assert names == [f"plan-{i:03d}.md" for i in range(250)]  # newest first, each once
    _, (wrong, other) = ask(
        plans_dir,
        ("list_plans", {"cursor": "not-a-cursor"}),
        ("list_plans", {"cursor": pages[0]["nextCursor"], "plan_class": "dormant"}),
    )
    assert wrong.is_error and "cursor is not one list_plans gave" in wrong.content[0].text
    assert other.is_error and "other arguments" in other.content[0].text


def test_every_plan_is_a_resource_a_person_can_mention(cli, shelved: Path) -> None:
    async def session() -> tuple[Any, Any, Any, Any, Any]:
        async with mcp.Client(_server(shelved)) as client:
            templates = await client.list_resource_templates()
            listed = await client.list_resources()
            live = await client.read_resource("plan://ledger-export")
            archived = await client.read_resource("plan://cache-layer")
            first = await client.read_resource("plan://cache-layer/versions/1")
            return templates, listed, live, archived, first

    templates, listed, live, archived, first = asyncio.run(session())
    uris = {template.uri_template for template in templates.resource_templates}
    assert uris == {"plan://{name}", "plan://{name}/versions/{number}"}
    offered = {resource.name: resource.uri for resource in listed.resources}
    assert {"ledger-export.md", "old-idea.md", "cache-layer.md"} <= set(offered)
    assert str(offered["cache-layer.md"]) == "plan://cache-layer"
    assert live.contents[0].text.startswith("# Ledger export to CSV")
    assert archived.contents[0].text.startswith("# Cache layer COMPLETED")
    assert first.contents[0].text.startswith("# Cache layer COMPLETED")


def test_descriptions_reach_the_client_without_the_sources_indentation(shelved: Path) -> None:
    tools, _ = ask(shelved)
    for tool in tools:
        assert "\n    " not in tool.description, tool.description


def test_list_plans_answers_from_its_last_scan_until_the_folder_changes(
    plans_dir: Path,
) -> None:
    """Issue 45: a warm server lists a page without scanning every plan again; a plan
    added, renamed or removed since is there (or gone) in the very next answer."""
    from clarity.claude_code.mcp_answers import list_plans
    from clarity.settings.config import load_settings

    make_files(plans_dir, PLANS)
    settings = load_settings({"plans_dir": str(plans_dir)}, os.environ, plans_dir)

    def listed() -> set[str]:
        answer = list_plans(settings, None, None, None, 500, None)
        return {plan["name"] for plan in answer["plans"]}

    first = listed()
    assert first == {name for name in PLANS if "/" not in name}
    assert listed() == first  # answered again, unchanged
    (plans_dir / "brand-new.md").write_text("# Brand new\n")
    assert listed() == first | {"brand-new.md"}
    (plans_dir / "brand-new.md").rename(plans_dir / "renamed.md")
    assert listed() == first | {"renamed.md"}
    (plans_dir / "renamed.md").unlink()
    assert listed() == first


def test_list_plans_scans_again_behind_its_calls_when_its_scan_is_old(
    plans_dir: Path, monkeypatch
) -> None:
    """Issue 45: a call found a scan older than a minute and scanned every plan while the
    client waited. It answers from that scan and scans again behind the calls: a plan
    finished by an edit in place (the folder as it was) is completed once that is done."""
    import time

    from clarity import behind
    from clarity.claude_code import mcp_answers
    from clarity.settings.config import load_settings

    plan = plans_dir / "ledger.md"
    plan.write_text("# Ledger export\n\nStream rows as CSV.\n", encoding="utf-8")
    three_days_ago = time.time() - 3 * 86400  # the server's clock is the wall clock
    os.utime(plan, (three_days_ago, three_days_ago))
    settings = load_settings({"plans_dir": str(plans_dir)}, os.environ, plans_dir)

    def classes() -> dict[str, str]:
        answer = mcp_answers.list_plans(settings, None, None, None, 500, None)
        return {plan["name"]: plan["class"] for plan in answer["plans"]}

    assert classes() == {"ledger.md": "active"}
    was = plan.stat()
    with plan.open("r+", encoding="utf-8") as edited:  # in place: the folder as it was
        edited.write("# Ledger export COMPLETED\n\nStream rows.\n")
    os.utime(plan, ns=(was.st_atime_ns, was.st_mtime_ns))  # its age as it was
    monkeypatch.setattr(mcp_answers, "LIST_REUSE_SECONDS", 0.0)
    assert classes() == {"ledger.md": "active"}  # the last scan's, answered at once
    for _ in range(3000):  # a hang guard: a scan of one plan takes milliseconds
        if not behind.running():
            break
        time.sleep(0.01)
    monkeypatch.setattr(mcp_answers, "LIST_REUSE_SECONDS", 60.0)
    assert classes() == {"ledger.md": "completed"}
