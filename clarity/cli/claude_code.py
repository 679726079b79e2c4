"""The /clarity slash command for Claude Code (SPEC 9)."""
