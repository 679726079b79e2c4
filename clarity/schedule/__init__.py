"""`clarity schedule`: a weekly run through cron, a systemd user timer or launchd (SPEC 9),
a wing of its own (it has nothing to do with Claude Code). Imports the shared pieces.

Each scheduler writes something a person can read and `remove` takes out
again: a marked crontab block, two named units, or one named plist.
`when.py` says when and what runs, `job.py` the command line, `choose.py`
which scheduler; `cron.py`, `systemd.py`, `launchd.py` each install it.
"""
