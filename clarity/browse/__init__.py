"""`clarity browse` (SPEC 9.3): a local, read-only web page over every plan clarity knows.

An entry point like the CLI and the MCP server: it reads through workflows/ only.
server.py binds loopback and serves; guard.py refuses what it must (no token, a
foreign Host, a method that is not GET or HEAD) and sets the headers every answer
carries; app.py routes; pages.py fills the templates; markdown.py, diffs.py and
pictures.py make what a plan's text, two versions and the counts look like.
"""
