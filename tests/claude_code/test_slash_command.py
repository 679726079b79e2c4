"""The /clarity skill: a SKILL.md Claude Code can load, installed without clobbering, with
nothing the user types after /clarity ever reaching a shell."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import frontmatter
import pytest

from clarity.claude_code.slash_command import skill_text
from clarity.errors import ClarityError
from clarity.managed import CommentStyle, stamped
from tests.builders.claude_home import plan_mode, write_transcript
from tests.builders.files import Plan, make_files

SESSION = "6f1c2b9e-3d4a-4e8f-9b1a-2c3d4e5f6a7b"
# The frontmatter keys Claude Code reads in a SKILL.md.
CLAUDE_CODE_KEYS = {
    "name",
    "description",
    "argument-hint",
    "allowed-tools",
    "model",
    "disable-model-invocation",
    "user-invocable",
    "context",
    "agent",
}
HOSTILE_ARGUMENTS = [
    "don't",
    'say "hi',
    "--dormant-days 30; touch PWNED",
    "$(touch PWNED)",
    "`touch PWNED`",
    "x\ntouch PWNED\n",
    "'; touch PWNED; '",
    '"; touch PWNED; echo "',
    "--plans-dir /tmp && touch PWNED || touch PWNED",
    "!`touch PWNED`",
    "$ARGUMENTS $0 ${CLAUDE_SESSION_ID} > PWNED",
]


@pytest.fixture
def skill_file(isolated_home: Path) -> Path:
    return isolated_home / ".claude" / "skills" / "clarity" / "SKILL.md"


@pytest.fixture
def legacy_file(isolated_home: Path) -> Path:
    return isolated_home / ".claude" / "commands" / "clarity.md"


def injected_commands(text: str) -> list[str]:
    """The shell commands Claude Code runs when the skill is invoked (!`...`)."""
    return re.findall(r"(?:^|(?<=\s))!`([^`]+)`", text)


def render(text: str, arguments: str, session: str) -> str:
    """What Claude Code does to a skill's text before its `!` lines run: plain textual
    substitution of $ARGUMENTS[N], $N, $ARGUMENTS and ${CLAUDE_SESSION_ID}, anywhere."""
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()

    def nth(match: re.Match[str]) -> str:
        index = int(match.group(1) or match.group(2))
        return words[index] if index < len(words) else match.group(0)

    text = re.sub(r"\$ARGUMENTS\[(\d+)\]|\$(\d+)", nth, text)
    text = text.replace("$ARGUMENTS", arguments)
    return text.replace("${CLAUDE_SESSION_ID}", session)


def invoke(
    text: str, arguments: str, session: str, cwd: Path, env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    """Invoke the skill as Claude Code does: substitute, then run each `!` line in bash.
    What the user typed is then appended as `ARGUMENTS: ...` for Claude (the skill has no
    $ARGUMENTS), which no shell sees."""
    return [
        subprocess.run(
            ["bash", "-c", command], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
        )
        for command in injected_commands(render(text, arguments, session))
    ]


def test_the_skill_is_what_claude_code_expects(cli, skill_file: Path):
    result = cli("install-command")

    assert result.exit_code == 0, result.stderr
    assert f"installed /clarity: {skill_file}" in result.stdout
    skill = frontmatter.loads(skill_file.read_text())
    assert set(skill.metadata) <= CLAUDE_CODE_KEYS
    assert skill.metadata["name"] == "clarity"
    assert skill.metadata["disable-model-invocation"] is True  # only the user starts it
    assert isinstance(skill.metadata["description"], str)
    assert isinstance(skill.metadata["argument-hint"], str)

    tools = str(skill.metadata["allowed-tools"])
    allowed = tools.split(", ")
    shape = r"Bash\((.+) (scan --print-only|search|archived|show)( \*)?\)"
    rules = [re.fullmatch(shape, rule) for rule in allowed]
    assert all(rules), allowed  # read-only clarity commands only, in the current spelling
    programs = {match.group(1) for match in rules if match}
    assert len(programs) == 1
    clarity = programs.pop()
    assert {m.group(2) for m in rules if m} == {"scan --print-only", "search", "archived", "show"}
    assert ":*" not in tools
    for moving in ("apply", "archive ", "undo", "restore"):
        assert f"{clarity} {moving}" not in tools

    assert injected_commands(skill.content) == [
        f"{clarity} scan --print-only --format markdown --session='${{CLAUDE_SESSION_ID}}'"
    ]
    assert f"`{clarity} apply --proposal ID --yes`" in skill.content  # exactly what was reviewed
    assert f"`{clarity} archive --yes NAME...`" in skill.content  # no terminal in the Bash tool
    assert f"`{clarity} archived QUERY`" in skill.content
    assert f"`{clarity} show NAME`" in skill.content
    assert "Only if the user agrees" in skill.content


@pytest.mark.parametrize("clarity", ["clarity", "'/opt/my tools/bin/clarity'", "/a: #b/clarity"])
def test_nothing_in_the_skill_is_substituted_but_the_session(clarity: str):
    text = skill_text(clarity)

    # Every $ is the session's placeholder: no $ARGUMENTS, $N or $name for Claude Code to fill.
    assert re.findall(r"\$\S*", text) == ["${CLAUDE_SESSION_ID}'`"]
    assert text.count("!`") == 1
    assert "```!" not in text
    assert str(frontmatter.loads(text).metadata["allowed-tools"]).startswith(f"Bash({clarity} scan")


@pytest.mark.parametrize("arguments", HOSTILE_ARGUMENTS)
def test_what_the_user_types_never_reaches_a_shell(
    cli, skill_file: Path, plans_dir: Path, tmp_path: Path, arguments: str
):
    make_files(plans_dir, {"a.md": Plan("# A\n", 10)}, now=datetime.now(UTC))
    cli("install-command")
    workdir = tmp_path / "project"
    workdir.mkdir()
    env = {**os.environ, "CLARITY_PLANS_DIR": str(plans_dir)}

    (ran,) = invoke(skill_file.read_text(), arguments, SESSION, workdir, env)

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("## clarity: Plans in")
    assert not list(tmp_path.rglob("PWNED"))
    assert not (Path.cwd() / "PWNED").exists()


@pytest.mark.parametrize("session", ["$(touch PWNED)", "x; touch PWNED", "a b", ""])
def test_a_strange_session_id_is_only_a_name_to_look_up(
    cli, skill_file: Path, plans_dir: Path, tmp_path: Path, session: str
):
    """Claude Code's session id is a UUID; anything else is still only a name to look up."""
    make_files(plans_dir, {"a.md": Plan("# A\n", 10)}, now=datetime.now(UTC))
    cli("install-command")
    workdir = tmp_path / "project"
    workdir.mkdir()
    env = {**os.environ, "CLARITY_PLANS_DIR": str(plans_dir)}

    (ran,) = invoke(skill_file.read_text(), "", session, workdir, env)

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("## clarity: Plans in")
    assert not list(tmp_path.rglob("PWNED"))


