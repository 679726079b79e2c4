"""Issue 44: Cursor's plans, the second plan source. Its plans folders are found (the
user's, and a project's that Cursor opened), only `*.plan.md` files are plans, a plan
whose every todo is completed is completed and archived byte-exact, and open todos keep
a plan where it is. The plans are fixtures/cursor/, in Cursor's documented format."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.builders.files import NOW_ISO, Plan, make_files

FIXTURES = Path(__file__).parents[2] / "fixtures" / "cursor" / "plans"
DONE = "session_timeout_handling_3f2a9c1e.plan.md"
OPEN = "rate_limit_dashboard_8b41d07a.plan.md"
CANCELLED = "search_index_rebuild_c0ffee12.plan.md"
NO_TODOS = "notes_migration_5d6e7f80.plan.md"
MARKED = "agent_runner_sprint_7a7b7c7d.plan.md"  # open todos, a done marker on its last line


def _clarity(*args: str) -> dict[str, Any]:
    ran = subprocess.run(
        [sys.executable, "-m", "clarity", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    document: dict[str, Any] = json.loads(ran.stdout)
    return document


def _lay_out(folder: Path, names: list[str], age_days: float = 5) -> None:
    make_files(
        folder, {name: Plan((FIXTURES / name).read_bytes(), age_days=age_days) for name in names}
    )


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """Claude Code's plans, Cursor's own, and a project Cursor opened with its plans."""
    make_files(isolated_home / ".claude" / "plans", {"misty-sleeping-cherny.md": Plan("# Misty\n")})
    _lay_out(
        isolated_home / ".cursor" / "plans", [DONE, OPEN, CANCELLED, NO_TODOS, MARKED, "README.md"]
    )
    project = isolated_home / "work" / "shop"
    (project / ".git").mkdir(parents=True)
    _lay_out(project / ".cursor" / "plans", [DONE])
    storage = isolated_home / ".config" / "Cursor" / "User" / "workspaceStorage" / "a1b2c3"
    storage.mkdir(parents=True)
    (storage / "workspace.json").write_text(json.dumps({"folder": project.as_uri()}))
    return isolated_home


def test_roots_finds_cursors_folders_beside_claude_codes(home: Path) -> None:
    roots = {root["plans_dir"]: root["agent"] for root in _clarity("roots")["roots"]}
    assert roots == {
        str(home / ".claude" / "plans"): "claude-code",
        str(home / ".cursor" / "plans"): "cursor",
        str(home / "work" / "shop" / ".cursor" / "plans"): "cursor",
    }


def test_a_plan_whose_every_todo_is_completed_is_completed_and_no_other(home: Path) -> None:
    plans_dir = home / ".cursor" / "plans"
    scanned = _clarity("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, "--no-record")
    found = {plan["name"]: plan for plan in scanned["plans"]}
    assert set(found) == {DONE, OPEN, CANCELLED, NO_TODOS, MARKED}  # README.md is no plan
    assert found[DONE]["class"] == "completed"
    assert {plan["agent"] for plan in found.values()} == {"cursor"}  # whose plans (JSON rows)
    assert "frontmatter todos: 3/3 completed" in found[DONE]["reason"]
    for name in (OPEN, CANCELLED, NO_TODOS, MARKED):
        assert found[name]["class"] != "completed", found[name]
    assert scanned["cleanup_period_days"] is None  # Cursor deletes no plan by age
    assert "cleanup_in_days" not in found[OPEN]


def test_apply_all_archives_finished_cursor_plans_byte_exact_and_leaves_the_rest(
    home: Path,
) -> None:
    applied = _clarity("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    assert applied
    user, project = home / ".cursor" / "plans", home / "work" / "shop" / ".cursor" / "plans"
    assert sorted(path.name for path in user.iterdir()) == sorted(
        [OPEN, CANCELLED, NO_TODOS, MARKED, "README.md"]
    )
    assert list(project.iterdir()) == []
    archived = list((home / ".cursor" / "plans-archive").rglob(DONE))
    assert len(archived) == 1 and archived[0].read_bytes() == (FIXTURES / DONE).read_bytes()
    in_user_archive = list((home / ".claude" / "plans-archive" / "projects").rglob(DONE))
    assert len(in_user_archive) == 1
    assert in_user_archive[0].parents[1].name.startswith("shop-")
    assert in_user_archive[0].parents[1].name.endswith("-cursor")
    assert not (project.parent / "plans-archive").exists()  # nothing new inside the project
    assert (home / ".claude" / "plans" / "misty-sleeping-cherny.md").exists()


def test_a_todo_list_says_done_only_when_every_item_is_completed(tmp_path: Path) -> None:
    from clarity.plans.reader import read_plans_dir

    def plan(todos: str) -> str:
        return f"---\nname: x\ntodos: {todos}\n---\n\n# X\n\n## Steps\n\n1. one\n2. two\n"

    shutil.copytree(FIXTURES, tmp_path / "plans")
    make_files(
        tmp_path / "plans",
        {
            "a.plan.md": plan('[{id: a, status: completed}, {id: b, status: "Completed"}]'),
            "b.plan.md": plan("[{id: a, status: completed}, {id: b}]"),
            "c.plan.md": plan("not-a-list"),
        },
    )
    listing = read_plans_dir(tmp_path / "plans")
    status = {facts.name: facts.status for facts in listing.plans}
    assert status["a.plan.md"] is not None and status["a.plan.md"].done
    assert status["b.plan.md"] is None and status["c.plan.md"] is None  # no evidence
    assert status[NO_TODOS] is None
    cancelled = status[CANCELLED]
    assert cancelled is not None and not cancelled.done
    assert cancelled.evidence == "frontmatter todos: 3/4 completed"


def test_a_note_beside_cursors_plans_is_no_plan_to_keep_or_find(home: Path) -> None:
    """Only `*.plan.md` files are Cursor's plans: its README is not kept as a version by
    the run that writes, and search does not offer it."""
    assert _clarity("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    versions = home / ".cursor" / "plans-archive" / "versions"
    kept = {path.name for path in versions.iterdir() if not path.name.startswith(".")}
    assert kept and not any(name.startswith("README") for name in kept)
    found = _clarity("search", "saves", "--plans-dir", str(home / ".cursor" / "plans"))
    assert found["hits"] == []
    found = _clarity("search", "rate", "--plans-dir", str(home / ".cursor" / "plans"))
    assert found["hits"]  # the plans themselves are found
