"""The extractive summary: the first paragraph of prose, shortened."""

from __future__ import annotations

import pytest

from clarity.plans.summary import SUMMARY_CHARS, extract_summary, shorten


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        (
            "# Title\n\nThe goal is **speed**.\nSecond line.\n\nMore.\n",
            "The goal is speed. Second line.",
        ),
        ("---\nstatus: done\n---\n# T\n\nBody after frontmatter.\n", "Body after frontmatter."),
        ("Title\n=====\n\nSetext then prose.\n", "Setext then prose."),
        ("# T\n\n```\ncode is not prose\n```\n\n| a | b |\n\n---\n\nProse.\n", "Prose."),
        ("# T\n\n## Context\n\nSee [the docs](http://x) and `cfg`.\n", "See the docs and cfg."),
        # A link whose address holds brackets, or a title; an image; emphasis; a code span
        # that holds what would be emphasis elsewhere (issue 42, case 8).
        (
            '# T\n\nSee [the runbook](https://w.org/wiki/Runbook_(ops) "t") ![x](http://x/p.png)'
            " for **details** on `__init__` and snake_case_names.\n",
            "See the runbook x for details on __init__ and snake_case_names.",
        ),
        ("# T\n\n- [ ] add cache\n- [x] measure\n", "add cache; measure"),
        ("# T\n\n- item\n\nThen prose wins.\n", "Then prose wins."),
        ("# Only a title\n", ""),
        ("", ""),
        ("\ufeff# T\r\n\r\nWindows lines.\r\n", "Windows lines."),
    ],
)
def test_summary_is_the_first_prose_paragraph(text: str, summary: str) -> None:
    assert extract_summary(text) == summary


def test_a_long_paragraph_is_cut_at_a_word_with_an_ellipsis() -> None:
    words = "alpha beta gamma delta " * 40
    summary = extract_summary(f"# T\n\n{words}\n")
    assert len(summary) <= SUMMARY_CHARS
    assert summary.endswith("…")
    assert words.startswith(summary[:-1])
    assert summary[-2] != " "


def test_short_text_is_left_alone() -> None:
    assert shorten("short") == "short"
