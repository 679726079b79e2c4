"""Tests of clarity/archive/."""
