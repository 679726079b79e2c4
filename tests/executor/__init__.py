"""Tests of clarity/executor/."""
