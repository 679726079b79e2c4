"""Issue 42, case 3: a plan name too long for a folder name once had its versions folder
cut to fit. Two names alike in their first 239 bytes then shared a folder (`history A`
printed plan B's texts), and a live long-named plan near Claude Code's cleanup was listed
as deleted, its text kept, which `restore <cut name>` then wrote beside it. A versions
folder is now told apart by a hash of the whole name, and its records carry the name."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.builders.files import Plan, make_files

LONG = ("a-plan-whose-name-goes-on-" + "and-on-" * 33)[:240]  # as far as a folder name goes
A, B = f"{LONG}-first", f"{LONG}-other"  # 249 and 248 bytes with .md
TEXT_A = "# Plan A\n\n## Context\n\nThe first of two long names.\n\n## Steps\n\n1. One.\n"
TEXT_B = "# Plan B\n\n## Context\n\nThe second of two long names.\n\n## Steps\n\n1. Two.\n"


def _dirs(home: Path) -> tuple[Path, tuple[str, ...]]:
    plans_dir = home / ".claude" / "plans"  # Claude Code's cleanup folder: texts kept
    return plans_dir, ("--plans-dir", str(plans_dir))


def test_two_long_names_alike_keep_their_own_versions(cli, isolated_home: Path) -> None:
    assert len(f"{B}.md".encode()) > 242 and A[:241] == B[:241]  # past the cut, alike to it
    plans_dir, dirs = _dirs(isolated_home)
    now = datetime.now(UTC)
    make_files(plans_dir, {f"{A}.md": Plan(TEXT_A, 25), f"{B}.md": Plan(TEXT_B, 25)}, now)
    assert cli("apply", "--rescan", "--yes", *dirs).exit_code == 0  # near the cleanup: kept

    for name, text in ((A, TEXT_A), (B, TEXT_B)):
        listed = cli("history", name, *dirs, "--json").json()
        assert len(listed["versions"]) == 1, listed
        shown = cli("show", name, "--version", "1", *dirs)
        assert (shown.exit_code, shown.stdout) == (0, text)

    # Both live: neither is listed as deleted with its text kept, and no cut name restores.
    assert cli("archived", *dirs, "--json").json()["kept"] == []
    for cut in {A[:239], A[:242]}:
        refused = cli("restore", cut, "--yes", *dirs)
        assert refused.exit_code == 2
    assert sorted(p.name for p in plans_dir.iterdir()) == sorted([f"{A}.md", f"{B}.md"])

    # Once Claude Code deletes one, that one is listed by its whole name, and restored.
    (plans_dir / f"{A}.md").unlink()
    kept = cli("archived", *dirs, "--json").json()["kept"]
    assert [plan["name"] for plan in kept] == [f"{A}.md"]
    assert cli("restore", A, "--yes", *dirs).exit_code == 0
    assert (plans_dir / f"{A}.md").read_text() == TEXT_A
    found = cli("search", "second", "long", "names", *dirs, "--json").json()["hits"]
    assert {hit["name"] for hit in found} == {f"{B}.md"}
