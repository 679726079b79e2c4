"""Issue 42, case 5: the approval ledger's state files follow the rule the older ones do:
a regular file only, never through a link, of a bounded size. A FIFO in their place hung
scan, apply and the hook; a link to /dev/zero took 1.9 GB in 1 s; a link in ledger-texts/
to another file made that file a kept version, which show and search then printed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clarity.state import DirState
from tests.builders.files import NOW_ISO, Plan, make_files, not_a_file
from tests.builders.hook import DONE
from tests.builders.sessions import PLAN, SESSION

STATE_FILES = ["ledger.jsonl", "ledger-texts", "ledger-read", "plan-texts/seen.jsonl"]


def _state(home: Path) -> Path:
    return home / ".local" / "state" / "clarity"


def _run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> tuple[int, str, str]:
    ran = subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,  # a FIFO waited on would hang here for ever
        check=False,
        env={**os.environ, **(env or {})},
    )
    return ran.returncode, ran.stdout, ran.stderr


def _shown(plan: Path, text: str, cwd: Path) -> str:
    return json.dumps(
        {
            "session_id": SESSION,
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": "ExitPlanMode",
            "tool_input": {"plan": text, "planFilePath": str(plan)},
        }
    )


def _hook(stdin: str, **env: str) -> tuple[int, str, str]:
    return _run("-I", "-m", "clarity.hook", stdin=stdin, env=env)


@pytest.mark.parametrize("what", STATE_FILES)
@pytest.mark.parametrize("kind", ["fifo", "zero", "loop"])
def test_a_ledger_state_file_that_is_not_a_file_is_never_waited_on_nor_read_without_end(
    plans_dir: Path, isolated_home: Path, tmp_path: Path, what: str, kind: str
) -> None:
    make_files(plans_dir, {"done.md": Plan(DONE, 10)})
    plan = plans_dir / "done.md"
    dir_state = DirState.for_plans_dir(plans_dir).root
    folder = (
        _state(isolated_home)
        if what.startswith("ledger-texts") or what == "ledger.jsonl"
        else dir_state
    )
    target = folder / what
    if what != "ledger.jsonl":  # a ledger with a text in it, for the others to be read
        assert _hook(_shown(plan, PLAN, tmp_path)) == (0, "", "")
        if what == "ledger-texts":
            target = next((folder / what).iterdir())
            target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    not_a_file(target, kind)
    dirs = ("--plans-dir", str(plans_dir), "--now", NOW_ISO)

    code, out, err = _run("-m", "clarity", "scan", *dirs, "--json")
    assert (code, err) == (0, "")
    assert [found["name"] for found in json.loads(out)["plans"]] == ["done.md"]
    code, _, err = _run("-m", "clarity", "apply", "--yes", *dirs)
    assert code == 0, err
    assert _hook(_shown(plan, PLAN + "again\n", tmp_path)) == (0, "", "")
    start = json.dumps({"session_id": "s2", "cwd": str(tmp_path), "source": "startup"})
    code, _, err = _hook(start, CLARITY_PLANS_DIR=str(plans_dir), CLARITY_HOOK_DEADLINE="0.5")
    assert (code, err) == (0, "")


def test_a_link_in_ledger_texts_never_makes_another_file_a_version(
    plans_dir: Path, isolated_home: Path, tmp_path: Path
) -> None:
    make_files(plans_dir, {"done.md": Plan(DONE, 10)})
    plan = plans_dir / "done.md"
    assert _hook(_shown(plan, PLAN, tmp_path)) == (0, "", "")
    (text,) = (_state(isolated_home) / "ledger-texts").iterdir()
    assert text.name == hashlib.sha256(PLAN.encode()).hexdigest() + ".md"
    secret = isolated_home / "secret.md"
    secret.write_text("# Not a plan\n\nthe word marmalade, from a file of the person's\n")
    text.unlink()
    text.symlink_to(secret)
    dirs = ("--plans-dir", str(plans_dir), "--now", NOW_ISO)

    assert _run("-m", "clarity", "scan", *dirs)[0] == 0
    assert _run("-m", "clarity", "apply", "--yes", *dirs)[0] == 0
    _, out, _ = _run("-m", "clarity", "search", "marmalade", "--plans-dir", str(plans_dir))
    assert "marmalade" not in out
    _, out, err = _run("-m", "clarity", "history", "done", "--plans-dir", str(plans_dir))
    assert "marmalade" not in out + err
    versions = plans_dir.parent / "plans-archive" / "versions"
    for kept in versions.rglob("*.md"):
        assert "marmalade" not in kept.read_text()
