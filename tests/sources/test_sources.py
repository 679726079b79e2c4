"""Issue 44, part 1: plan sources. Each coding agent is one module behind one Protocol,
listed in one registry; the roots name each folder's agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clarity.sources import source_named
from clarity.sources.registry import SOURCES
from tests.builders.files import NOW_ISO, Plan, make_files


def test_each_source_has_its_own_name_and_is_found_by_it() -> None:
    names = [source.name for source in SOURCES]
    assert len(set(names)) == len(names) and "claude-code" in names
    for source in SOURCES:
        assert source_named(source.name) is source
        assert source.label and isinstance(source.may_move, bool)
    with pytest.raises(KeyError):
        source_named("no-such-agent")


def test_roots_names_the_agent_of_each_folder(isolated_home: Path, cli) -> None:
    make_files(isolated_home / ".claude" / "plans", {"misty-sleeping-cherny.md": Plan()})
    roots = json.loads(cli("roots", "--json").stdout)["roots"]
    found = {root["plans_dir"]: root["agent"] for root in roots}
    assert found == {str(isolated_home / ".claude" / "plans"): "claude-code"}


def test_claude_codes_sub_plans_are_its_agent_named_ones() -> None:
    claude = source_named("claude-code")
    names = {"calm.md", "calm-agent-a1.md", "calm-agent-a1-agent-b2.md", "other-agent-x.md"}
    assert claude.sub_plans(names) == {
        "calm-agent-a1.md": "calm.md",
        "calm-agent-a1-agent-b2.md": "calm.md",
    }
    assert claude.is_plan("calm.md") and not claude.is_plan(".calm.md")


def test_a_home_with_every_agent_is_found_judged_and_acted_on(
    isolated_home: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 44's home: Claude Code's, Cursor's, Gemini CLI's, Codex's, Qwen Code's and
    OpenCode's plans side by side; `roots`, `scan --all` and `apply --all --rescan --yes`."""
    from datetime import UTC, datetime

    from tests.builders import codex_home, gemini_home, opencode_home, qwen_home

    for variable in ("GEMINI_CLI_HOME", "CODEX_HOME", "QWEN_HOME"):
        monkeypatch.delenv(variable, raising=False)
    project = isolated_home / "work" / "greeter"
    gemini = gemini_home.lay_out("01-approved-implemented", isolated_home, project)
    codex = codex_home.lay_out("01-approved-implemented", isolated_home, project)
    qwen = qwen_home.lay_out("01-approved-implemented", isolated_home, project)
    opencode = opencode_home.lay_out("01-approved-implemented", isolated_home, project)
    last = max(
        gemini.last_activity, codex.last_activity, qwen.last_activity, opencode.last_activity
    )
    moment = datetime.fromtimestamp(last + 86400, UTC)
    now = moment.isoformat()
    make_files(
        isolated_home / ".claude" / "plans",
        {"calm-river.md": Plan("# Calm river\n\nCOMPLETED\n", age_days=9)},
        now=moment,
    )
    cursor = Path(__file__).parents[2] / "fixtures" / "cursor" / "plans"
    done_cursor = "session_timeout_handling_3f2a9c1e.plan.md"
    make_files(
        isolated_home / ".cursor" / "plans",
        {done_cursor: Plan((cursor / done_cursor).read_bytes(), age_days=9)},
        now=moment,
    )
    roots = json.loads(cli("roots", "--json").stdout)["roots"]
    assert sorted(root["agent"] for root in roots) == [
        "claude-code", "codex", "cursor", "gemini-cli", "opencode", "qwen-code",
    ]  # fmt: skip
    scanned = json.loads(cli("scan", "--all", "--now", now, "--json").stdout)
    classes = {plan["agent"]: plan["class"] for plan in scanned["plans"]}
    assert classes == dict.fromkeys(
        ("claude-code", "codex", "cursor", "gemini-cli", "opencode", "qwen-code"), "completed"
    )
    store = isolated_home / ".gemini"
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    texts = {Path(p["path"]).name: Path(p["path"]).read_bytes() for p in scanned["plans"]}
    applied = json.loads(cli("apply", "--all", "--rescan", "--yes", "--now", now, "--json").stdout)
    moved = {r["name"]: r for root in applied["roots"] for r in root.get("results", [])}
    assert sorted(moved) == sorted(name for name in texts if name != "greeting-plan.md")
    for name, result in moved.items():
        assert result["status"] == "done" and result["action"] == "archive"
        assert Path(result["destination"]).read_bytes() == texts[name]
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before
    assert (gemini.plans_dir / "greeting-plan.md").exists()


