"""Plan names and titles that try to drive the terminal: every human format shows them escaped.

A plan named `a\\x1b[2J.md` could clear the screen, `x\\rclarity: all good.md`
overwrite a line, `two\\nlines.md` make one result span two lines. Each test
lays such plans out for real and reads what clarity printed: no character a
terminal acts on (C0 but the newline, DEL, C1, U+2028/U+2029) reaches it, each
plan takes the lines it takes with a plain name, and JSON keeps every name
exact. C1 characters are checked as characters: in UTF-8 their bytes
(0x80-0x9f) are also the continuation bytes of ordinary text such as `…`.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from clarity.printable import display_name, printable
from tests.builders.files import NOW_ISO, Plan, make_files
from tests.builders.processes import drain, in_a_terminal, run_process

# name -> what it tries; the title of each plan carries the same characters
HOSTILE = {
    "clear\x1b[2J.md": "ESC: clear the screen",
    "x\rclarity: all good.md": "CR: write over the line",
    "two\nlines.md": "LF: one result on two lines",
    "bell\x07back\x08.md": "BEL and backspace",
    "del\x7f.md": "DEL",
    "tab\there.md": "a tab",
    "vt\x0bff\x0cfs\x1c.md": "VT, FF and FS: line breaks to str.splitlines",
    "csi\u009b2J.md": "C1 CSI, as a character",
    "nel\u0085.md": "C1 NEL, a line break to some",
    "sep\u2028par\u2029.md": "Unicode line and paragraph separators",
    "raw\udc9b.md": "the byte 0x9b, not UTF-8 (CSI in Latin-1)",
    "[bold red]x[blink].md": "rich markup",
    ":warning: pi|pe`tick.md": "an emoji code, a table pipe, a backtick",
}
SUBPLAN = "clear\x1b[2J-agent-ab12.md"  # a sub-plan of the first, archived with it
ACTIVE = "live\x1b[1;31m.md"  # modified today: kept
LINK = "link\x1b]0;pwned\x07.md"  # a symlink: skipped, and listed as skipped
SIZE = 200  # every plan the same size: "200 B" whatever its name


def _title(name: str) -> str:
    """The name as a title: an H1 is one line (a CR stays in it), its text UTF-8."""
    return display_name(name).removesuffix(".md").replace("\n", "\r") + " end"


def _content(name: str, index: int) -> bytes:
    """The plan's H1 (its title), COMPLETED for every other one, padded to SIZE bytes."""
    head = f"# {_title(name)}{' COMPLETED' if index % 2 == 0 else ''}\n".encode()
    return head + b"x" * (SIZE - len(head) - 1) + b"\n"


def _plain(name: str) -> str:
    """A name with nothing to escape that shows as long as the hostile one shows."""
    return "".join(ch if ch.isalnum() or ch in ".-" else "_" for ch in printable(name))


def lay_out(plans_dir: Path, rename=lambda name: name) -> Path:
    names = list(HOSTILE)
    tree: dict[str, Plan] = {
        rename(name): Plan(_content(name, index), 30) for index, name in enumerate(names)
    }
    tree[rename(SUBPLAN)] = Plan(_content(SUBPLAN, 1), 30)
    tree[rename(ACTIVE)] = Plan(_content(ACTIVE, 1), 0)
    make_files(plans_dir, tree)
    (plans_dir / rename(LINK)).symlink_to(plans_dir / "nowhere")
    return plans_dir


ALL_NAMES = [*HOSTILE, SUBPLAN, ACTIVE]


def assert_printable(text: str) -> None:
    """Nothing a terminal acts on: every character printable, or the newline ending a line."""
    bad = sorted({ch for ch in text if ch != "\n" and not ch.isprintable()})
    assert not bad, f"raw control characters {bad!r} in:\n{text}"


def shown(name: str) -> str:
    return printable(display_name(name))


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return lay_out(tmp_path / "h" / "plans")


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    return lay_out(tmp_path / "p" / "plans", _plain)


