"""Where plans are (SPEC 2) and configuration with its sources (SPEC 7)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clarity.errors import ClarityError
from clarity.model import Thresholds
from clarity.settings.config import DEFAULT_MARKERS, load_settings
from clarity.settings.locations import Origin

NO_OPTIONS: dict[str, object] = {}


def write_config(home: Path, text: str) -> Path:
    path = home / ".config" / "clarity" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def settings(env: dict[str, str] | None = None, cwd: Path | None = None, **options: object):
    return load_settings(options, env or {}, cwd or Path.cwd())


def test_defaults(isolated_home: Path) -> None:
    result = settings()
    assert result.plans_dir == isolated_home / ".claude" / "plans"
    assert result.archive_dir == isolated_home / ".claude" / "plans-archive"
    assert result.thresholds == Thresholds(stale_days=7, stale_bytes=2048, dormant_days=14)
    assert result.markers == DEFAULT_MARKERS
    assert result.config_path == isolated_home / ".config" / "clarity" / "config.toml"
    assert set(result.sources.values()) <= {"default", "default: beside the plans dir"}


def test_claude_config_dir_moves_the_default(tmp_path: Path) -> None:
    result = settings({"CLAUDE_CONFIG_DIR": str(tmp_path / "cc")})
    assert result.plans_dir == tmp_path / "cc" / "plans"
    assert result.archive_dir == tmp_path / "cc" / "plans-archive"
    assert result.sources["plans_dir"] == "$CLAUDE_CONFIG_DIR/plans"


def test_precedence_option_env_config_default(isolated_home: Path, tmp_path: Path) -> None:
    config = write_config(isolated_home, 'stale_days = 3\nplans_dir = "~/from-config"\n')
    from_config = settings()
    assert from_config.thresholds.stale_days == 3
    assert from_config.plans_dir == isolated_home / "from-config"
    assert from_config.sources["stale_days"] == f"config {config}"

    env = {"CLARITY_STALE_DAYS": "4.5", "CLARITY_PLANS_DIR": str(tmp_path / "env")}
    from_env = settings(env)
    assert from_env.thresholds.stale_days == 4.5
    assert from_env.plans_dir == tmp_path / "env"
    assert from_env.sources["stale_days"] == "env CLARITY_STALE_DAYS"

    from_option = settings(env, stale_days=5.0, plans_dir=tmp_path / "opt")
    assert from_option.thresholds.stale_days == 5.0
    assert from_option.plans_dir == tmp_path / "opt"
    assert from_option.sources["stale_days"] == "option --stale-days"
    assert from_option.archive_dir == tmp_path / "opt-archive"
    # What code decides on is the origin, never the words (issue 43, part 3).
    origins = [
        (
            s.sources["stale_days"].origin,
            s.sources["stale_days"].given,
            s.sources["stale_days"].chosen,
        )
        for s in (from_config, from_env, from_option, settings())
    ]
    assert origins == [
        (Origin.CONFIG, False, True),
        (Origin.ENV, True, True),
        (Origin.OPTION, True, True),
        (Origin.CONFIG, False, True),
    ]
    unset = load_settings({}, {}, Path.cwd(), tmp_path / "none.toml")
    assert unset.sources["stale_days"].origin is Origin.DEFAULT


def test_relative_option_paths_are_from_the_working_directory(tmp_path: Path) -> None:
    result = settings(cwd=tmp_path, plans_dir=Path("plans"), archive_dir=Path("../arch"))
    assert result.plans_dir == tmp_path / "plans"
    assert result.archive_dir == tmp_path.parent / "arch"


def test_markers_from_config_and_env(isolated_home: Path) -> None:
    write_config(isolated_home, 'markers = ["SHIPPED", "-- Merged"]\n')
    assert settings().markers == ("SHIPPED", "-- Merged")
    assert settings({"CLARITY_MARKERS": "A,B"}).markers == ("A", "B")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stale_days = -1", "stale_days: must be a number of days >= 0, not -1"),
        ('stale_days = "7"', "stale_days: must be a number of days"),
        ("stale_days = true", "stale_days: must be a number of days"),
        ("stale_days = nan", "stale_days: must be a number of days >= 0, not nan"),
        ("stale_bytes = 2.5", "stale_bytes: must be a whole number of bytes"),
        ("stale_bytes = -5", "stale_bytes: must be a number of bytes >= 0, not -5"),
        ('markers = "COMPLETED"', "markers: must be a list of strings"),
        ("markers = []", "markers: must name at least one marker"),
        ('plans_dir = "relative/plans"', "plans_dir: must be an absolute path or start with ~"),
        ("stale_day = 3", 'unknown key "stale_day"'),
        ("stale_days = ", "not valid TOML"),
    ],
)
def test_a_bad_config_names_the_file_the_key_and_the_problem(
    isolated_home: Path, text: str, message: str
) -> None:
    path = write_config(isolated_home, text + "\n")
    with pytest.raises(ClarityError) as caught:
        settings()
    assert caught.value.exit_code == 2
    assert caught.value.message.startswith(str(path))
    assert message in caught.value.message


def test_an_unreadable_config_is_an_error(isolated_home: Path) -> None:
    path = isolated_home / ".config" / "clarity" / "config.toml"
    path.mkdir(parents=True)  # a directory where the file should be: unreadable as a file
    with pytest.raises(ClarityError, match="cannot read config"):
        settings()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CLARITY_STALE_DAYS": "abc"}, "CLARITY_STALE_DAYS=abc: must be a number"),
        ({"CLARITY_DORMANT_DAYS": "-2"}, "CLARITY_DORMANT_DAYS=-2: must be a number of days >= 0"),
        ({"CLARITY_STALE_BYTES": "1.5"}, "CLARITY_STALE_BYTES=1.5: must be a whole number"),
    ],
)
def test_a_bad_env_value_names_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ClarityError, match=message):
        settings(env)


def test_a_bad_option_value_names_the_option() -> None:
    with pytest.raises(ClarityError, match="--stale-days: must be a number of days >= 0, not -3"):
        settings(stale_days=-3.0)


# Claude Code's project setting `plansDirectory`


def project(root: Path, settings_file: str, value: object) -> Path:
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    (root / ".claude" / settings_file).write_text(json.dumps({"plansDirectory": value}))
    return root


def test_project_plans_directory_from_the_nearest_ancestor(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", "settings.json", "docs/plans")
    deep = root / "src" / "pkg"
    deep.mkdir(parents=True)
    result = settings(cwd=deep)
    assert result.plans_dir == (root / "docs" / "plans").resolve()
    assert result.sources["plans_dir"] == f"plansDirectory in {root / '.claude' / 'settings.json'}"
    # never a new folder in the project (issue 33): the user's archive keeps it
    archive = result.archive_dir
    assert archive.parent == Path.home() / ".claude" / "plans-archive" / "projects"
    assert archive.name.startswith("proj-")
    assert not archive.is_relative_to(root)


def test_an_archive_made_beside_a_project_plans_dir_earlier_is_kept(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", "settings.json", "docs/plans")
    (root / "docs" / "plans-archive").mkdir(parents=True)
    result = settings(cwd=root)
    assert result.archive_dir == (root / "docs" / "plans-archive").resolve()
    assert "where clarity archived before" in result.sources["archive_dir"]


def test_a_configured_archive_holds_the_project_archives(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", "settings.json", "docs/plans")
    config = tmp_path / "config.toml"
    config.write_text(f'archive_dir = "{tmp_path / "mine"}"\n')
    result = load_settings({}, {}, root, config)
    assert result.archive_dir.parent == tmp_path / "mine" / "projects"


def test_local_settings_win_over_shared_ones(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", "settings.json", "shared")
    project(root, "settings.local.json", "mine")
    assert settings(cwd=root).plans_dir == (root / "mine").resolve()


def test_a_nearer_project_wins(tmp_path: Path) -> None:
    outer = project(tmp_path / "outer", "settings.json", "outer-plans")
    inner = project(outer / "inner", "settings.json", "inner-plans")
    assert settings(cwd=inner).plans_dir == (inner / "inner-plans").resolve()


def test_the_nearest_claude_folder_is_the_project_even_without_the_key(
    tmp_path: Path, isolated_home: Path
) -> None:
    # Claude Code reads the settings of the project it runs in, not of folders above it.
    outer = project(tmp_path / "outer", "settings.json", "outer-plans")
    inner = outer / "inner"
    (inner / ".claude").mkdir(parents=True)
    (inner / ".claude" / "settings.json").write_text('{"model": "x"}')
    assert settings(cwd=inner).plans_dir == isolated_home / ".claude" / "plans"


def test_the_users_plans_directory_resolves_against_the_project(
    tmp_path: Path, isolated_home: Path
) -> None:
    user_settings = isolated_home / ".claude" / "settings.json"
    user_settings.parent.mkdir(parents=True, exist_ok=True)
    user_settings.write_text(json.dumps({"plansDirectory": "notes/plans"}))
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    (root / "src").mkdir()
    result = settings(cwd=root / "src")
    assert result.plans_dir == (root / "notes" / "plans").resolve()
    assert result.sources["plans_dir"] == f"plansDirectory in {user_settings}"
    # the project's own value wins over the user's
    project(root, "settings.json", "docs/plans")
    assert settings(cwd=root / "src").plans_dir == (root / "docs" / "plans").resolve()


def test_a_value_outside_the_project_is_ignored_as_claude_code_does(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path / "proj", "settings.json", "../escape")
    assert settings(cwd=root).plans_dir == isolated_home / ".claude" / "plans"


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"plansDirectory": 5}', ""])
def test_unusable_claude_settings_are_passed_over(
    tmp_path: Path, isolated_home: Path, content: str
) -> None:
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(content)
    assert settings(cwd=root).plans_dir == isolated_home / ".claude" / "plans"


def test_the_users_own_claude_settings_are_not_a_project(isolated_home: Path) -> None:
    # ~/.claude is the user's settings, not a project at ~: the value resolves against the
    # folder clarity runs in, as Claude Code's does when started there
    project(isolated_home, "settings.json", "elsewhere")
    work = isolated_home / "work"
    assert settings(cwd=work).plans_dir == work / "elsewhere"


def test_explicit_settings_beat_the_project_setting(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", "settings.json", "docs/plans")
    result = settings({"CLARITY_PLANS_DIR": str(tmp_path / "env")}, cwd=root)
    assert result.plans_dir == tmp_path / "env"


# `clarity config`


def test_config_command_shows_each_value_and_source(cli, isolated_home: Path) -> None:
    path = write_config(isolated_home, "dormant_days = 30\n")
    result = cli("config", "--json", "--stale-bytes", "100")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert document["config_file"] == str(path)
    assert document["config_file_exists"] is True
    assert document["state_dir"] == str(isolated_home / ".local" / "state" / "clarity")
    entries = document["settings"]
    assert set(entries) == {
        "plans_dir",
        "archive_dir",
        "stale_days",
        "stale_bytes",
        "dormant_days",
        "markers",
        "protect_hours",
        "keep_days",
        "agent",
        "agent_model",
        "agent_budget",
        "agent_plan_bytes",
        "agent_archives",
        "agent_min_confidence",
        "claude_config_dirs",
    }
    assert entries["agent"] == {"value": False, "source": "default"}
    assert entries["dormant_days"] == {"value": 30.0, "source": f"config {path}"}
    assert entries["stale_bytes"] == {"value": 100, "source": "option --stale-bytes"}
    assert entries["stale_days"] == {"value": 7.0, "source": "default"}
    assert entries["keep_days"] == {"value": 7.0, "source": "default"}
    assert entries["markers"]["value"] == list(DEFAULT_MARKERS)


def test_config_command_as_a_table(cli, isolated_home: Path) -> None:
    result = cli("config")
    assert result.exit_code == 0
    assert "config file:" in result.stdout
    assert "(not present: defaults apply)" in result.stdout
    for key in ("plans_dir", "archive_dir", "stale_days", "stale_bytes", "dormant_days"):
        assert key in result.stdout
    rows = {
        line.split("│")[1].strip(): line.split("│")[2].strip()
        for line in result.stdout.splitlines()
        if line.startswith("│") and line.split("│")[1].strip()
    }
    assert rows["stale_days"] == "7" and rows["agent"] == "no"  # as the config file says them
    header = next(line for line in result.stdout.splitlines() if "key" in line)
    assert header.index("key") == next(
        line for line in result.stdout.splitlines() if "plans_dir" in line
    ).index("plans_dir")  # aligned
    claude = cli("config", "--json").json()["claude_code_cleanup"]
    assert claude == {"days": 30, "source": "Claude Code's default"}
    assert "Claude Code deletes plans here older than 30 days" in result.stdout


def test_config_command_reports_a_bad_config_in_one_line(cli, isolated_home: Path) -> None:
    path = write_config(isolated_home, "stale_days = -1\n")
    result = cli("config")
    assert result.exit_code == 2
    assert result.stderr == (
        f"clarity: error: {path}: stale_days: must be a number of days >= 0, not -1\n"
    )


def test_agent_settings_from_file_and_env(isolated_home: Path) -> None:
    write_config(isolated_home, 'agent = true\nagent_model = "claude-sonnet-4-5"\n')
    result = settings({"CLARITY_AGENT_BUDGET": "1200"})
    assert result.agent.enabled is True
    assert result.agent.model == "claude-sonnet-4-5"
    assert result.agent.budget == 1200
    assert settings({"CLARITY_AGENT": "no"}).agent.enabled is False


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("agent = 1\n", "agent: must be true or false"),
        ('agent_model = ""\n', "agent_model: must name a Claude model"),
        ("agent_budget = 0\n", "agent_budget: must be a whole number > 0"),
    ],
)
def test_bad_agent_settings_are_one_line_errors(isolated_home: Path, text, problem) -> None:
    write_config(isolated_home, text)
    with pytest.raises(ClarityError, match=problem):
        settings()


# Paths no file can have (issue 26 item 6): a NUL, or a lone surrogate that is not an
# undecodable byte. One line naming where the value came from, never an internal error.


@pytest.mark.parametrize("key", ["plans_dir", "archive_dir"])
def test_a_config_path_with_a_nul_is_an_error_naming_the_key(
    cli, isolated_home: Path, key: str
) -> None:
    path = write_config(isolated_home, f'{key} = "/x\\u0000y"\n')
    (isolated_home / ".claude" / "plans").mkdir(parents=True)

    result = cli("scan", "--print-only")

    assert result.exit_code == 2
    (said,) = result.stderr.splitlines()
    assert said.startswith(f"clarity: error: {path}: {key}: ")
    assert "NUL" in said


@pytest.mark.parametrize(("value", "problem"), [("/x\0y", "NUL"), ("/x\ud800y", "lone surrogate")])
def test_an_option_or_env_path_no_file_can_have_is_an_error(value: str, problem: str) -> None:
    # A shell cannot pass either (argv and the environment hold no NUL, and undecodable
    # bytes arrive as U+DC80..U+DCFF), so the values are given as the CLI hands them on.
    with pytest.raises(ClarityError, match=f"^--plans-dir: .*{problem}"):
        settings(plans_dir=Path(value))
    with pytest.raises(ClarityError, match=f"^CLARITY_ARCHIVE_DIR=.*{problem}"):
        settings({"CLARITY_ARCHIVE_DIR": value})


def test_a_path_of_bytes_that_are_not_utf8_is_a_path(tmp_path: Path) -> None:
    # what os.environ and sys.argv hold for a name that is not UTF-8: b"\xff" is "\udcff"
    named = str(tmp_path / "plans-\udcff")
    assert settings({"CLARITY_PLANS_DIR": named}).plans_dir == Path(named)
    assert settings(plans_dir=named).plans_dir == Path(named)


@pytest.mark.parametrize("value", ["\ud800", "a\u0000b", "docs/\udcff"])
def test_a_plans_directory_claude_code_could_not_use_is_passed_over(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    root = project(tmp_path / "proj", "settings.json", "docs/plans")
    project(root, "settings.local.json", value)  # wins, but names no folder
    monkeypatch.chdir(root)

    assert settings(cwd=root).plans_dir == (root / "docs" / "plans").resolve()
    scanned = cli("scan", "--print-only")
    assert "internal error" not in scanned.stderr


def test_config_at_60_columns_breaks_paths_at_slashes_and_says_how_to_set_a_value(
    cli, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 36, item 11: `/root/.claude/p` then `lans`.
    monkeypatch.setenv("COLUMNS", "60")
    shown = cli("config")
    assert shown.exit_code == 0, shown.stderr
    pieces: dict[str, list[str]] = {}
    key = ""
    for row in (line for line in shown.stdout.splitlines() if line.startswith("│")):
        cells = [cell.strip() for cell in row.split("│")[1:-1]]
        key = cells[0] or key  # a row of its own, or the one above it, wrapped
        if cells[1]:
            pieces.setdefault(key, []).append(cells[1])
    for name, path in (("plans_dir", ".claude/plans"), ("archive_dir", ".claude/plans-archive")):
        lines = pieces[name]
        assert len(lines) > 1  # too long for the column at 60
        assert "".join(lines) == str(isolated_home / path)  # read down: the path whole
        assert all(line.startswith("/") for line in lines)  # each line ends at a name's end
    config_file = isolated_home / ".config" / "clarity" / "config.toml"
    assert f"Set a value in {config_file} (clarity config set" in " ".join(shown.stdout.split())


def test_a_leading_tilde_in_plans_directory_is_a_folder_named_tilde(tmp_path: Path) -> None:
    # as Claude Code joins it to the project root without expanding it (issue 33)
    root = project(tmp_path / "proj", "settings.json", "~/plans")
    assert settings(cwd=root).plans_dir == (root / "~" / "plans").resolve()


def test_piped_config_and_search_print_whole_lines(isolated_home: Path, monkeypatch) -> None:
    """Issue 46: through a pipe (no terminal, no COLUMNS asked for) `config` and `search`
    print whole lines, as scan does: a long path is never broken for a script to mend."""
    import subprocess
    import sys

    deep = isolated_home / ("a-rather-long-folder-name-" * 3) / "plans"
    deep.mkdir(parents=True)
    title = "Ledger export " + "with every column of every table " * 4
    (deep / "ledger-export.md").write_text(f"# {title}\n\nExport the ledger nightly.\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    for args in (("config",), ("search", "ledger")):
        piped = subprocess.run(
            [sys.executable, "-m", "clarity", *args, "--plans-dir", str(deep)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert piped.returncode == 0, piped.stderr
        whole = str(deep) if args == ("config",) else title.strip()
        assert any(whole in line for line in piped.stdout.splitlines()), (args, piped.stdout)


def test_config_path_set_and_edit_as_git_config_has_them(cli, isolated_home: Path) -> None:
    """Issue 46: `config path` names the file, `config set KEY VALUE` writes one checked
    line (a bad key or value changes nothing), `config edit` opens $EDITOR and checks."""
    config_file = isolated_home / ".config" / "clarity" / "config.toml"
    assert cli("config", "path").stdout.strip() == str(config_file)
    assert cli("config", "set", "dormant_days", "30").exit_code == 0
    assert cli("config", "set", "markers", "COMPLETED,-- Done").exit_code == 0
    config_file.write_text(config_file.read_text() + "# my note\n")
    assert cli("config", "set", "dormant_days", "21").exit_code == 0  # replaced, in place
    assert config_file.read_text() == (
        'dormant_days = 21\nmarkers = ["COMPLETED", "-- Done"]\n# my note\n'
    )
    before = config_file.read_text()
    for args, said in (
        (("nope", "1"), "no config key 'nope'; the keys are plans_dir"),
        (("stale_days", "soon"), "stale_days = 'soon': must be a number"),
        # refused by the check of the whole file: said of the value, not of a staged copy
        (("plans_dir", "a\nb"), "plans_dir = 'a\\nb': must be an absolute path"),
        (("stale_days", "-3"), "end the options with --: clarity config set KEY -- -3"),
    ):
        refused = cli("config", "set", *args)
        assert refused.exit_code == 2 and said in refused.stderr, refused.stderr
        assert ".new" not in refused.stderr and refused.stderr.count("\n") == 1
    assert config_file.read_text() == before
    shown = json.loads(cli("config", "--json").stdout)["settings"]
    assert shown["dormant_days"]["value"] == 21
    assert shown["markers"]["value"] == ["COMPLETED", "-- Done"]
    os.environ["EDITOR"] = "sed -i s/21/22/"
    try:
        assert cli("config", "edit").exit_code == 0
    finally:
        del os.environ["EDITOR"]
    assert config_file.read_text().startswith("dormant_days = 22\n")
