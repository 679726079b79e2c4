"""The commands as the CLI, the hook, the MCP server and the schedule call them: scan, apply,
undo, archive, restore, demo (the lock, recovery, the question as a callback; nothing
printed). Imports every core wing; never render, cli or claude_code."""
