"""Renderers: a report in, text out, and the only writers to stdout and stderr (output.py).
Imports the core and workflows for their reports' types; never cli or claude_code."""
