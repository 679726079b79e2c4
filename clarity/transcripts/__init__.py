"""What Claude Code's session transcripts say about the plans of one plans directory (the
facts sessions.py hands the scan). Imports only the shared pieces.

Claude Code keeps one JSON-lines transcript per session under
`<claude config dir>/projects/<project>/<session id>.jsonl` (a sub-agent's
under `<session id>/subagents/agent-<id>.jsonl`, or beside the session as
`agent-<id>.jsonl` in older versions). They are append-only, and heavy users
have gigabytes of them, so:

- `reader.py` reads only the bytes appended since the last scan, and only
  the lines that can matter: a byte search runs before any JSON parse;
- `store.py` keeps what was learned from each transcript in the state folder,
  so the next scan starts where this one stopped, and the evidence outlives
  transcripts Claude Code deletes;
- `evidence.py` weighs what the sessions did with each plan (presented,
  approved, implemented, used lately), with no I/O.
"""
