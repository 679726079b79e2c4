"""What a new user meets first: help at any width, a bare `clarity`, --version, -h,
errors that point at the right help, and shell completion (issue 17, items 4-6)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from tests.builders.processes import run_process


def every_command() -> list[list[str]]:
    """`clarity` and each command and group under it, as words (any added later too)."""
    from clarity.cli import app, command_name

    found: list[list[str]] = [[]]
    found += [[name] for info in app.registered_commands if (name := command_name(info))]
    for group in app.registered_groups:
        assert group.name is not None and group.typer_instance is not None
        found.append([group.name])
        subcommands = group.typer_instance.registered_commands
        found += [[group.name, name] for info in subcommands if (name := command_name(info))]
    return found


COMMANDS = every_command()


def test_every_command_is_checked_here() -> None:
    assert {"scan", "apply", "undo", "archive", "schedule"} <= {words[0] for words in COMMANDS[1:]}
    assert ["schedule", "install"] in COMMANDS


@pytest.mark.parametrize("width", [80, 60, 40])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda words: " ".join(words) or "clarity")
def test_help_is_plain_readable_text_at_any_width(cli, monkeypatch, command, width) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    helped = cli(*command, "--help")

    assert helped.exit_code == 0, helped.stderr
    assert helped.stderr == ""
    text = helped.stdout
    assert text.startswith(f"Usage: clarity {' '.join(command)}".replace("  ", " "))
    assert "…" not in text and not re.search(r"[a-z]\.\.\.$", text, re.MULTILINE)  # not cut
    assert not re.search(r"\s\.$", text, re.MULTILINE)  # no "Plans directory ."
    assert "{" not in text and "SPEC" not in text  # no `{names}`, no pointer to our spec
    assert "╭" not in text  # not rich's panels, which cut option names when narrow
    assert cli(*command, "-h").stdout == text
    if width >= 60:  # an option's name and value are never broken
        assert all(len(line) <= width for line in text.splitlines()), text


def test_the_defaults_in_the_help_are_readable(cli) -> None:
    text = cli("scan", "--help").stdout.replace("\n", " ")
    words = " ".join(text.split())
    assert "[default: CLARITY_PLANS_DIR, the config file, Claude Code's plansDirectory" in words
    assert "else ~/.claude/plans]" in words
    assert "[default: <plans dir>-archive; for a project's plansDirectory," in words
    assert "[default: off, or agent in the config file]" in words
    assert "--format <table|markdown|json>" in text


def test_archive_names_its_argument_as_a_person_would(cli) -> None:
    assert "Usage: clarity archive [OPTIONS] NAME..." in cli("archive", "--help").stdout
    missing = cli("archive")
    assert missing.exit_code == 2
    assert missing.stderr == (
        "clarity: error: Missing argument 'NAME...' (see clarity archive --help)\n"
    )


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["--bogus"], "clarity --help"),
        (["bogus"], "clarity --help"),
        (["apply", "--bogus"], "clarity apply --help"),
        (["scan", "--format", "x"], "clarity scan --help"),
        (["schedule", "bogus"], "clarity schedule --help"),
        (["schedule", "install", "--bogus"], "clarity schedule install --help"),
        (["schedule", "install", "--scheduler", "x"], "clarity schedule install --help"),
    ],
)
def test_a_usage_error_points_at_the_help_of_its_own_command(cli, args, hint) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("clarity: error: ") and line.endswith(f" (see {hint})"), line
    assert result.stdout == ""


@pytest.mark.parametrize("command", [[], ["schedule"]])
def test_a_bare_command_prints_its_help_and_succeeds(command) -> None:
    """Asking for nothing is asking what clarity does: the help, on stdout, exit 0, and no
    error line (empty or not) after it."""
    bare = run_process(*command)
    assert (bare.exit_code, bare.stderr) == (0, "")
    assert bare.stdout == run_process(*command, "--help").stdout
    assert bare.stdout.startswith(f"Usage: clarity {' '.join(command)}".rstrip() + " [OPTIONS]")


def test_version_comes_from_the_installed_package() -> None:
    for flag in ("--version", "-V"):  # -V as pip, ruff and most tools have it (issue 23.14)
        shown = run_process(flag)
        assert (shown.exit_code, shown.stderr) == (0, "")
        assert shown.stdout == f"clarity {version('clarity-plans')}\n"


def test_the_shell_completes_commands_and_options() -> None:
    """typer's completion, as bash asks for it: the words clarity would accept next."""

    def complete(words: str) -> list[str]:
        env = {
            "_CLARITY_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split()) - 1),
        }
        done = run_process(env=env)
        assert done.exit_code == 0, done.stderr
        return done.stdout.split()

    assert complete("clarity sc") == ["scan", "schedule"]
    assert complete("clarity scan --plans") == ["--plans-dir"]
    assert complete("clarity schedule install --sch") == ["--scheduler"]
    assert "--install-completion" in run_process("--help").stdout
    # typer finds the shell among the process's parents, as when a person types it in bash
    # (a test run started in the background may have no shell above it at all)
    shown = subprocess.run(
        ["bash", "-c", '"$0" -m clarity --show-completion; exit "$?"', sys.executable],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0 and "_clarity_completion" in shown.stdout, shown.stderr


def test_the_help_ends_with_first_examples(cli) -> None:
    text = cli("--help").stdout
    examples = text[text.index("Examples:") :].splitlines()[1:]
    commands = [line.strip().split("  ")[0] for line in examples if line.strip()]
    assert commands[:3] == ["clarity demo", "clarity scan", "clarity apply"]  # a first run
    assert all(cli(*command.split()[1:2], "--help").exit_code == 0 for command in commands)


def test_tab_completes_a_plans_name_for_the_commands_that_take_one(isolated_home) -> None:
    """Issue 46: `clarity show spl<TAB>` offers the plans whose names begin so, live and
    archived, as bash's completion asks for them."""
    import os
    import subprocess
    import sys

    from tests.builders.files import Plan, make_files

    make_files(
        isolated_home / ".claude" / "plans",
        {"split-brain-fix.md": Plan(), "splendid-owl.md": Plan(), "other.md": Plan()},
    )
    for command in ("show", "restore", "history", "diff", "archive"):
        env = {
            **os.environ,
            "_CLARITY_COMPLETE": "complete_bash",
            "COMP_WORDS": f"clarity {command} spl",
            "COMP_CWORD": "2",
        }
        offered = subprocess.run(
            [sys.executable, "-m", "clarity"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert sorted(offered.stdout.split()) == ["splendid-owl", "split-brain-fix"], command
