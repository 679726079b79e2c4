"""Reading plans from a real directory (SPEC 2 and 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from clarity.model import PlanFacts
from clarity.plans.reader import (
    HEAD_BYTES,
    MAX_HEAD_BYTES,
    MAX_TAIL_BYTES,
    TAIL_BYTES,
    read_plans_dir,
)
from tests.builders.files import make_files
from tests.builders.processes import AS_ROOT, without_root_file_access

FIVE_MB = 5 * 1024 * 1024
MAX_BYTES_READ = MAX_HEAD_BYTES + MAX_TAIL_BYTES  # the most a plan's facts may cost


def read_plan(path: Path) -> PlanFacts:
    """The facts the scan's reader gathers about one plan."""
    return next(facts for facts in read_plans_dir(path.parent).plans if facts.name == path.name)


def big_plan(
    path: Path, size: int, head: str = "# Big plan\n\n", tail: str = "\nEnd -- Done\n"
) -> None:
    body_line = b"- [ ] a step of a long plan with enough words to be realistic\n"
    middle = size - len(head.encode()) - len(tail.encode())
    body = (body_line * (middle // len(body_line) + 1))[:middle]
    path.write_bytes(head.encode() + body + tail.encode())


def test_only_md_files_directly_inside_are_plans(plans_dir: Path) -> None:
    make_files(
        plans_dir,
        {
            "a.md": "# A\n",
            "notes.txt": "not a plan",
            "b.MD": "other extension",
            ".hidden.md": "hidden",
            "archive": {"old.md": "# in a subdirectory\n"},
            "dir.md": {"inner.md": "a directory named like a plan"},
        },
    )
    listing = read_plans_dir(plans_dir)
    assert [p.name for p in listing.plans] == ["a.md"]
    assert listing.skipped == ()


def test_symlinks_are_skipped_never_followed(plans_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_text("# Elsewhere COMPLETED\n")
    (plans_dir / "link.md").symlink_to(target)
    (plans_dir / "dangling.md").symlink_to(tmp_path / "missing.md")
    (plans_dir / "dirlink.md").symlink_to(tmp_path)
    listing = read_plans_dir(plans_dir)
    assert listing.plans == ()
    assert {(s.path.name, s.reason) for s in listing.skipped} == {
        ("link.md", "symlink: not followed"),
        ("dangling.md", "symlink: not followed"),
        ("dirlink.md", "symlink: not followed"),
    }


def test_a_fifo_is_skipped_without_blocking(plans_dir: Path) -> None:
    os.mkfifo(plans_dir / "pipe.md")
    listing = read_plans_dir(plans_dir)
    assert [(s.path.name, s.reason) for s in listing.skipped] == [("pipe.md", "not a regular file")]


def test_facts_of_a_plan(plans_dir: Path) -> None:
    make_files(plans_dir, {"p.md": "---\nstatus: done\n---\n# Title here\n\nbody\nlast words\n"})
    facts = read_plan(plans_dir / "p.md")
    assert facts.name == "p.md"
    assert facts.path == plans_dir / "p.md"
    assert facts.size == (plans_dir / "p.md").stat().st_size
    assert facts.mtime == (plans_dir / "p.md").stat().st_mtime
    assert facts.title == "Title here"
    assert facts.last_line == "last words"
    assert facts.frontmatter.status == "done"
    assert facts.warnings == ()


def test_bom_and_crlf_are_tolerated(plans_dir: Path) -> None:
    make_files(
        plans_dir, {"p.md": b"\xef\xbb\xbf---\r\nstatus: done\r\n---\r\n# T\r\nend -- Done\r\n"}
    )
    facts = read_plan(plans_dir / "p.md")
    assert (facts.frontmatter.status, facts.title, facts.last_line) == ("done", "T", "end -- Done")
    assert facts.warnings == ()


def test_bom_before_a_setext_title(plans_dir: Path) -> None:
    make_files(plans_dir, {"p.md": b"\xef\xbb\xbfTitle\r\n===\r\n"})
    assert read_plan(plans_dir / "p.md").title == "Title"


def test_invalid_utf8_is_read_with_replacement_and_a_warning(plans_dir: Path) -> None:
    make_files(plans_dir, {"p.md": b"# Caf\xe9 COMPLETED\n\xff\xfe body\n"})
    facts = read_plan(plans_dir / "p.md")
    assert facts.title == "Caf\ufffd COMPLETED"
    assert any("not valid UTF-8" in w for w in facts.warnings)


def test_valid_utf8_including_a_replacement_character_has_no_warning(plans_dir: Path) -> None:
    make_files(plans_dir, {"p.md": "# Überblick \ufffd 計画\n".encode()})
    facts = read_plan(plans_dir / "p.md")
    assert facts.title == "Überblick \ufffd 計画"
    assert facts.warnings == ()


def test_a_binary_file_is_classified_with_a_warning(plans_dir: Path) -> None:
    make_files(plans_dir, {"blob.md": bytes(range(256)) * 40})
    facts = read_plan(plans_dir / "blob.md")
    assert facts.size == 10240
    assert any("binary" in w for w in facts.warnings)


def test_an_empty_file(plans_dir: Path) -> None:
    make_files(plans_dir, {"empty.md": b""})
    facts = read_plan(plans_dir / "empty.md")
    assert (facts.size, facts.title, facts.last_line, facts.warnings) == (0, None, None, ())


def test_multibyte_characters_cut_at_chunk_edges_are_not_invalid(plans_dir: Path) -> None:
    # Fill so that a 3-byte character straddles the head and tail chunk edges.
    char = "計".encode()
    data = b"# T\n" + char * ((HEAD_BYTES + TAIL_BYTES + 5000) // 3) + b"\nlast \xe8\xa8\x88\n"
    (plans_dir / "p.md").write_bytes(data)
    facts = read_plan(plans_dir / "p.md")
    assert facts.warnings == ()
    assert facts.last_line == "last 計"


def test_a_5mb_plan_is_read_in_a_bounded_amount(plans_dir: Path) -> None:
    big_plan(plans_dir / "big.md", FIVE_MB)
    facts = read_plan(plans_dir / "big.md")
    assert facts.size == FIVE_MB
    assert (facts.title, facts.last_line) == ("Big plan", "End -- Done")
    assert facts.bytes_read == HEAD_BYTES + TAIL_BYTES


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/self/io")
def test_the_kernel_agrees_a_5mb_plan_costs_a_bounded_read(plans_dir: Path) -> None:
    """Count bytes with the kernel's own counter (rchar), not the reader's word."""
    big_plan(plans_dir / "big.md", FIVE_MB)
    read_plans_dir(plans_dir)  # warm up: imports and caches read files of their own

    def rchar() -> int:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
        raise AssertionError("no rchar")

    # Reading /proc/self/io itself adds to rchar: measure that cost and subtract it.
    first, second = rchar(), rchar()
    probe_cost = second - first
    before = rchar()
    listing = read_plans_dir(plans_dir)
    read = rchar() - before - probe_cost
    assert listing.plans[0].size == FIVE_MB
    assert 0 < read <= MAX_BYTES_READ
    assert read < FIVE_MB / 100


def test_frontmatter_longer_than_the_first_chunk_is_read_further(plans_dir: Path) -> None:
    long_value = "x" * (HEAD_BYTES * 2)
    head = f"---\nnote: {long_value}\nstatus: done\n---\n# After a long frontmatter\n"
    big_plan(plans_dir / "p.md", 1024 * 1024, head=head)
    facts = read_plan(plans_dir / "p.md")
    assert facts.frontmatter.status == "done"
    assert facts.title == "After a long frontmatter"
    assert facts.bytes_read <= MAX_BYTES_READ


def test_a_frontmatter_block_that_never_closes_is_ignored_with_a_warning(plans_dir: Path) -> None:
    make_files(plans_dir, {"small.md": "---\nstatus: done\n# Title\n"})
    big_plan(plans_dir / "big.md", FIVE_MB, head="---\nstatus: done\n# Title\n")
    small, big = read_plan(plans_dir / "small.md"), read_plan(plans_dir / "big.md")
    assert small.frontmatter.status is None
    assert small.title == "Title"
    assert "never closes" in small.warnings[0]
    assert big.frontmatter.status is None
    assert f"never closes in the first {MAX_HEAD_BYTES // 1024} KiB" in big.warnings[0]
    assert big.bytes_read <= MAX_BYTES_READ


def test_a_last_line_longer_than_the_tail_chunk_is_read_whole(plans_dir: Path) -> None:
    long_last = "-- Done " + "word " * 3000  # ~15 KB on one line, the marker at its start
    big_plan(plans_dir / "p.md", FIVE_MB, tail="\n" + long_last + "\n")
    facts = read_plan(plans_dir / "p.md")
    assert facts.last_line is not None
    assert facts.last_line.startswith("-- Done")
    assert facts.bytes_read <= MAX_BYTES_READ


def test_names_with_spaces_unicode_and_a_leading_dash(plans_dir: Path) -> None:
    names = ["with space.md", "план-計画.md", "-leading-dash.md", "--double.md", "é\u0301.md"]
    make_files(plans_dir, {name: f"# {name}\n" for name in names})
    listing = read_plans_dir(plans_dir)
    assert sorted(p.name for p in listing.plans) == sorted(names)
    assert all(p.title == p.name for p in listing.plans)


@pytest.mark.skipif(sys.platform != "linux", reason="undecodable names are a Linux matter")
def test_a_name_that_is_not_utf8(plans_dir: Path) -> None:
    raw = os.fsencode(plans_dir) + b"/caf\xe9.md"
    fd = os.open(raw, os.O_WRONLY | os.O_CREAT, 0o644)  # bytes path: pathlib cannot spell it
    os.write(fd, b"# T\n")
    os.close(fd)
    listing = read_plans_dir(plans_dir)
    assert [os.fsencode(p.name) for p in listing.plans] == [b"caf\xe9.md"]


def test_an_unreadable_file_is_skipped_with_the_error(plans_dir: Path) -> None:
    make_files(plans_dir, {"ok.md": "# ok\n", "secret.md": "# secret\n"})
    (plans_dir / "secret.md").chmod(0)
    script = (
        "import sys; from pathlib import Path; from clarity.plans.reader import read_plans_dir\n"
        "listing = read_plans_dir(Path(sys.argv[1]))\n"
        "print([p.name for p in listing.plans])\n"
        "print([(s.path.name, s.reason) for s in listing.skipped])"
    )
    # Root reads any file; the child keeps uid 0 but loses that power, as a user has.
    try:
        result = subprocess.run(
            [sys.executable, "-c", script, str(plans_dir)],
            capture_output=True,
            text=True,
            preexec_fn=without_root_file_access if AS_ROOT else None,
            check=False,
            timeout=60,
        )
    except subprocess.SubprocessError as error:
        pytest.skip(f"cannot drop root's file access here: {error}")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "['ok.md']",
        "[('secret.md', 'unreadable: Permission denied')]",
    ]
