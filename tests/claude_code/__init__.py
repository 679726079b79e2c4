"""Tests of clarity/claude_code/."""