def scan(cli, plans_dir: Path, *args: str):
    result = cli("scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO, *args)
    assert result.exit_code == 0, result.stderr
    return result


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_scan_shows_each_hostile_name_escaped_on_its_own_lines(
    cli, hostile: Path, plain: Path, output_format: str
) -> None:
    result = scan(cli, hostile, "--format", output_format)
    assert_printable(result.stdout)
    assert_printable(result.stderr)
    lines = result.stdout.splitlines()
    for name in [*ALL_NAMES, LINK]:
        if name == SUBPLAN and output_format == "table":
            name = "…-agent-ab12.md"  # under its parent, without the parent's slug
        text = shown(name).replace("|", "\\|" if output_format == "markdown" else "|")
        holding = [line for line in lines if text in line]
        assert len(holding) == 1, (name, holding)
    assert "[bold red]x[blink].md" in result.stdout  # not read as markup
    assert ":warning: pi" in result.stdout  # nor as an emoji code
    plain_lines = scan(cli, plain, "--format", output_format).stdout.splitlines()
    assert len(lines) == len(plain_lines)


def _rows(markdown: str) -> list[list[str]]:
    """The cells of every body row of the report's tables, as a Markdown reader sees them."""
    rows: list[list[str]] = []
    cells: list[str] | None = None
    in_body = False
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type in ("tbody_open", "tbody_close"):
            in_body = token.type == "tbody_open"
        elif in_body and token.type == "tr_open":
            cells = []
        elif in_body and token.type == "tr_close" and cells is not None:
            rows.append(cells)
        elif in_body and token.type == "inline" and cells is not None:
            cells.append("".join(child.content for child in token.children or []))
    return rows


def test_markdown_tables_keep_one_row_of_six_cells_per_plan(cli, hostile: Path) -> None:
    rows = _rows(scan(cli, hostile, "--format", "markdown").stdout)
    assert all(len(row) == 6 for row in rows), rows
    names = sorted(row[0].removeprefix("↳ ") for row in rows)
    assert names == sorted(shown(name) for name in ALL_NAMES)
    titles = {row[3].removesuffix(" COMPLETED") for row in rows}
    assert titles == {shown(_title(name)) for name in ALL_NAMES}


def test_json_keeps_every_name_and_title_exact_where_the_table_escapes_them(
    cli, hostile: Path
) -> None:
    table = scan(cli, hostile).stdout
    assert_printable(table)
    titles = [shown(_title(name).removesuffix(" end")) for name in HOSTILE]
    assert [title for title in titles if title not in table] == []  # cut to the name's width
    document = scan(cli, hostile, "--json").json()
    assert {plan["name"] for plan in document["plans"]} == set(ALL_NAMES)
    assert {plan["title"].removesuffix(" COMPLETED") for plan in document["plans"]} == {
        _title(name) for name in ALL_NAMES
    }
    assert [Path(item["path"]).name for item in document["skipped"]] == [LINK]
    by_name = {plan["name"]: plan for plan in document["plans"]}
    assert by_name["clear\x1b[2J.md"]["subplans"] == [SUBPLAN]


def _moved(cli, plans_dir: Path, command: str, *args: str):
    when = ("--now", NOW_ISO) if command == "apply" else ()
    result = cli(command, "--plans-dir", str(plans_dir), *when, "--yes", *args)
    assert result.exit_code == 0, result.stderr
    assert_printable(result.stdout)
    assert_printable(result.stderr)
    return result


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_apply_and_undo_reports_show_one_escaped_line_per_plan(
    cli, hostile: Path, output_format: str
) -> None:
    scan(cli, hostile)
    moving = [name for name in ALL_NAMES if name != ACTIVE]
    for command in ("apply", "undo"):
        result = _moved(cli, hostile, command, "--format", output_format)
        lines = result.stdout.splitlines()
        for name in moving:
            holding = [line for line in lines if f" {shown(name)} -> " in line]
            assert len(holding) == 1, (command, name, holding)
        assert len(lines) == len(moving) + (4 if command == "apply" else 1) + (
            2 if output_format == "markdown" else 0
        )  # the moves, "Done: ..." (and the scan carried out, the text of the plan that
        # stays kept, the undo hint), under a heading
    assert sorted(path.name for path in hostile.iterdir()) == sorted([*ALL_NAMES, LINK])


def test_the_archive_index_has_no_raw_control_characters(cli, hostile: Path) -> None:
    scan(cli, hostile)
    result = _moved(cli, hostile, "apply", "--json")
    moving = {name for name in ALL_NAMES if name != ACTIVE}
    assert {item["name"] for item in result.json()["results"]} == moving  # exact in JSON
    index = (hostile.parent / "plans-archive" / "INDEX.md").read_text()
    assert_printable(index)
    headings = [line for line in index.splitlines() if line.startswith("### ")]
    archived = [name for index, name in enumerate(HOSTILE) if index % 2 == 0]
    assert sorted(headings) == sorted(f"### {shown(_title(n))} COMPLETED" for n in archived)
    assert f"sub-plans: {shown(SUBPLAN)}" in index


def test_archive_by_name_reports_escaped(cli, hostile: Path) -> None:
    result = cli("archive", "two\nlines.md", "--plans-dir", str(hostile), "--now", NOW_ISO, "--yes")
    assert result.exit_code == 0, result.stderr
    assert_printable(result.stdout + result.stderr)
    assert [line for line in result.stdout.splitlines() if "two" in line] == [
        f"archived  two\\nlines.md -> {hostile.parent / 'plans-archive'}/2026-Q4/two\\nlines.md"
    ]
    undone = cli("undo", "--plans-dir", str(hostile), "--yes", "--json").json()
    assert [item["name"] for item in undone["results"]] == ["two\nlines.md"]


@pytest.mark.parametrize("name", [SUBPLAN, "gone\x1b[2J\nclarity: all good.md"])
def test_an_error_naming_a_hostile_plan_is_one_escaped_line(cli, hostile: Path, name) -> None:
    result = cli("archive", name, "--plans-dir", str(hostile), "--now", NOW_ISO)
    assert result.exit_code == 2
    assert result.stderr.startswith("clarity: error: ")
    assert result.stderr.count("\n") == 1
    assert_printable(result.stderr)
    assert shown(name) in result.stderr


def test_config_shows_a_hostile_path_escaped_and_json_exact(cli, tmp_path: Path, monkeypatch):
    odd = tmp_path / "p\x1b[2J\nlans"
    monkeypatch.setenv("CLARITY_PLANS_DIR", str(odd))
    result = cli("config")
    assert result.exit_code == 0, result.stderr
    assert_printable(result.stdout)
    assert "p\\x1b[2J" in result.stdout
    document = cli("config", "--json").json()
    assert document["settings"]["plans_dir"]["value"] == str(odd)


def _asked(args: list[str], answer: bytes) -> tuple[int, str, str]:
    """Run clarity with a real terminal on stdin (so it asks), and type the answer."""
    done = in_a_terminal(args, answer)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_the_question_before_apply_and_undo_shows_names_escaped(cli, hostile: Path) -> None:
    scan(cli, hostile)
    code, out, err = _asked(["apply", "--plans-dir", str(hostile)], b"y\n")
    assert code == 0, err
    assert_printable(out + err)
    question = out[: out.index("Go ahead?")].splitlines()
    for name in ("two\nlines.md", "clear\x1b[2J.md"):  # trashed, and archived
        holding = [line for line in question if line.startswith(f"  {shown(name)}  ")]
        assert [line.removesuffix(" COMPLETED") for line in holding] == [
            f"  {shown(name)}  {shown(_title(name))}"
        ]
    assert f"    └ {shown(SUBPLAN)}" in question

    code, out, err = _asked(["undo", "--plans-dir", str(hostile)], b"y\n")
    assert code == 0, err
    assert_printable(out + err)
    question = out[: out.index("Go ahead?")].splitlines()
    two = shown("two\nlines.md")
    assert len([line for line in question if line.startswith(f"  {two}  from ")]) == 1


UNUSABLE_SIZES = [("COLUMNS", "0"), ("COLUMNS", "-5"), ("COLUMNS", "abc"), ("LINES", "0")]


def test_an_unusable_terminal_size_still_gets_the_whole_report(
    cli, plans_dir: Path, monkeypatch
) -> None:
    make_files(plans_dir, {"done.md": Plan("# Ship it COMPLETED\n", 10), "new.md": Plan("# N\n")})
    monkeypatch.delenv("COLUMNS")
    expected = scan(cli, plans_dir).stdout  # 80 columns: no terminal
    config = cli("config").stdout
    assert "done.md" in expected
    for variable, value in UNUSABLE_SIZES:
        with monkeypatch.context() as patch:
            patch.setenv(variable, value)
            assert scan(cli, plans_dir).stdout == expected, (variable, value)
            assert cli("config").stdout == config, (variable, value)


def test_help_with_an_unusable_width_in_a_real_process() -> None:
    for variable, value in UNUSABLE_SIZES:
        result = run_process("--help", env={variable: value})
        assert result.exit_code == 0, result.stderr
        assert "Usage: clarity" in result.stdout, (variable, value)
        assert "scan" in result.stdout


needs_dev_full = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")


@needs_dev_full
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "args",
    [
        ["scan"],
        ["scan", "--json"],
        ["scan", "--format", "markdown"],
        ["config"],
        ["config", "--json"],
    ],
)
def test_a_full_disk_under_the_report_is_one_error_line(
    plans_dir: Path, args: list[str], buffered: bool
) -> None:
    make_files(plans_dir, {"done.md": Plan("# Ship it COMPLETED\n", 10)})
    extra = ["--plans-dir", str(plans_dir)] if args[0] == "scan" else []
    with Path("/dev/full").open("w") as full:
        completed = subprocess.run(
            [sys.executable, "-m", "clarity", *args, *extra],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "" if buffered else "1"},
            timeout=120,
            check=False,
        )
    assert completed.stderr == "clarity: error: cannot write the report: No space left on device\n"
    assert completed.returncode == 2


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_a_reader_that_stops_early_ends_the_run_quietly(plans_dir: Path, buffered: bool) -> None:
    """`clarity scan | head -c 100`: exit 0 and nothing on stderr, in every format."""
    make_files(plans_dir, {f"plan-{n:04d}.md": Plan(f"# Plan {n}\n", 1) for n in range(1500)})
    # The plans are a day old as of NOW: the scan is told the same moment (on a later day
    # they would be stale stubs, and the report's hint would go to stderr).
    scan = ["scan", "--plans-dir", str(plans_dir), "--now", NOW_ISO]
    for args in ([], ["--json"], ["--format", "markdown"]):  # each far more than a pipe holds
        process = subprocess.Popen(
            [sys.executable, "-m", "clarity", *scan, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "" if buffered else "1"},
        )
        assert process.stdout is not None and process.stderr is not None
        with process.stdout:
            assert len(process.stdout.read(100)) == 100  # what the reader takes, then it goes
        with process.stderr:
            err = process.stderr.read().decode()
        assert (process.wait(timeout=120), err) == (0, ""), args


