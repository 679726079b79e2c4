"""Settings: what clarity is told and where it looks. `config.py` (every setting, with
where its value came from), `locations.py` (where plans, archive, config and state are,
as Claude Code's settings say), `files.py` (settings files read and written as the
person wrote them). Shared pieces: they import no wing."""