def test_from_narrows_every_folder_command_to_one_agent(
    isolated_home: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--from AGENT` (SPEC 2.1's `--agent NAME`: `--agent` already turns the advisor on):
    scan, apply, archived and search act on that agent's folders alone."""
    from datetime import UTC, datetime

    from tests.builders import codex_home

    monkeypatch.delenv("CODEX_HOME", raising=False)
    laid = codex_home.lay_out(
        "01-approved-implemented", isolated_home, isolated_home / "work" / "g"
    )
    moment = datetime.fromtimestamp(laid.last_activity + 86400, UTC)
    make_files(
        isolated_home / ".claude" / "plans",
        {"calm-river.md": Plan("# Calm river\n\nCOMPLETED\n", age_days=9)},
        now=moment,
    )
    now = moment.isoformat()
    scanned = json.loads(cli("scan", "--from", "codex", "--now", now, "--json").stdout)
    assert {plan["agent"] for plan in scanned["plans"]} == {"codex"}
    applied = json.loads(
        cli("apply", "--from", "codex", "--rescan", "--yes", "--now", now, "--json").stdout
    )
    assert [root["agent"] for root in applied["roots"]] == ["codex"]
    assert (isolated_home / ".claude" / "plans" / "calm-river.md").exists()  # not Codex's
    hits = json.loads(cli("search", "greeting", "--from", "claude-code", "--json").stdout)
    assert hits["hits"] == []
    for args in (("scan", "--from", "cursor"), ("search", "x", "--from", "cursor")):
        refused = cli(*args)
        assert refused.exit_code == 2
        assert refused.stderr.strip().endswith(
            "no plans folder of that agent on this machine (clarity roots lists them)"
        )
    unknown = cli("archived", "--from", "nope")
    assert unknown.exit_code == 2
    assert "--from 'nope': no such agent; clarity knows claude-code, cursor" in unknown.stderr


def test_from_names_every_agent_clarity_knows(cli) -> None:
    shown = " ".join(cli("scan", "--help").stdout.split())
    for source in SOURCES:
        assert source.name in shown


def test_windsurfs_plans_are_judged_by_their_words_and_moved(isolated_home: Path, cli) -> None:
    plans = isolated_home / ".windsurf" / "plans"
    done = "# Search rewrite\n\n**Status:** done\n\n## Steps\n1. Index.\n"
    make_files(plans, {"search-rewrite.md": Plan(done, age_days=3), "notes.md": Plan("# Notes\n")})
    roots = json.loads(cli("roots", "--json").stdout)["roots"]
    assert {root["agent"]: root["plans_dir"] for root in roots}["windsurf"] == str(plans)
    now = NOW_ISO  # the moment make_files laid them out from
    scanned = json.loads(cli("scan", "--from", "windsurf", "--now", now, "--json").stdout)
    classes = {plan["name"]: plan["class"] for plan in scanned["plans"]}
    assert classes == {"search-rewrite.md": "completed", "notes.md": "active"}
    applied = json.loads(
        cli("apply", "--from", "windsurf", "--rescan", "--yes", "--now", now, "--json").stdout
    )
    [result] = applied["roots"][0]["results"]
    assert Path(result["destination"]).read_text() == done
    assert Path(result["destination"]).is_relative_to(isolated_home / ".windsurf" / "plans-archive")


def test_roots_folds_the_many_folders_that_are_gone_into_one_line(isolated_home: Path, cli) -> None:
    make_files(isolated_home / ".claude" / "plans", {"misty-sleeping-cherny.md": Plan()})
    gone = [str(isolated_home / "old" / f"project-{n}") for n in range(5)]
    (isolated_home / ".claude.json").write_text(
        json.dumps({"projects": {path: {} for path in gone}})
    )
    said = cli("roots").stdout
    assert (
        "5 folders Claude Code once worked in, gone now (clarity roots --json lists each)" in said
    )
    assert not any(path in said for path in gone)
    listed = json.loads(cli("roots", "--json").stdout)["passed_over"]
    assert sorted(item["path"] for item in listed) == sorted(gone)


def test_a_scan_of_one_agents_folders_keeps_the_others_reviewed(isolated_home: Path, cli) -> None:
    """`scan --all`, then `scan --from windsurf`, then `apply --all`: each folder's latest
    reviewed scan is carried out, Claude Code's too (the second scan replaced Windsurf's
    alone); the hint after `--from` names `apply --from`."""
    make_files(
        isolated_home / ".claude" / "plans",
        {"calm-river.md": Plan("# Calm river\n\nCOMPLETED\n", age_days=9)},
    )
    make_files(
        isolated_home / ".windsurf" / "plans",
        {"search.md": Plan("# Search\n\n**Status:** done\n", age_days=3)},
    )
    assert cli("scan", "--all", "--now", NOW_ISO).exit_code == 0
    narrowed = cli("scan", "--from", "windsurf", "--now", NOW_ISO)
    assert "then run clarity apply --from windsurf to carry out" in narrowed.stderr
    applied = json.loads(cli("apply", "--all", "--yes", "--json").stdout)
    done = {r["name"] for root in applied["roots"] for r in root["results"]}
    assert done == {"calm-river.md", "search.md"}