# Every write to stdout or stderr passes through clarity/render/output.py (its lines escaped)
# or through the rich console of clarity/render/console.py (every string escaped).
WRITERS = {Path("clarity/render/output.py"), Path("clarity/render/console.py")}


def _writes(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            call = ast.unparse(node.func)
            if call in ("print", "typer.echo", "Console") or call.startswith(
                ("sys.stdout.write", "sys.stderr.write")
            ):
                found.append(f"{call} at line {node.lineno}")
    return found


def test_only_the_escaping_writers_write_to_the_terminal() -> None:
    root = Path(__file__).resolve().parents[2]
    offenders = {
        str(path): writes
        for path in sorted((root / "clarity").rglob("*.py"))
        if path.relative_to(root) not in WRITERS
        and (writes := _writes(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert offenders == {}


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_in_a_colour_terminal_only_the_reports_own_colours_are_escape_sequences(
    hostile: Path,
) -> None:
    """The table on a real terminal: rich's colours (SGR sequences) are all the ESCs there."""
    import pty
    import re

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "clarity", "scan", "--plans-dir", str(hostile), "--now", NOW_ISO],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"},
    )
    os.close(terminal)
    drawn = drain(controller)
    assert process.wait(timeout=120) == 0
    text = drawn.decode().replace("\r\n", "\n")  # the terminal's own line ends
    assert "\x1b[" in text  # coloured: this is what a person sees
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)  # rich's colours, and nothing else
    assert_printable(plain)
    assert all(shown(name) in plain for name in HOSTILE)


def test_roots_in_markdown_is_a_table_of_one_row_a_folder_whatever_its_name(
    cli, isolated_home: Path
) -> None:
    """`clarity roots --format markdown` printed the terminal's list; it is a table, and a
    folder named with a pipe and markup is one row of four cells, its path as written."""
    odd = isolated_home / "a|b *c* [x](y)" / "plans"
    odd.mkdir(parents=True)
    (odd / "p.md").write_text("# P\n")
    (isolated_home / ".claude" / "plans").mkdir(parents=True)
    project = odd.parent
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"plansDirectory": "plans"}')
    (isolated_home / ".claude.json").write_text(f'{{"projects": {{"{project}": {{}}}}}}')

    shown = cli("roots", "--format", "markdown")

    assert shown.exit_code == 0, shown.stderr
    rows = _rows(shown.stdout)
    assert [len(row) for row in rows] == [4, 4]
    assert sorted(row[0] for row in rows) == sorted(
        [str(isolated_home / ".claude" / "plans"), str(odd)]
    )
