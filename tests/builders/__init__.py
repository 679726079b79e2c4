"""What the tests build their worlds from, in one place: plans dirs as dict trees (files.py),
Claude Code homes and transcripts (claude_home.py, sessions.py), processes and terminals
(processes.py), a local Messages API, stand-in schedulers, generated corpora."""
