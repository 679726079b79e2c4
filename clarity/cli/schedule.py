"""`clarity schedule`: the weekly run (SPEC 9)."""
