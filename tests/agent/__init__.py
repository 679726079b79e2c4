"""Tests of clarity/agent/."""
