"""Every plans folder on the machine (issue 33, SPEC 2): a fake home with four projects,
each found the way Claude Code would, and one command over all of them."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from tests.builders.claude_home import Session
from tests.builders.files import NOW, NOW_ISO

DONE = "# Release notes COMPLETED\n\nShipped the {word} change.\n"
OLD = NOW.timestamp() - 20 * 86400


def _plan(folder: Path, name: str, word: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(DONE.format(word=word))
    os.utime(path, (OLD, OLD))
    return path


def _settings(project: Path, file: str, value: str) -> None:
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / file).write_text(json.dumps({"plansDirectory": value}))


def _worked_in(claude: Path, project: Path) -> None:
    """A transcript of a session that started in project."""
    session = Session(f"s-{project.name}", start=NOW, cwd=str(project)).user("hello")
    session.save(claude, project=str(project).replace("/", "-"))


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), *args],
        capture_output=True,
        text=True,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )
    return done.stdout


@pytest.fixture
def machine(isolated_home: Path) -> dict[str, Path]:
    return build_machine(isolated_home)


def build_machine(isolated_home: Path) -> dict[str, Path]:
    """~/.claude with a plan of its own, and four projects Claude Code worked in."""
    claude = isolated_home / ".claude"
    code = isolated_home / "code"
    _plan(claude / "plans", "home-plan.md", "homeword")
    alpha, beta, gamma, delta = (code / name for name in ("alpha", "beta", "gamma", "delta"))
    _settings(alpha, "settings.json", "./docs/plans")
    _plan(alpha / "docs" / "plans", "alpha-plan.md", "alphaword")
    _settings(beta, "settings.local.json", "plans")
    _plan(beta / "plans", "beta-plan.md", "betaword")
    _settings(gamma, "settings.json", "../outside")
    _plan(code / "outside", "gamma-plan.md", "gammaword")
    _settings(delta, "settings.json", ".claude/plans")
    _plan(delta / ".claude" / "plans", "delta-tracked.md", "deltaword")
    _git(delta, "init", "-q")
    _git(delta, "add", ".")
    _git(delta, "commit", "-q", "-m", "plans")
    _plan(delta / ".claude" / "plans", "delta-new.md", "newword")
    for project in (alpha, gamma, delta):
        _worked_in(claude, project)
    # beta only in Claude Code's own list of projects
    (isolated_home / ".claude.json").write_text(json.dumps({"projects": {str(beta): {}}}))
    return {"claude": claude, "alpha": alpha, "beta": beta, "gamma": gamma, "delta": delta}


def test_roots_lists_each_real_root_once_with_its_source(cli, machine) -> None:
    result = cli("roots", "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    found = {root["plans_dir"]: root for root in document["roots"]}
    alpha_plans = str(machine["alpha"] / "docs" / "plans")
    beta_plans = str(machine["beta"] / "plans")
    delta_plans = str(machine["delta"] / ".claude" / "plans")
    assert set(found) == {str(machine["claude"] / "plans"), alpha_plans, beta_plans, delta_plans}
    assert found[str(machine["claude"] / "plans")]["source"] == "default"
    assert found[alpha_plans]["source"].startswith(
        f"plansDirectory in {machine['alpha'] / '.claude' / 'settings.json'}"
    )
    assert "settings.local.json" in found[beta_plans]["source"]
    assert ".claude.json" in found[beta_plans]["source"]
    escaped = [p for p in document["passed_over"] if "outside the project" in p["reason"]]
    assert [p["path"] for p in escaped] == [str(machine["gamma"].parent / "outside")]
    # each project's archive is in the user's, never inside the project
    for plans in (alpha_plans, beta_plans, delta_plans):
        archive = Path(found[plans]["archive_dir"])
        assert archive.parent == machine["claude"] / "plans-archive" / "projects"


def test_a_settings_file_rewritten_at_once_with_the_same_size_is_read_again(cli, machine) -> None:
    """Each settings file is read once while it is unchanged (roots of 20,000 projects
    read the user's 20,000 times); a rewrite of the same size within the same timestamp
    tick is still seen (a file changed in the last moments is read again)."""
    before = {root["plans_dir"] for root in cli("roots", "--json").json()["roots"]}
    alpha = machine["alpha"]
    assert str(alpha / "docs" / "plans") in before
    _plan(alpha / "docs" / "plxns", "alpha-plan.md", "alphaword")
    settings = alpha / ".claude" / "settings.json"
    was = settings.stat()
    _settings(alpha, "settings.json", "./docs/plxns")  # same size, same inode
    os.utime(settings, ns=(was.st_atime_ns, was.st_mtime_ns))  # and the same tick
    after = {root["plans_dir"] for root in cli("roots", "--json").json()["roots"]}
    assert after == (before - {str(alpha / "docs" / "plans")}) | {str(alpha / "docs" / "plxns")}


def test_scan_all_reports_every_plan_naming_its_root(cli, machine) -> None:
    result = cli("scan", "--all", "--json", "--now", NOW_ISO)
    assert result.exit_code == 0, result.stderr
    plans = {plan["name"]: plan for plan in result.json()["plans"]}
    assert set(plans) == {
        "home-plan.md",
        "alpha-plan.md",
        "beta-plan.md",
        "delta-tracked.md",
        "delta-new.md",
    }
    assert plans["alpha-plan.md"]["root"] == str(machine["alpha"] / "docs" / "plans")
    assert plans["delta-new.md"]["action"] == "archive"
    tracked = plans["delta-tracked.md"]
    assert (tracked["class"], tracked["action"]) == ("completed", "report")
    assert "tracked by git" in tracked["reason"]


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*.md")}


def test_apply_all_archives_each_root_outside_the_projects_and_undo_puts_back(cli, machine) -> None:
    before = {name: _files(machine[name]) for name in ("alpha", "beta", "delta")}
    result = cli("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    assert result.exit_code == 0, result.stdout + result.stderr
    archive = machine["claude"] / "plans-archive"
    archived = {
        p.name for p in archive.rglob("*.md") if p.name != "INDEX.md" and "versions" not in p.parts
    }
    assert archived == {"home-plan.md", "alpha-plan.md", "beta-plan.md", "delta-new.md"}
    for name in ("alpha", "beta", "delta"):
        project_archive = [p for p in archived if p.startswith(name)]
        assert project_archive
    assert next(archive.rglob("alpha-plan.md")).parent.parent.name.startswith("alpha-")
    # nothing new in the git work tree, and the tracked plan stays
    assert _git(machine["delta"], "status", "--porcelain", "--untracked-files=all") == ""
    assert (machine["delta"] / ".claude" / "plans" / "delta-tracked.md").exists()
    assert not (machine["alpha"] / "docs" / "plans-archive").exists()
    assert (machine["gamma"].parent / "outside" / "gamma-plan.md").exists()

    listed = cli("archived", "--all", "--json")
    assert listed.exit_code == 0, listed.stderr
    shelves = {r["plans_dir"]: r for r in listed.json()["roots"]}
    alpha_shelf = shelves[str(machine["alpha"] / "docs" / "plans")]
    assert [plan["name"] for plan in alpha_shelf["plans"]] == ["alpha-plan.md"]

    undone = cli("undo", "--all", "--yes")
    assert undone.exit_code == 0, undone.stdout + undone.stderr
    assert {name: _files(machine[name]) for name in before} == before
    assert (machine["claude"] / "plans" / "home-plan.md").exists()


def test_include_tracked_moves_the_tracked_plan_too(cli, machine) -> None:
    delta_plans = machine["delta"] / ".claude" / "plans"
    result = cli(
        "apply",
        "--plans-dir",
        str(delta_plans),
        "--rescan",
        "--yes",
        "--include-tracked",
        "--now",
        NOW_ISO,
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    assert not list(delta_plans.glob("*.md"))


def test_one_root_that_fails_is_said_and_the_others_go_on(cli, machine) -> None:
    roots = {r["plans_dir"]: r for r in cli("roots", "--json").json()["roots"]}
    beta_archive = Path(roots[str(machine["beta"] / "plans")]["archive_dir"])
    beta_archive.parent.mkdir(parents=True)
    beta_archive.write_text("not a folder\n")  # the archive cannot be made there
    result = cli("apply", "--all", "--rescan", "--yes", "--json", "--now", NOW_ISO)
    assert result.exit_code == 1
    document = {r["plans_dir"]: r for r in result.json()["roots"]}
    beta = document[str(machine["beta"] / "plans")]
    assert beta["error"] or beta["counts"]["failed"]
    assert (machine["beta"] / "plans" / "beta-plan.md").exists()
    alpha = document[str(machine["alpha"] / "docs" / "plans")]
    assert alpha["counts"]["done"] == 1
    assert not (machine["alpha"] / "docs" / "plans" / "alpha-plan.md").exists()


def test_search_finds_a_plan_of_a_project_root_from_anywhere(cli, machine) -> None:
    elsewhere = machine["claude"].parent / "work"  # the folder the test runs in: no project
    assert Path.cwd() == elsewhere
    result = cli("search", "alphaword", "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert [hit["path"] for hit in document["hits"]] == [
        str(machine["alpha"] / "docs" / "plans" / "alpha-plan.md")
    ]
    assert len(document["roots"]) == 4
    # a folder the person names is the only one searched
    named = cli("search", "alphaword", "--json", "--plans-dir", str(machine["claude"] / "plans"))
    assert named.json()["hits"] == []


def test_schedule_install_writes_the_all_job(cli, machine, standins, real_crontab_kept) -> None:
    crontab = shutil.which("crontab")
    installed = cli("schedule", "install", "--scheduler", "cron")
    assert installed.exit_code == 0, installed.stderr
    table = subprocess.run(
        [crontab or "crontab", "-l"], capture_output=True, text=True, check=True
    ).stdout
    line = next(line for line in table.splitlines() if "apply" in line)
    words = shlex.split(line.split(" ", 5)[5])
    assert words[words.index("apply") :][:4] == ["apply", "--rescan", "--yes", "--all"]
    assert "--plans-dir" not in words


def test_a_gone_project_is_passed_over_and_a_folder_two_ways_found_is_one_root(
    cli, machine
) -> None:
    gone = machine["alpha"].parent / "removed"
    _worked_in(machine["claude"], gone)  # its transcript outlives it
    _worked_in(machine["claude"], machine["alpha"] / "docs")  # a session started below alpha
    document = cli("roots", "--json").json()
    alpha_plans = str(machine["alpha"] / "docs" / "plans")
    assert [r["plans_dir"] for r in document["roots"]].count(alpha_plans) == 1
    assert any(p["path"] == str(gone) and "gone" in p["reason"] for p in document["passed_over"])


def test_a_project_roots_archive_is_the_same_from_inside_it_or_named(
    cli, machine, monkeypatch
) -> None:
    applied = cli("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    assert applied.exit_code == 0, applied.stderr
    alpha_plans = machine["alpha"] / "docs" / "plans"
    named = cli("show", "alpha-plan", "--plans-dir", str(alpha_plans))
    assert named.exit_code == 0, named.stderr
    assert "alphaword" in named.stdout
    monkeypatch.chdir(machine["alpha"])  # where Claude Code works: its plansDirectory, its archive
    history = cli("history", "alpha-plan", "--json")
    assert history.exit_code == 0, history.stderr
    restored = cli("restore", "alpha-plan", "--yes")
    assert restored.exit_code == 0, restored.stdout + restored.stderr
    assert "alphaword" in (alpha_plans / "alpha-plan.md").read_text()


def test_archive_by_name_leaves_a_tracked_plan_unless_told(cli, machine) -> None:
    delta_plans = machine["delta"] / ".claude" / "plans"
    where = ("--plans-dir", str(delta_plans), "--yes", "--now", NOW_ISO)
    refused = cli("archive", "delta-tracked", *where)
    assert refused.exit_code == 2
    assert "tracked by git" in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert (delta_plans / "delta-tracked.md").exists()
    moved = cli("archive", "delta-tracked", *where, "--include-tracked")
    assert moved.exit_code == 0, moved.stderr
    assert not (delta_plans / "delta-tracked.md").exists()


def test_a_plans_directory_that_is_the_project_itself_is_passed_over(cli, machine) -> None:
    # plansDirectory "." would make the project's README and CLAUDE.md "plans"
    _settings(machine["alpha"], "settings.local.json", ".")
    (machine["alpha"] / "README.md").write_text("# Alpha COMPLETED\n")
    _git(machine["alpha"], "init", "-q")
    document = cli("roots", "--json").json()
    assert str(machine["alpha"]) not in [r["plans_dir"] for r in document["roots"]]
    assert any(p["path"] == str(machine["alpha"]) for p in document["passed_over"])


def test_a_repositorys_own_config_runs_nothing(cli, machine, tmp_path: Path) -> None:
    # git would start core.fsmonitor's program for ls-files: a cloned repository's config
    ran = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {ran}\n")
    hook.chmod(0o755)
    _git(machine["delta"], "config", "core.fsmonitor", str(hook))
    result = cli("scan", "--all", "--json", "--now", NOW_ISO)
    assert result.exit_code == 0, result.stderr
    assert not ran.exists()
    plans = {plan["name"]: plan for plan in result.json()["plans"]}
    assert plans["delta-tracked.md"]["action"] == "report"  # git still said what it tracks
    assert plans["delta-new.md"]["action"] == "archive"


def test_folders_that_hold_a_projects_own_files_are_never_taken_for_plans(
    cli, machine, isolated_home: Path
) -> None:
    # a user-wide plansDirectory "." makes every folder Claude Code starts in "the plans"
    (machine["claude"] / "settings.json").write_text(json.dumps({"plansDirectory": "."}))
    notes = isolated_home / "notes"
    _plan(notes, "todo.md", "noteword")
    _worked_in(machine["claude"], notes)
    bare = isolated_home / "bare"  # a project of its own: CLAUDE.md, README.md, no git
    _settings(bare, "settings.json", ".")
    _plan(bare, "CLAUDE.md", "memoryword")
    _worked_in(machine["claude"], bare)
    gitty = isolated_home / "gitty"
    _settings(gitty, "settings.json", ".git")
    _git(gitty, "init", "-q")
    _plan(gitty / ".git", "notes.md", "gitword")
    _worked_in(machine["claude"], gitty)

    document = cli("roots", "--json").json()
    found = {r["plans_dir"] for r in document["roots"]}
    passed = {p["path"]: p["reason"] for p in document["passed_over"]}
    for folder in (notes, bare, gitty / ".git"):
        assert str(folder) not in found
        assert str(folder) in passed, passed
    applied = cli("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    assert applied.exit_code == 0, applied.stderr
    assert (notes / "todo.md").exists() and (bare / "CLAUDE.md").exists()
    assert (gitty / ".git" / "notes.md").exists()


def test_a_name_too_long_for_the_system_stops_no_other_folder(cli, machine) -> None:
    long_cwd = machine["alpha"].parent / ("a" * 300)  # past NAME_MAX: every stat fails
    session = Session("s-long", start=NOW, cwd=str(long_cwd)).user("hello")
    session.save(machine["claude"], project="-long")
    deep = machine["alpha"].parent / ("b" * 200)
    _settings(deep, "settings.json", "p" * 250)  # its archive beside would be past NAME_MAX
    _plan(deep / ("p" * 250), "deep-plan.md", "deepword")
    _worked_in(machine["claude"], deep)

    result = cli("roots", "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert str(deep / ("p" * 250)) in {r["plans_dir"] for r in document["roots"]}
    assert any(p["path"] == str(long_cwd) for p in document["passed_over"])
    scanned = cli("scan", "--all", "--json", "--now", NOW_ISO)
    assert scanned.exit_code == 0, scanned.stderr
    assert "deep-plan.md" in {plan["name"] for plan in scanned.json()["plans"]}


def test_apply_all_carries_out_the_folders_scan_all_reviewed(cli, machine) -> None:
    scanned = cli("scan", "--all", "--now", NOW_ISO)
    assert scanned.exit_code == 0, scanned.stderr
    moved = machine["beta"].with_name("beta-moved")
    machine["beta"].rename(moved)  # a reviewed folder gone before apply: said, not dropped
    applied = cli("apply", "--all", "--yes", "--json")
    assert applied.exit_code == 1
    roots = {r["plans_dir"]: r for r in applied.json()["roots"]}
    assert "does not exist" in roots[str(machine["beta"] / "plans")]["error"]
    assert roots[str(machine["alpha"] / "docs" / "plans")]["counts"]["done"] == 1
    assert (moved / "plans" / "beta-plan.md").exists()


def test_apply_all_needs_a_reviewed_scan_all(cli, machine) -> None:
    refused = cli("apply", "--all", "--yes")
    assert refused.exit_code == 2
    assert "clarity scan --all first" in refused.stderr


def test_undo_all_reaches_a_folder_no_longer_found(
    cli, machine, isolated_home: Path, monkeypatch
) -> None:
    work = isolated_home / ".claude-work"
    _plan(work / "plans", "work-plan.md", "workword")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(work))
    applied = cli("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    assert applied.exit_code == 0, applied.stderr
    assert not (work / "plans" / "work-plan.md").exists()
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")  # its plans folder is no root now
    undone = cli("undo", "--all", "--yes")
    assert undone.exit_code == 0, undone.stderr
    assert (work / "plans" / "work-plan.md").exists()
    assert (machine["alpha"] / "docs" / "plans" / "alpha-plan.md").exists()


def test_a_projects_archive_stays_put_whatever_claude_config_dir_says(
    cli, machine, isolated_home: Path, monkeypatch
) -> None:
    def alpha_archive() -> str:
        roots = cli("roots", "--json").json()["roots"]
        return next(
            str(r["archive_dir"])
            for r in roots
            if r["plans_dir"] == str(machine["alpha"] / "docs" / "plans")
        )

    before = alpha_archive()
    (isolated_home / ".claude-work" / "projects").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / ".claude-work"))
    assert alpha_archive() == before


def test_a_project_whose_first_prompt_is_long_is_still_found(cli, machine) -> None:
    alpha_transcripts = machine["claude"] / "projects"
    for transcript in alpha_transcripts.rglob("s-alpha.jsonl"):
        transcript.unlink()
    session = Session("s-long-prompt", start=NOW, cwd=str(machine["alpha"]))
    session.user("Please read all of this: " + "words " * 100_000)  # one record of 600 KB
    session.save(machine["claude"], project="-alpha-long")
    roots = {r["plans_dir"] for r in cli("roots", "--json").json()["roots"]}
    assert str(machine["alpha"] / "docs" / "plans") in roots


def test_a_text_a_session_carried_is_kept_in_the_root_whose_plan_it_is(cli, machine) -> None:
    # Issue 42, case 4: a "clear context" session names its plan by slug only, never by
    # folder. Its text was kept in every root (73 texts of other projects' plans in one
    # project's archive, each then listed twice by search): now only in the folder that
    # holds that plan, or where Claude Code plans from the session's folder (SPEC 2).
    claude = machine["claude"]
    elsewhere = machine["alpha"].parent / "elsewhere"  # a project with no plansDirectory
    sessions = [
        # home-plan.md is in ~/.claude/plans; the session worked in a plain project
        ("s-home", elsewhere, claude / "plans" / "home-plan.md", "quokka"),
        # alpha plans into docs/plans; its plan is gone (Claude Code's cleanup, say)
        ("s-alpha", machine["alpha"], machine["alpha"] / "docs" / "plans" / "gone.md", "wombat"),
    ]
    for session_id, cwd, plan, word in sessions:
        approved = f"# A plan, as approved\n\n## Steps\n\n1. Ship the {word} change.\n"
        working = Session(session_id, start=NOW, cwd=str(cwd), version=(2, 1, 47))
        working.implement(plan, approved).edit(f"{cwd}/src/{word}.py")
        # Then plans again in the same chain: an ExitPlanMode with no planFilePath (before
        # 2.1.76), its plan the chain's slug.
        working.present(plan, approved.replace(word, f"{word}-platypus"))
        working.save(claude, project=str(cwd).replace("/", "-"))

    applied = cli("apply", "--all", "--rescan", "--yes", "--now", NOW_ISO)
    assert applied.exit_code == 0, applied.stderr
    roots = {
        "home": claude / "plans",
        "alpha": machine["alpha"] / "docs" / "plans",
        "beta": machine["beta"] / "plans",
    }
    kept = {
        (root, plan): cli("history", plan, "--plans-dir", str(folder)).exit_code == 0
        for root, folder in roots.items()
        for plan in ("home-plan", "gone")
    }
    assert {key for key, known in kept.items() if known} == {
        ("home", "home-plan"),
        ("alpha", "gone"),
    }
    for word, plan in (("quokka", "home-plan.md"), ("wombat", "gone.md"), ("platypus", None)):
        if plan is None:  # in both plans' second texts, each kept once, in its own root
            hits = cli("search", word, "--json").json()["hits"]
            assert sorted(hit["name"] for hit in hits) == ["gone.md", "home-plan.md"]
            continue
        hits = cli("search", word, "--json").json()["hits"]
        assert [hit["name"] for hit in hits] == [plan]  # once, where it belongs


def test_scan_all_judges_each_folder_as_a_scan_of_it_alone_does(
    cli, isolated_home: Path, monkeypatch
) -> None:
    """Issue 45: scan --all reads a transcript that names none of its folders once for all
    of them (transcripts/survey.py). Every folder's plans are judged as a scan of that
    folder alone judges them: sessions that implemented a plan in each folder, one whose
    edits are in a sub-agent's transcript (read for the folder whose plan its session
    used, though it names no folder), one in an older version's agent- file beside its
    session, and chatter that names no plan."""
    from tests.builders.sessions import PLAN, planned

    claude = isolated_home / ".claude"
    home_plans = claude / "plans"
    home_plans.mkdir(parents=True)
    folders = [home_plans]
    for name in ("alpha", "beta"):
        project = isolated_home / "code" / name
        _settings(project, "settings.json", "plans")
        (project / "plans").mkdir(parents=True)
        folders.append(project / "plans")
    listed: dict[str, object] = {str(folder.parent): {} for folder in folders[1:]}
    (isolated_home / ".claude.json").write_text(json.dumps({"projects": listed}))
    start = NOW - timedelta(days=12)
    for number, folder in enumerate(folders):
        done = Session(f"done-{number}", start=start, cwd=str(folder.parent))
        plan = planned(folder, done, name=f"done-{number}.md")
        done.approve(done.present(plan, PLAN), plan, PLAN)
        for edit in range(3):
            done.edit(f"{folder.parent}/src/cache_{edit}.py")
        done.save(claude, project=f"-p{number}")
        waiting = Session(f"wait-{number}", start=start, cwd=str(folder.parent))
        planned(folder, waiting, name=f"waiting-{number}.md")
        waiting.save(claude, project=f"-p{number}")
    # beta's second plan: approved in its session, its edits made by a sub-agent
    beta = folders[2]
    lead = Session("lead-b", start=start, cwd=str(beta.parent))
    plan = planned(beta, lead, name="delegated.md")
    lead.approve(lead.present(plan, PLAN), plan, PLAN)
    lead.save(claude, project="-p2")
    helper = Session("lead-b", start=start + timedelta(minutes=5), sidechain="a1", cwd="/w")
    for number in range(3):
        helper.edit(f"/w/src/part_{number}.py")
    helper.save(claude, project="-p2")
    old_style = Session("lead-b", start=start + timedelta(minutes=9), sidechain="a2", cwd="/w")
    old_style.edit("/w/src/more.py")
    old_path = old_style.save(claude, project="-p2")
    old_path.rename(claude / "projects" / "-p2" / "agent-a2.jsonl")
    for number in range(30):  # chatter: names no plan
        Session(f"chat-{number}", start=start, cwd="/w").user("hello").edit("/w/x.py").save(
            claude, project="-chatter"
        )

    every = cli("scan", "--all", "--json", "--now", NOW_ISO)
    assert every.exit_code == 0, every.stderr
    together = {(p["path"], p["class"], p["reason"]) for p in every.json()["plans"]}

    alone = set()
    for number, folder in enumerate(folders):
        monkeypatch.setenv("XDG_STATE_HOME", str(isolated_home / f"state-alone-{number}"))
        one = cli("scan", "--json", "--now", NOW_ISO, "--plans-dir", str(folder))
        assert one.exit_code == 0, one.stderr
        alone |= {(p["path"], p["class"], p["reason"]) for p in one.json()["plans"]}
    assert together == alone
    classes = {Path(path).name: plan_class for path, plan_class, _ in together}
    assert classes["delegated.md"] == "completed", together  # the sub-agent's edits: its work
    assert [classes[f"done-{n}.md"] for n in range(3)] == ["completed"] * 3


def test_a_transcript_that_changes_during_scan_all_is_read_as_it_is_now(
    cli, isolated_home: Path, monkeypatch
) -> None:
    """From a hostile trial of the survey: the walk taken by the first folder was reused
    with its stat, so a transcript that named a plan of the second folder only after the
    first had read it was kept as quiet, unread: the plan stayed 'in progress' where a
    scan of its folder alone called it completed (and a stale stub it protected went to
    the trash). Each folder now looks at each transcript as it is when it comes to it."""
    import clarity.transcripts.sessions as sessions
    from tests.builders.sessions import PLAN, planned

    claude = isolated_home / ".claude"
    _plan(claude / "plans", "home-plan.md", "homeword")  # read first: the walk is its
    beta = isolated_home / "code" / "beta"
    _settings(beta, "settings.json", "plans")
    (beta / "plans").mkdir(parents=True)
    (isolated_home / ".claude.json").write_text(json.dumps({"projects": {str(beta): {}}}))
    start = NOW - timedelta(days=12)
    waiting = Session("w", start=start, cwd=str(beta))
    plan = planned(beta / "plans", waiting, name="waiting.md")
    waiting.save(claude, project="-p")
    chat = Session("chat", start=start, cwd=str(beta)).user("hello").save(claude, project="-c")

    read_by: list[Path] = []
    run = sessions._Reading.run

    def then_the_session_goes_on(self: sessions._Reading) -> None:
        run(self)
        read_by.append(self.plans_dir)
        if len(read_by) == 1:  # between the first folder's turn and the second's
            more = Session("chat", start=NOW - timedelta(days=3), cwd=str(beta))
            more.plan_mode(plan).approve(more.present(plan, PLAN), plan, PLAN)
            more.edit("/w/a.py").edit("/w/b.py")
            with chat.open("ab") as transcript:
                transcript.write(b"\n".join(more.lines()) + b"\n")
            os.utime(chat, (more.time, more.time))

    monkeypatch.setattr(sessions._Reading, "run", then_the_session_goes_on)
    every = cli("scan", "--all", "--json", "--now", NOW_ISO)

    assert every.exit_code == 0, every.stderr
    assert read_by == [claude / "plans", beta / "plans"]
    [judged] = [p for p in every.json()["plans"] if p["name"] == "waiting.md"]
    assert judged["class"] == "completed", judged["reason"]


def test_a_server_finds_the_roots_again_behind_its_callers(machine, monkeypatch) -> None:
    """Issue 45: a server (MCP, browse) found the roots again on the call after a minute,
    a second or more at 20,000 projects. It answers from its last finding and finds them
    again behind its callers: a project set up since shows once that is done."""
    import time

    from clarity import behind
    from clarity.settings.config import load_settings
    from clarity.transcripts import worked_in
    from clarity.workflows import roots as roots_module

    monkeypatch.setattr(worked_in, "REUSE_SECONDS", 0.0)  # one finding's memo: not this test's

    settings = load_settings({}, os.environ, Path.cwd())

    def found() -> set[Path]:
        return {root.plans_dir for root in roots_module.find_roots(settings, reuse=True).roots}

    first = found()
    epsilon = machine["alpha"].parent / "epsilon"
    _settings(epsilon, "settings.json", "plans")
    _plan(epsilon / "plans", "epsilon-plan.md", "epsilonword")
    _worked_in(machine["claude"], epsilon)
    assert found() == first  # within a minute: the last finding
    monkeypatch.setattr(roots_module, "ROOTS_REUSE_SECONDS", 0.0)
    assert found() == first  # an old finding answers still, and is made again behind
    for _ in range(3000):  # a hang guard: a finding of five projects takes milliseconds
        if not behind.running():
            break
        time.sleep(0.01)
    monkeypatch.setattr(roots_module, "ROOTS_REUSE_SECONDS", 60.0)
    assert found() == first | {epsilon / "plans"}
