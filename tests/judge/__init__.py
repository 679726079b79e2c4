"""Tests of clarity/judge/."""
