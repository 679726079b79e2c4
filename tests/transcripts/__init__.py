"""Tests of clarity/transcripts/."""
