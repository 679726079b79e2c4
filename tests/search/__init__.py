"""Tests of clarity/search/."""
