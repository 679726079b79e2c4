"""The agent through the real anthropic SDK, against a local Messages API server.

Nothing here reaches the network: the SDK talks to 127.0.0.1 (see
messages_server.py), and conftest points it at a closed local port otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.messages_server import ANSWERS, MessagesServer, Reply, claude, error_reply

__all__ = ["claude"]  # the fixture, imported for pytest

DORMANT = "# Idea: a plugin system\n\nSketch of a plugin loader.\n" + "- [ ] step\n" * 300
PLANS = {
    "idea-one.md": Plan(DORMANT, 30),
    "idea-two.md": Plan(DORMANT.replace("plugin", "theme"), 40),
    "done.md": Plan("# Cache layer COMPLETED\n\nWe built a read-through cache.\n", 20),
    "live.md": Plan("# Live\n", 0),
}
VERDICT = ANSWERS["record_verdict"]


def scan(cli, plans_dir: Path, *args: str):
    return cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, *args)


@pytest.fixture
def plans(plans_dir: Path) -> Path:
    return make_files(plans_dir, PLANS)


def test_scan_with_the_agent_adds_advice_to_dormant_plans_only(
    cli, plans: Path, claude: MessagesServer
) -> None:
    result = scan(cli, plans, "--agent", "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    by_name = {plan["name"]: plan for plan in document["plans"]}
    for name in ("idea-one.md", "idea-two.md"):
        assert by_name[name]["class"] == "dormant"
        assert by_name[name]["action"] == "report"
        assert by_name[name]["advice"] == VERDICT
    assert "advice" not in by_name["done.md"] and "advice" not in by_name["live.md"]
    agent = document["agent"]
    assert agent["model"] == "claude-haiku-5-5"  # the current small model the SDK lists
    assert agent["requests"] == 2 and agent["cached"] == 0
    assert agent["input_tokens"] > 0 and agent["output_tokens"] == 120
    assert len(claude.requests) == 2
    sent = claude.requests[0]
    assert sent["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert sent["tools"][0]["input_schema"]["properties"]["verdict"]["enum"] == [
        "finished",
        "abandoned",
        "live",
    ]


def test_advice_never_changes_a_class_or_an_action(
    cli, plans: Path, claude: MessagesServer
) -> None:
    def classes(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
        return [(p["name"], p["class"], p["action"], p["reason"]) for p in document["plans"]]

    without = scan(cli, plans, "--json").json()
    with_agent = scan(cli, plans, "--agent", "--json").json()
    assert classes(without) == classes(with_agent)
    assert "agent" not in without


def test_the_reports_show_the_advice_and_the_tokens_used(
    cli, plans: Path, claude: MessagesServer
) -> None:
    table = scan(cli, plans, "--agent")
    assert "agent: abandoned (80%): No activity for weeks" in table.stdout
    assert "Agent claude-haiku-5-5: 2 requests" in table.stdout
    assert "tokens used of a 50,000 budget" in table.stdout
    markdown = scan(cli, plans, "--agent", "--format", "markdown")
    assert "— agent: abandoned (80%)" in markdown.stdout


def test_without_a_key_it_says_so_once_and_carries_on(
    cli, plans: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = scan(cli, plans, "--agent", "--json")
    assert result.exit_code == 0
    assert result.json()["agent"]["notes"] == [
        "no ANTHROPIC_API_KEY set: carrying on without the agent"
    ]
    assert claude.requests == []
    assert all("advice" not in plan for plan in result.json()["plans"])


def test_a_rejected_key_stops_the_asking(cli, plans: Path, claude: MessagesServer) -> None:
    claude.queue(error_reply(401, "authentication_error", "invalid x-api-key"))
    result = scan(cli, plans, "--agent", "--json")
    assert result.exit_code == 0
    assert "API key rejected; the rest without the agent" in result.json()["agent"]["notes"]
    assert len(claude.requests) == 1  # no second try, no second plan
    assert all("advice" not in plan for plan in result.json()["plans"])


def test_a_rate_limit_is_retried_by_the_sdk(cli, plans: Path, claude: MessagesServer) -> None:
    claude.queue(error_reply(429, "rate_limit_error", "slow down"))
    result = scan(cli, plans, "--agent", "--json")
    assert result.exit_code == 0
    advised = [plan for plan in result.json()["plans"] if "advice" in plan]
    assert len(advised) == 2
    assert len(claude.requests) == 3  # one refused, retried, then the second plan


def test_an_overloaded_service_falls_back_for_that_plan(
    cli, plans: Path, claude: MessagesServer
) -> None:
    overloaded = error_reply(529, "overloaded_error", "overloaded")
    claude.queue(overloaded, overloaded, overloaded)  # the first try and both retries
    document = scan(cli, plans, "--agent", "--json").json()
    advised = {plan["name"] for plan in document["plans"] if "advice" in plan}
    assert advised == {"idea-two.md"}
    assert any("Claude unavailable" in note for note in document["agent"]["notes"])


def test_a_malformed_reply_falls_back(cli, plans: Path, claude: MessagesServer) -> None:
    claude.queue(Reply(200, b"{this is not json"))
    result = scan(cli, plans, "--agent", "--json")
    assert result.exit_code == 0
    advised = {plan["name"] for plan in result.json()["plans"] if "advice" in plan}
    assert advised == {"idea-two.md"}
    assert any("Claude unavailable" in note for note in result.json()["agent"]["notes"])


def test_a_reply_outside_the_schema_gives_no_advice(
    cli, plans: Path, claude: MessagesServer
) -> None:
    claude.queue(verdict_reply("maybe", VERDICT["confidence"], VERDICT["reason"]))
    document = scan(cli, plans, "--agent", "--json").json()
    assert {plan["name"] for plan in document["plans"] if "advice" in plan} == {"idea-two.md"}


def test_the_budget_stops_the_asking_and_says_so(
    cli, plans: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLARITY_AGENT_BUDGET", "2500")
    document = scan(cli, plans, "--agent", "--json").json()
    assert len(claude.requests) == 1
    assert document["agent"]["requests"] == 1
    assert any(
        note.startswith("token budget of 2,500 spent") for note in document["agent"]["notes"]
    )
    tokens = document["agent"]["input_tokens"] + document["agent"]["output_tokens"]
    assert tokens <= 2500


def test_a_second_run_is_answered_from_the_cache(cli, plans: Path, claude: MessagesServer) -> None:
    first = scan(cli, plans, "--agent", "--json").json()
    sent = len(claude.requests)
    second = scan(cli, plans, "--agent", "--json").json()
    assert len(claude.requests) == sent  # nothing sent the second time
    assert second["agent"]["cached"] == 2 and second["agent"]["requests"] == 0
    assert [p.get("advice") for p in second["plans"]] == [p.get("advice") for p in first["plans"]]

    make_files(plans, {"idea-one.md": Plan(DORMANT + "\nnew line\n", 30)})  # changed
    scan(cli, plans, "--agent", "--json")
    assert len(claude.requests) == sent + 1  # only the changed plan is asked about again


def test_secrets_never_reach_the_server(cli, plans_dir: Path, claude: MessagesServer) -> None:
    secret_key = "sk-ant-api03-" + "Q7w" * 15
    planted = (
        DORMANT
        + f"\nANTHROPIC_API_KEY={secret_key}\n"
        + "DATABASE_URL=postgres://app:hunter2hunter2@db.internal/app\n"
        + "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\n"
    )
    make_files(plans_dir, {"leaky.md": Plan(planted, 30)})
    assert scan(cli, plans_dir, "--agent").exit_code == 0
    sent = claude.sent_text()
    assert "Sketch of a plugin loader" in sent
    for secret in (secret_key, "hunter2hunter2", "MIIEowIBAAKCAQEA7"):
        assert secret not in sent
    assert "[REDACTED]" in sent and "[REDACTED PRIVATE KEY]" in sent


def test_each_plan_is_cut_to_the_size_cap(
    cli, plans_dir: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    huge = "# Huge\n\n**Status:** Phase 2 in progress\n\n" + "word " * 40_000 + "\nNext: phase 3\n"
    make_files(plans_dir, {"huge.md": Plan(huge, 30)})
    monkeypatch.setenv("CLARITY_AGENT_PLAN_BYTES", "2000")
    scan(cli, plans_dir, "--agent")
    content = claude.requests[0]["messages"][0]["content"]
    assert len(content.encode()) < 2400
    # What a person would look at: where it says it stands at the top and at the end,
    # its age, and what the rules found short of deciding.
    assert "the middle of the plan is not shown" in content
    assert "**Status:** Phase 2 in progress" in content
    assert "Next: phase 3\n" in content[-40:]
    assert "Last modified 30 days ago." in content
    assert 'clarity\'s rules found: status field "Phase 2 in progress"' in content


def test_apply_with_the_agent_writes_agent_summaries(
    cli, plans: Path, claude: MessagesServer
) -> None:
    scan(cli, plans)
    result = cli("apply", "--plans-dir", str(plans), "--yes", "--agent", "--json")
    assert result.exit_code == 0, result.stderr
    archive = plans.parent / "plans-archive"
    record = json.loads((archive / "index.jsonl").read_text())
    assert record["summary"] == ANSWERS["record_summary"]["summary"]
    assert record["summary_source"] == "agent"
    assert ANSWERS["record_summary"]["summary"] in (archive / "INDEX.md").read_text()
    assert result.json()["agent"]["requests"] == 1
    assert claude.requests[0]["tool_choice"]["name"] == "record_summary"
    assert "We built a read-through cache." in claude.sent_text()


def test_an_agent_failure_never_fails_an_apply(cli, plans: Path, claude: MessagesServer) -> None:
    claude.queue(error_reply(401, "authentication_error", "invalid x-api-key"))
    scan(cli, plans)
    result = cli("apply", "--plans-dir", str(plans), "--yes", "--agent")
    assert result.exit_code == 0
    assert "API key rejected" in result.stdout
    record = json.loads((plans.parent / "plans-archive" / "index.jsonl").read_text())
    assert record["summary"] == "We built a read-through cache."
    assert record["summary_source"] == "extract"


def test_agent_can_be_turned_on_in_the_config(
    cli, plans: Path, claude: MessagesServer, isolated_home: Path
) -> None:
    config = isolated_home / ".config" / "clarity"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('agent = true\nagent_model = "claude-sonnet-4-6"\n')
    document = scan(cli, plans, "--json").json()
    assert document["agent"]["model"] == "claude-sonnet-4-6"
    assert claude.requests[0]["model"] == "claude-sonnet-4-6"
    off = scan(cli, plans, "--json", "--no-agent").json()
    assert "agent" not in off


def test_a_deprecated_model_is_worth_a_line(
    cli, plans: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLARITY_AGENT_MODEL", "claude-sonnet-4-5")
    document = scan(cli, plans, "--agent", "--json").json()
    assert any("deprecated" in note for note in document["agent"]["notes"])
    assert all("advice" in p for p in document["plans"] if p["class"] == "dormant")


def test_a_secret_on_the_size_cap_is_masked_whole(
    cli, plans_dir: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-ant-api03-" + "Zq8" * 20
    text = "# Notes\n\n" + "x" * (1990 - 9) + " " + secret + "\nmore text\n" + "y" * 3000
    make_files(plans_dir, {"cut.md": Plan(text, 30)})
    monkeypatch.setenv("CLARITY_AGENT_PLAN_BYTES", "2000")  # the cap falls inside the key
    scan(cli, plans_dir, "--agent")
    sent = claude.sent_text()
    assert "sk-ant" not in sent and secret[-20:] not in sent  # not even its start
    assert "the rest of the plan is not shown" in sent


def test_a_secret_on_the_tails_cut_is_masked_whole(
    cli, plans_dir: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-ant-api03-" + "Zq8" * 20
    ending = " " + secret + "\n" + "z" * 640 + "\nLast line.\n"  # the tail's share cuts the key
    text = "# Notes\n\n" + "x" * 20_000 + ending
    make_files(plans_dir, {"tail.md": Plan(text, 30)})
    monkeypatch.setenv("CLARITY_AGENT_PLAN_BYTES", "2000")  # a third of it: 666 bytes of tail
    scan(cli, plans_dir, "--agent")
    sent = claude.sent_text()
    assert "Last line." in sent
    assert "Zq8Zq8" not in sent  # no piece of the key, though the cut fell inside it


def test_a_plan_a_little_longer_than_the_head_still_sends_its_end(
    cli, plans_dir: Path, claude: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = 2000 * 2 // 3 + 4096  # what is read of the head with a 2,000-byte allowance
    text = "# Notes\n\n" + "x" * head + "\nNext: ship it in v2\n"
    make_files(plans_dir, {"near.md": Plan(text, 30)})
    monkeypatch.setenv("CLARITY_AGENT_PLAN_BYTES", "2000")
    scan(cli, plans_dir, "--agent")
    assert "ship it in v2" in claude.sent_text()


# SPEC 4.4: the agent's verdict decides, where the person opted in


def verdict_reply(
    verdict: str, confidence: float, reason: str = "Its last step says shipped."
) -> Reply:
    answer = {"verdict": verdict, "reason": reason, "confidence": confidence}
    body = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-5-5",
        "content": [{"type": "tool_use", "id": "t", "name": "record_verdict", "input": answer}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 900, "output_tokens": 40},
    }
    return Reply(200, body)


def opt_in(isolated_home: Path, extra: str = "") -> None:
    config = isolated_home / ".config" / "clarity"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("agent_archives = true\n" + extra)


def test_a_finished_verdict_archives_a_dormant_plan_when_the_person_opted_in(
    cli, plans: Path, claude: MessagesServer, isolated_home: Path
) -> None:
    opt_in(isolated_home)
    claude.queue(verdict_reply("finished", 0.86), verdict_reply("finished", 0.6))
    document = scan(cli, plans, "--agent", "--json").json()
    by_name = {plan["name"]: plan for plan in document["plans"]}

    sure, unsure = by_name["idea-one.md"], by_name["idea-two.md"]
    assert (sure["class"], sure["action"]) == ("completed", "archive")
    assert sure["reason"] == "agent: finished (0.86): Its last step says shipped."
    assert sure["decided_by"] == "agent's verdict"
    assert (unsure["class"], unsure["action"]) == ("dormant", "report")  # below 0.8: advice only
    assert unsure["advice"]["confidence"] == 0.6

    result = cli("apply", "--plans-dir", str(plans), "--yes", "--json")  # the reviewed proposal
    assert result.exit_code == 0, result.stderr
    moved = {r["name"]: r["status"] for r in result.json()["results"]}
    assert moved == {"idea-one.md": "done", "done.md": "done"}


def test_the_agents_words_reach_a_report_escaped(
    cli, plans: Path, claude: MessagesServer, isolated_home: Path
) -> None:
    opt_in(isolated_home)
    claude.queue(verdict_reply("finished", 0.9, "Shipped.\x1b[2J"), verdict_reply("live", 0.9))
    document = scan(cli, plans, "--agent", "--json").json()
    reasons = {p["name"]: p["reason"] for p in document["plans"]}
    assert reasons["idea-one.md"] == "agent: finished (0.90): Shipped.\\x1b[2J"


def test_without_the_opt_in_a_finished_verdict_is_advice_only(
    cli, plans: Path, claude: MessagesServer
) -> None:
    claude.queue(verdict_reply("finished", 0.99), verdict_reply("finished", 0.99))
    document = scan(cli, plans, "--agent", "--json").json()
    assert {p["name"]: p["class"] for p in document["plans"]}["idea-one.md"] == "dormant"


@pytest.mark.parametrize(("verdict", "confidence"), [("abandoned", 0.95), ("live", 0.99)])
def test_other_verdicts_never_move_a_plan(
    cli, plans: Path, claude: MessagesServer, isolated_home: Path, verdict, confidence
) -> None:
    opt_in(isolated_home)
    claude.queue(verdict_reply(verdict, confidence), verdict_reply(verdict, confidence))
    document = scan(cli, plans, "--agent", "--json").json()
    classes = {p["name"]: p["class"] for p in document["plans"]}
    assert classes["idea-one.md"] == classes["idea-two.md"] == "dormant"  # never the trash


def test_the_threshold_is_configurable(
    cli, plans: Path, claude: MessagesServer, isolated_home: Path
) -> None:
    opt_in(isolated_home, "agent_min_confidence = 0.5\n")
    claude.queue(verdict_reply("finished", 0.6), verdict_reply("finished", 0.4))
    classes = {p["name"]: p["class"] for p in scan(cli, plans, "--agent", "--json").json()["plans"]}
    assert (classes["idea-one.md"], classes["idea-two.md"]) == ("completed", "dormant")


def test_the_agent_is_never_asked_about_active_or_stale_plans(
    cli, plans_dir: Path, claude: MessagesServer, isolated_home: Path
) -> None:
    opt_in(isolated_home)
    make_files(plans_dir, {"stub.md": Plan("# TODO\n", 20), "fresh.md": Plan(DORMANT, 2)})
    document = scan(cli, plans_dir, "--agent", "--json").json()
    assert claude.requests == []
    assert {p["name"]: p["class"] for p in document["plans"]} == {
        "stub.md": "stale",
        "fresh.md": "active",
    }


def test_apply_rescan_asks_the_agent_when_its_verdict_may_decide(
    cli, plans: Path, claude: MessagesServer, isolated_home: Path
) -> None:
    opt_in(isolated_home, "agent = true\n")
    claude.queue(verdict_reply("finished", 0.9), verdict_reply("live", 0.9))
    result = cli(
        "apply", "--plans-dir", str(plans), "--now", NOW_ISO, "--rescan", "--yes", "--json"
    )
    assert result.exit_code == 0, result.stderr
    moved = {r["name"] for r in result.json()["results"] if r["status"] == "done"}
    assert moved == {"idea-one.md", "done.md"}
    asked = [body["tool_choice"]["name"] for body in claude.requests]
    assert asked.count("record_verdict") == 2 and asked.count("record_summary") == 2
