"""Tests of clarity/render/."""
