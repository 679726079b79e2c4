"""Tests of clarity/cli/."""
