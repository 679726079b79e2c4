"""Tests of clarity/plans/."""
