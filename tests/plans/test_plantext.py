"""Parsing a plan's head and tail (SPEC 3): H1, frontmatter, last line."""

from __future__ import annotations

import pytest

from clarity.model import Frontmatter
from clarity.plans.plantext import FrontmatterUnclosed, find_h1, last_nonblank_line, parse_head


@pytest.mark.parametrize(
    ("body", "title"),
    [
        ("# Plan: ship it\n\nbody", "Plan: ship it"),
        ("   # Indented up to three\n", "Indented up to three"),
        ("# Closing hashes ##\n", "Closing hashes"),
        ("#\tTabbed\n", "Tabbed"),
        ("intro\n\n# Later title\n", "Later title"),
        ("## H2 first\n\n# The H1\n", "The H1"),
        ("Setext title\n===\n\nbody", "Setext title"),
        ("Setext title\r\n=====\r\n", "Setext title"),
        ("Two line\nsetext title\n===\n", "Two line setext title"),
        ("# ATX first\n\nSetext\n===\n", "ATX first"),
        ("Setext first\n===\n\n# ATX later\n", "Setext first"),
        ("```bash\n# a shell comment\n```\n# Real title\n", "Real title"),
        ("~~~\n# not a title\n~~~\n\nTitle\n===\n", "Title"),
        ("````\n```\n# still code\n````\n# After\n", "After"),
        ("    # indented code, not a heading\n# Real\n", "Real"),
        ("- item\n===\n# Real\n", "Real"),  # a list item is not a setext title
        ("> quote\n===\n# Real\n", "Real"),
        ("Para\n---\n===\n# Real\n", "Real"),  # an H2 underline closes the paragraph
    ],
)
def test_h1_is_the_first_level_one_heading(body: str, title: str) -> None:
    assert find_h1(body) == title


@pytest.mark.parametrize(
    "body",
    [
        "## Only an H2\n",
        "#NoSpace is not a heading\n",
        "####### seven hashes\n",
        "```\n# inside an unclosed fence\n",
        "\n===\n",  # an underline with no paragraph above
        "",
        "plain text only\n",
    ],
)
def test_no_h1(body: str) -> None:
    assert find_h1(body) is None


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a\nb\nlast line\n", "last line"),
        ("a\nlast\n\n   \n\t\n", "last"),
        ("a\r\nlast -- Done\r\n\r\n", "last -- Done"),
        ("only", "only"),
        ("   padded   \n", "padded"),
        ("", None),
        ("\n \n\t\n", None),
    ],
)
def test_last_nonblank_line(text: str, line: str | None) -> None:
    assert last_nonblank_line(text) == line


def test_frontmatter_status_and_pinned_are_read() -> None:
    head = parse_head("---\nstatus: Done\npinned: true\n---\n# Title\n")
    assert head.frontmatter == Frontmatter(status="Done", pinned=True)
    assert head.title == "Title"
    assert head.warnings == ()


@pytest.mark.parametrize(
    ("value", "pinned"),
    [("true", True), ("yes", True), ("'true'", True), ("false", False), ("1", False), ("", False)],
)
def test_pinned_means_yaml_true(value: str, pinned: bool) -> None:
    assert parse_head(f"---\npinned: {value}\n---\n").frontmatter.pinned is pinned


def test_frontmatter_with_crlf() -> None:
    head = parse_head("---\r\nstatus: completed\r\n---\r\n# Title\r\n")
    assert head.frontmatter.status == "completed"
    assert head.title == "Title"


def test_a_non_string_status_is_kept_as_text() -> None:
    assert parse_head("---\nstatus: 3\n---\n").frontmatter.status == "3"


def test_malformed_frontmatter_is_ignored_with_a_warning_and_the_body_is_read() -> None:
    head = parse_head("---\nstatus: [done\n---\n# Body title -- Done\n")
    assert head.frontmatter == Frontmatter()
    assert head.title == "Body title -- Done"
    assert len(head.warnings) == 1
    assert head.warnings[0].startswith("malformed frontmatter ignored")


def test_frontmatter_that_is_not_a_mapping_is_ignored_with_a_warning() -> None:
    head = parse_head("---\n- a\n- b\n---\n# T\n")
    assert head.frontmatter == Frontmatter()
    assert head.title == "T"
    assert "not a key: value mapping" in head.warnings[0]


def test_an_empty_frontmatter_block_is_fine() -> None:
    head = parse_head("---\n---\n# T\n")
    assert head.frontmatter == Frontmatter()
    assert head.warnings == ()
    assert head.title == "T"


def test_frontmatter_opens_only_on_the_first_line() -> None:
    head = parse_head("# Title\n---\nstatus: done\n---\n")
    assert head.frontmatter == Frontmatter()
    assert head.title == "Title"


def test_an_unclosed_block_is_reported_to_the_reader() -> None:
    with pytest.raises(FrontmatterUnclosed):
        parse_head("---\nstatus: done\n# Title\n")


def test_yaml_tags_are_not_executed() -> None:
    head = parse_head("---\nstatus: !!python/object/apply:os.system ['true']\n---\n# T\n")
    assert head.frontmatter == Frontmatter()
    assert head.warnings[0].startswith("malformed frontmatter ignored")
