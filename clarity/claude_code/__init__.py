"""clarity inside Claude Code and the machine: the /clarity skill, the SessionStart hook, its
settings.json entry, the plugin, the MCP server, the weekly schedule. Imports the core,
workflows and render; only cli imports it."""
