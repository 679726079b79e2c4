"""Plans shaped like the ones people write (fixtures/plan_shapes): each done pattern is
archived, each trap stays for a person to decide, and every verdict names its evidence."""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.builders.files import DAY, NOW, NOW_ISO
from tests.builders.processes import REAL_HOME

SHAPES = Path(__file__).parents[2] / "fixtures" / "plan_shapes"
EXPECTED = tomllib.loads((SHAPES / "expected.toml").read_text(encoding="utf-8"))
CASES = [
    (cls, name, evidence) for cls, plans in EXPECTED.items() for name, evidence in plans.items()
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """One scan of every shape, each plan 20 days old (and none small enough for the trash:
    these plans are short, and what is judged here is what their words say)."""
    import json
    import os

    from clarity.cli import main

    plans_dir = tmp_path_factory.mktemp("shapes") / "plans"
    plans_dir.mkdir()
    for path in SHAPES.glob("*.md"):
        copy = plans_dir / path.name
        shutil.copyfile(path, copy)
        when = NOW.timestamp() - 20 * DAY
        os.utime(copy, (when, when))
    out = plans_dir.parent / "report.json"
    args = ["--plans-dir", str(plans_dir), "--now", NOW_ISO, "--stale-bytes", "0"]
    code = main(["scan", *args, "--json", "--output", str(out)])
    assert code in (0, None)
    return {plan["name"]: plan for plan in json.loads(out.read_text(encoding="utf-8"))["plans"]}


def test_every_shape_has_an_expectation() -> None:
    assert sorted(p.name for p in SHAPES.glob("*.md")) == sorted(name for _, name, _ in CASES)


@pytest.mark.parametrize(("plan_class", "name", "evidence"), CASES)
def test_a_plan_is_judged_on_what_its_own_words_say(
    report: dict[str, dict[str, str]], plan_class: str, name: str, evidence: str
) -> None:
    plan = report[name]
    assert plan["class"] == plan_class
    if plan_class == "completed":
        assert plan["reason"] == evidence
    elif evidence:
        assert plan["reason"].endswith(f"; {evidence}")  # the status that held it back
    else:
        assert plan["reason"] == "untouched for 20.0 days > 14"


@pytest.fixture(scope="module")
def home_when_the_module_began() -> str:
    return os.environ["HOME"]


def test_a_modules_fixtures_never_reach_the_real_home(home_when_the_module_began: str) -> None:
    # Issue 23 item 13: the report above ran before the per-test home was set up, and
    # every test run left a folder in the real ~/.local/state/clarity.
    assert REAL_HOME and home_when_the_module_began != REAL_HOME
