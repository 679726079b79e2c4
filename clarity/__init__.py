"""clarity: keep Claude Code's plan directory lean without ever losing a plan."""

__version__ = "0.1.0"