def test_a_backtick_in_a_session_id_ends_the_line_and_runs_nothing(
    cli, skill_file: Path, tmp_path: Path
):
    cli("install-command")

    (ran,) = invoke(skill_file.read_text(), "", "`touch PWNED`", tmp_path, dict(os.environ))

    assert ran.returncode != 0  # Claude Code's `!` line ends at the backtick: a broken line
    assert not list(tmp_path.rglob("PWNED"))


def test_the_injected_scan_keeps_the_sessions_plan(
    cli, skill_file: Path, plans_dir: Path, isolated_home: Path, tmp_path: Path
):
    now = datetime.now(UTC)
    make_files(plans_dir, {"mine.md": Plan("# Mine\n", 10), "old.md": Plan("# Old\n", 10)}, now)
    write_transcript(
        isolated_home / ".claude",
        SESSION,
        [plan_mode(SESSION, plans_dir / "mine.md")],
        age_hours=300,
        now=now,
    )
    cli("install-command")
    env = {**os.environ, "CLARITY_PLANS_DIR": str(plans_dir)}

    (ran,) = invoke(skill_file.read_text(), "--dormant-days 30", SESSION, tmp_path, env)

    report = ran.stdout
    mine = next(row for row in report.splitlines() if "`mine.md`" in row)
    assert "current session's plan" in mine
    old = next(row for row in report.splitlines() if "`old.md`" in row)
    assert "small and old" in old


