"""Tests of clarity/workflows/."""
