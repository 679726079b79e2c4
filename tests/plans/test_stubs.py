"""Rule 3 trashes stubs only (SPEC 4.5, issue 22): a small, old plan goes to the trash
only if nothing says it was ever a real plan. Real plans of 0.6 to 1.8 KB with the
sections plan mode writes were sent to the trash as "small and old"; they are reported
as dormant now, for a person to decide."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.builders.claude_home import Session
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.sessions import SESSION, STARTED, planned

# Shaped as plan mode writes them (written here, modelled on real public plans).
SMALL_REAL_PLANS = {
    "fix-login-redirect.md": (
        "# Fix the login redirect loop\n\n## Context\n\nAfter a session expires, /login "
        "redirects to itself.\n\n## Changes\n\n1. `auth/session.py`: clear the stale cookie "
        "before redirecting.\n2. `auth/views.py`: honour `next` only for local paths.\n\n"
        "## Verification\n\n- `pytest tests/auth -q`\n- log in, wait for expiry, reload\n"
    ),
    "rename-config-key.md": (
        "# Rename `timeout` to `timeout_seconds`\n\n**Goal:** one unit everywhere.\n\n"
        "Files: `config.py`, `cli.py`, `README.md`.\n\nSteps: rename, keep the old key as an "
        "alias for one release, add a deprecation warning, update the docs and the tests.\n"
    ),
}
SEED_STUBS = {
    "title-and-todo.md": "# Refactor the parser\n\nTODO\n",
    "title-alone.md": "# Idea: cache the catalogue\n",
    "empty.md": "",
    "checkbox.md": "- [ ] look into the flaky test\n",
    "frontmatter-and-title.md": "---\ncreated: 2026-10-01\n---\n# Later\n\nmaybe\n",
}


def scan(cli, plans_dir: Path) -> dict[str, dict[str, Any]]:
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--json")
    assert result.exit_code == 0, result.stderr
    return {plan["name"]: plan for plan in result.json()["plans"]}


def test_a_small_real_plan_is_reported_not_trashed(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {name: Plan(text, 40) for name, text in SMALL_REAL_PLANS.items()})
    assert all(len(text) < 2048 for text in SMALL_REAL_PLANS.values())
    found = scan(cli, plans_dir)
    for name, text in SMALL_REAL_PLANS.items():
        assert found[name]["class"] == "dormant", found[name]
        size = f"{len(text)} B" if len(text) < 1024 else f"{len(text) / 1024:.1f} KB"
        assert found[name]["reason"] == (
            f"untouched for 40.0 days > 14; not trashed: {size}, but it has the body of a plan"
        )


@pytest.mark.parametrize("name", sorted(SEED_STUBS))
def test_the_seeds_stubs_stay_stale(cli, plans_dir: Path, name: str) -> None:
    make_files(plans_dir, {name: Plan(SEED_STUBS[name], 40)})
    assert scan(cli, plans_dir)[name]["class"] == "stale"


def test_a_stub_a_session_presented_is_not_trashed(cli, plans_dir: Path, isolated_home) -> None:
    session = Session(SESSION, start=STARTED)
    plan = planned(plans_dir, session, "tiny.md")
    plan.write_text("# Tiny\n\nTODO\n")
    os.utime(plan, (session.time, session.time))
    session.reject(session.present(plan, "# Tiny\n\nTODO\n"), "not now")
    session.save(isolated_home / ".claude")
    found = scan(cli, plans_dir)["tiny.md"]
    assert found["class"] == "dormant"
    assert found["reason"].endswith("; not trashed: 13 B, but a session presented it")


def test_a_stub_with_a_status_field_is_not_trashed(cli, plans_dir: Path) -> None:
    make_files(plans_dir, {"wip.md": Plan("# Port the importer\n\nStatus: in progress\n", 40)})
    found = scan(cli, plans_dir)["wip.md"]
    assert found["class"] == "dormant"
    assert found["reason"].endswith("but it has a status field")


def test_a_real_sub_plan_keeps_its_stub_parent_from_the_trash(cli, plans_dir: Path) -> None:
    text = SMALL_REAL_PLANS["fix-login-redirect.md"]
    make_files(plans_dir, {"p.md": Plan("# P\n", 40), "p-agent-a1.md": Plan(text, 40)})
    found = scan(cli, plans_dir)
    assert found["p.md"]["class"] == "dormant"
    assert found["p.md"]["reason"].endswith(
        "; not trashed: sub-plan p-agent-a1.md is a real plan (it has the body of a plan)"
    )
