"""SPEC 4's marker rules: capitals, whole phrases, dashes and spaces."""

from __future__ import annotations

import pytest

from clarity.plans.markers import compile_marker, compile_markers, first_marker
from clarity.settings.config import DEFAULT_MARKERS

MARKERS = compile_markers(DEFAULT_MARKERS)


def found(line: str) -> str | None:
    marker = first_marker(MARKERS, line)
    return None if marker is None else marker.text


@pytest.mark.parametrize(
    ("line", "marker"),
    [
        ("# Plan: billing COMPLETED", "COMPLETED"),
        ("Status -- Complete", "-- Complete"),
        ("Status -- Completed", "-- Completed"),
        ("Migration -- Done", "-- Done"),
        ("No further planning needed.", "No further planning"),
        ("No code changes required", "No code changes"),
        ("No plan needed", "No plan needed"),
        ("Design finalized", "finalized"),
    ],
)
def test_every_default_marker_matches(line: str, marker: str) -> None:
    assert found(line) == marker


@pytest.mark.parametrize(
    "line",
    ["# completed migration", "Completed the migration", "# Plan COMPLETEd", "ComPLETED"],
)
def test_a_marker_in_capitals_matches_only_in_capitals(line: str) -> None:
    assert found(line) is None


@pytest.mark.parametrize(
    ("line", "marker"),
    [
        ("migration -- done", "-- Done"),
        ("MIGRATION -- DONE", "-- Done"),
        ("NO FURTHER PLANNING", "No further planning"),
        ("no code changes", "No code changes"),
        ("FINALIZED", "finalized"),
        ("Finalized.", "finalized"),
    ],
)
def test_other_markers_match_in_any_case(line: str, marker: str) -> None:
    assert found(line) == marker


@pytest.mark.parametrize(
    "line",
    [
        "unfinalized",
        "Unfinalized API sketch",
        "finalizedness",
        "COMPLETEDNESS",
        "UNCOMPLETED",
        "finalized2",
        "3COMPLETED",
        "prefinalized draft",
        "Task--Done",  # the dash directly follows a letter
        "-- Doneness",
        "No further plannings",
    ],
)
def test_a_marker_is_a_whole_phrase(line: str) -> None:
    assert found(line) is None


@pytest.mark.parametrize(
    "line",
    [
        "Plan -- Done",
        "Plan --Done",
        "Plan \u2013 Done",  # en dash
        "Plan \u2014 Done",  # em dash
        "Plan \u2014Done",
        "Plan \u2013Done",
        "Plan --   Done",
        "(--Done)",
        "Plan: -- Done.",
        "Plan -- Done_",  # an underscore is neither a letter nor a digit
    ],
)
def test_dash_variants_and_optional_space(line: str) -> None:
    assert found(line) == "-- Done"


@pytest.mark.parametrize(
    "line",
    ["No   further\tplanning", "no further  planning here", "No\u00a0further planning"],
)
def test_a_space_matches_any_run_of_spaces(line: str) -> None:
    assert found(line) == "No further planning"


def test_no_space_where_the_marker_has_one_does_not_match() -> None:
    assert found("Nofurther planning") is None
    assert found("No furtherplanning") is None


def test_a_single_hyphen_is_not_a_double_dash() -> None:
    assert found("Plan - Done") is None


def test_whole_phrase_rule_applies_in_any_script() -> None:
    assert found("ПланCOMPLETED") is None  # noqa: RUF001 - Cyrillic on purpose: a letter before it
    assert found("План COMPLETED") == "COMPLETED"
    assert found("COMPLETEDé") is None


def test_configured_markers_are_escaped_and_follow_the_same_rules() -> None:
    marker = compile_marker("SHIPPED (V2)")
    assert marker.found_in("Release SHIPPED (V2)")
    assert not marker.found_in("Release shipped (v2)")
    assert not marker.found_in("Release SHIPPED (V2)X")
    mixed = compile_marker("Shipped (v2)")  # not all capitals: any case
    assert mixed.found_in("RELEASE SHIPPED (V2)")
    custom = compile_marker("-- Merged")
    assert custom.found_in("Feature \u2014merged")


def test_blank_markers_are_ignored() -> None:
    assert [marker.text for marker in compile_markers(["", "  ", "Done"])] == ["Done"]


def test_nothing_matches_no_line() -> None:
    assert first_marker(MARKERS, None) is None
    assert first_marker(MARKERS, "") is None


@pytest.mark.parametrize(
    "line",
    [
        "No further planning required to start P1.",
        "No further planning needed to begin implementation",
        "No further planning is needed before we start",
        "No code changes needed before the release",
        "No further planning needed; ready for implementation.",
        "no further planning required, ready to implement",
        "No plan needed in order to proceed",
    ],
)
def test_a_phrase_that_goes_on_to_a_purpose_is_not_terminal(line: str) -> None:
    assert found(line) is None


@pytest.mark.parametrize(
    ("line", "marker"),
    [
        ("No further planning needed.", "No further planning"),
        ("No further planning.", "No further planning"),
        ("No further planning. Start with P1 to begin.", "No further planning"),  # next sentence
        ("No code changes to make", "No code changes"),
        ("No code changes required", "No code changes"),
        ("Migration -- Done, ready for review", "-- Done"),  # only phrases have a purpose
        ("COMPLETED: ready for the next phase", "COMPLETED"),
    ],
)
def test_a_phrase_that_ends_there_is_still_terminal(line: str, marker: str) -> None:
    assert found(line) == marker