def test_install_is_idempotent(cli, skill_file: Path):
    cli("install-command")
    first = skill_file.read_bytes()
    first_mtime = skill_file.stat().st_mtime_ns

    again = cli("install-command")

    assert again.exit_code == 0
    assert "already installed, unchanged" in again.stdout
    assert skill_file.read_bytes() == first
    assert skill_file.stat().st_mtime_ns == first_mtime


def test_an_edited_skill_is_never_clobbered_without_force(cli, skill_file: Path):
    cli("install-command")
    edited = skill_file.read_text().replace("in this order", "briefly, in this order")
    skill_file.write_text(edited)

    refused = cli("install-command")

    assert refused.exit_code == 2
    assert "was changed since clarity wrote it" in refused.stderr
    assert "--force" in refused.stderr
    assert len(refused.stderr.splitlines()) == 1
    assert skill_file.read_text() == edited

    forced = cli("install-command", "--force")
    assert forced.exit_code == 0
    assert "replaced your /clarity" in forced.stdout
    assert skill_file.with_name("SKILL.md.bak").read_text() == edited
    assert "briefly" not in skill_file.read_text()


def test_an_untouched_older_skill_is_updated(cli, skill_file: Path):
    skill_file.parent.mkdir(parents=True)
    skill_file.write_text(stamped("---\nname: clarity\n---\nold body\n", CommentStyle.XML))

    result = cli("install-command")

    assert result.exit_code == 0
    assert "updated /clarity" in result.stdout
    assert "old body" not in skill_file.read_text()
    assert not skill_file.with_name("SKILL.md.bak").exists()


def test_the_older_command_clarity_wrote_makes_way_for_the_skill(
    cli, skill_file: Path, legacy_file: Path
):
    legacy_file.parent.mkdir(parents=True)
    old = "---\nallowed-tools: Bash(clarity apply:*)\n---\n!`clarity scan $ARGUMENTS`\n"
    legacy_file.write_text(stamped(old, CommentStyle.XML))

    result = cli("install-command")

    assert result.exit_code == 0, result.stderr
    assert f"removed the older /clarity command clarity wrote: {legacy_file}" in result.stdout
    assert not legacy_file.exists()
    assert skill_file.is_file()


def test_a_users_own_command_is_left_and_reported(cli, skill_file: Path, legacy_file: Path):
    legacy_file.parent.mkdir(parents=True)
    legacy_file.write_text("---\ndescription: my own thing\n---\nDo my thing.\n")

    installed = cli("install-command")
    removed = cli("uninstall-command")

    for result in (installed, removed):
        assert result.exit_code == 0, result.stderr
        assert f"left {legacy_file} as it is" in result.stdout
    assert legacy_file.read_text().endswith("Do my thing.\n")
    assert not skill_file.exists()


def test_an_edited_older_command_is_left_too(cli, legacy_file: Path):
    legacy_file.parent.mkdir(parents=True)
    legacy_file.write_text(stamped("old clarity text\n", CommentStyle.XML) + "my line\n")

    result = cli("install-command", "--force")

    assert result.exit_code == 0
    assert f"left {legacy_file} as it is" in result.stdout
    assert legacy_file.read_text().endswith("my line\n")


def test_uninstall_removes_only_an_untouched_skill(cli, skill_file: Path, legacy_file: Path):
    assert "not installed" in cli("uninstall-command").stdout
    cli("install-command")
    legacy_file.parent.mkdir(parents=True)
    legacy_file.write_text(stamped("old clarity text\n", CommentStyle.XML))
    removed = cli("uninstall-command")
    assert "removed /clarity" in removed.stdout
    assert not skill_file.exists()
    assert not skill_file.parent.exists()  # its folder too, once empty
    assert not legacy_file.exists()

    cli("install-command")
    skill_file.write_text(skill_file.read_text() + "My extra line.\n")
    assert cli("uninstall-command").exit_code == 2
    assert skill_file.exists()
    forced = cli("uninstall-command", "--force")
    assert forced.exit_code == 0
    assert not skill_file.exists()
    assert skill_file.with_name("SKILL.md.bak").read_text().endswith("My extra line.\n")


def test_project_skill_goes_to_the_projects_claude_dir(cli, isolated_home: Path, monkeypatch):
    project = isolated_home / "work" / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "src" / "api").mkdir(parents=True)
    monkeypatch.chdir(project / "src" / "api")

    result = cli("install-command", "--project")

    assert result.exit_code == 0, result.stderr
    assert (project / ".claude" / "skills" / "clarity" / "SKILL.md").is_file()
    assert not (isolated_home / ".claude" / "skills").exists()
    assert cli("uninstall-command", "--project").exit_code == 0
    assert not (project / ".claude" / "skills" / "clarity").exists()


