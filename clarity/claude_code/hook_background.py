"""A session start cut short by its deadline hands its work on (issue 45): a detached
process goes on with the same scan and keeping, with no deadline and at a low priority,
and leaves its finding in the memo, so the next session start answers at once.

It never delays the session: it is started with nothing of the hook's (no stdin, no
stdout, a session of its own), and the hook does not wait for it. It never runs twice
at once: it holds `<state>/session-start.lock` while it works, and a session start
that finds the lock held says nothing and leaves the work to it.

Standard library only until the work begins, as the hook is.
"""

# ruff: noqa: PTH103, PTH112, PTH117, PTH118
# (os.path, not pathlib: the hook imports this module, and pathlib costs it a fifth of its time)

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping

FLAG = "--continue"  # `python -I -m clarity.hook --continue <cwd>`
LOCK = "session-start.lock"
NICENESS = 10
KEEP_SECONDS = 600.0  # keeping texts near the cleanup: as long as it takes, within reason


def spawn(cwd: str, env: Mapping[str, str]) -> None:
    """Start the continuation for cwd, detached; never raises."""
    with contextlib.suppress(OSError, ValueError):
        subprocess.Popen(
            [sys.executable, "-I", "-m", "clarity.hook", FLAG, cwd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # no signal meant for Claude Code's hooks reaches it
            close_fds=True,
            env=dict(env),
        )


def busy(state_dir: str) -> bool:
    """Whether a continuation is at work now (it holds the lock)."""
    with _locked(state_dir) as held:
        return not held


@contextlib.contextmanager
def _locked(state_dir: str) -> Iterator[bool]:
    """The lock, taken without waiting: whether it was ours to take."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): no continuation runs there
        yield True
        return
    try:
        os.makedirs(state_dir, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(os.path.join(state_dir, LOCK), flags, 0o600)
    except OSError:
        yield True  # no lock to be had: go on as before there was one
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        yield False
        return
    try:
        yield True
    finally:
        os.close(fd)  # and the lock with it


def continue_work(cwd: str, env: Mapping[str, str]) -> None:
    """The continuation itself: the scan and the keeping the hook gave up, finished, and
    the finding remembered for the next session start."""
    from clarity.claude_code.hook_memo import MEMO_FILE, load_memo, memo_key, save_memo, state_dir
    from clarity.workflows.session_start import summarize

    if not os.path.isabs(cwd) or not os.path.isdir(cwd):
        return  # never the folder it happens to run in: only the session's, as the hook saw it
    with contextlib.suppress(OSError):
        os.nice(NICENESS)  # the person's session comes first
    state = state_dir(env)
    with _locked(state) as held:
        if not held:
            return  # another continuation is at work: it does this
        now = time.time()
        entry = summarize(cwd, env, now, time.monotonic() + KEEP_SECONDS)
        entry["day"] = time.strftime("%Y-%m-%d", time.localtime(now))
        memo_path = os.path.join(state, MEMO_FILE)
        memo = load_memo(memo_path)
        key = memo_key(cwd, env)
        was = memo.get(key)
        entry["said"] = was.get("said") if isinstance(was, dict) else None  # said before
        save_memo(memo_path, memo, key, entry)
