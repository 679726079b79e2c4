"""clarity inside Claude Code: the /clarity skill, the SessionStart hook (and the approval
events), its settings.json entries, the plugin, the MCP server. An entry point like cli/:
it imports workflows/, render/ and the shared pieces, never a core wing (import-linter's
"one door")."""