def test_claude_config_dir_is_honoured(cli, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "profile"))
    assert cli("install-command").exit_code == 0
    assert (tmp_path / "profile" / "skills" / "clarity" / "SKILL.md").is_file()


def test_an_unwritable_skills_dir_is_one_line(cli, isolated_home: Path):
    (isolated_home / ".claude").mkdir()
    (isolated_home / ".claude" / "skills").write_text("a file where the folder should be")

    result = cli("install-command")

    assert result.exit_code == 2
    assert result.stderr.startswith("clarity: error: cannot read")
    assert "Not a directory; fix or move it" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_forced_installs_never_replace_an_earlier_backup(cli, skill_file: Path):
    cli("install-command")
    first = skill_file.read_text() + "My first edit.\n"
    skill_file.write_text(first)
    assert "SKILL.md.bak)" in cli("install-command", "--force").stdout
    second = skill_file.read_text() + "My second edit.\n"
    skill_file.write_text(second)

    again = cli("install-command", "--force")

    assert again.exit_code == 0
    assert f"(the old text is kept as {skill_file.with_name('SKILL.md.bak.2')})" in again.stdout
    assert skill_file.with_name("SKILL.md.bak").read_text() == first
    assert skill_file.with_name("SKILL.md.bak.2").read_text() == second
    third = skill_file.read_text() + "My third edit.\n"
    skill_file.write_text(third)
    removed = cli("uninstall-command", "--force")
    assert f"kept as {skill_file.with_name('SKILL.md.bak.3')}" in removed.stdout
    assert skill_file.with_name("SKILL.md.bak.3").read_text() == third
    assert skill_file.with_name("SKILL.md.bak").read_text() == first
    assert not skill_file.exists()


@pytest.mark.parametrize(
    "path",
    [
        "/opt/we`ird/clarity",
        "/opt/$1/clarity",
        "/opt/two\nlines/clarity",
        "/o\x1b[2J/c",
        "/opt/a, Bash(rm *)/clarity",
        "/opt/a)b/clarity",
    ],
)
def test_a_command_the_skill_cannot_carry_is_refused(path: str):
    # a backtick ends the `!` line, Claude Code substitutes `$1`, a newline ends the line;
    # in allowed-tools ", " would start a rule of its own and ")" end one early
    with pytest.raises(ClarityError, match="a Claude Code skill cannot carry safely"):
        skill_text(shlex.join([path]))


@pytest.mark.parametrize("path", ["/opt/my tools/clarity", "/opt/it's/clarity", "/opt/100%;x/c"])
def test_an_odd_but_plain_path_is_quoted_for_the_shell_in_the_skill(path: str, tmp_path: Path):
    text = skill_text(shlex.join([path]))
    bang = next(line for line in text.splitlines() if line.startswith("!`"))
    command = bang.removeprefix("!`").removesuffix("`").replace("${CLAUDE_SESSION_ID}", "s1")
    words = subprocess.run(
        ["bash", "-c", f"printf '%s\\n' {command}"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert words[0] == path


def test_what_the_skill_pre_approves_cannot_write_a_file(cli, plans_dir: Path, tmp_path: Path):
    # Claude Code lets Claude run `clarity scan --print-only ...` unasked: any option it adds
    # may not make that scan write outside clarity's own state.
    make_files(plans_dir, {"a.md": Plan("# A\n", 10)})
    target = tmp_path / "profile"
    refused = cli("scan", "--print-only", "--plans-dir", str(plans_dir), "--output", str(target))
    assert refused.exit_code == 2
    assert refused.stdout == "" and len(refused.stderr.splitlines()) == 1
    assert "--print-only writes no report file" in refused.stderr
    assert not target.exists()
    printed = cli("scan", "--print-only", "--plans-dir", str(plans_dir), "--format", "markdown")
    assert printed.exit_code == 0 and printed.stdout.startswith("## clarity: Plans in")
    rules = str(frontmatter.loads(skill_text("clarity")).metadata["allowed-tools"]).split(", ")
    assert [rule for rule in rules if " scan" in rule] == ["Bash(clarity scan --print-only *)"]
