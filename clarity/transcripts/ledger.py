"""The approval ledger (SPEC 6.1): what the plugin's hooks recorded the moment Claude Code
showed a plan, approved it, or started the session that implements it.

Claude Code deletes transcripts, and their format changes; the ledger is
clarity's own record, one JSON line per event in the state folder:

    <state>/ledger.jsonl         {"event", "at", "session", "cwd", "plan", "sha256", ...}
    <state>/ledger-texts/<sha256>.md   the text shown or approved, once per text

`record` writes a line (the hook, claude_code/hook.py, calls it; standard library only:
it runs at every ExitPlanMode). `ledger_facts` reads the ledger as transcript facts
of the sessions it names, for one plans dir, so that the scan weighs them beside the
transcripts' (transcripts/sessions.py):
- presented: PreToolUse or PermissionRequest of ExitPlanMode (`tool_input` `{plan,
  planFilePath}`): the plan shown, in that session.
- approved: PostToolUse of ExitPlanMode (the plan in `tool_response`): approved there.
- ended: the SessionEnd with `reason: "clear"` of the session that was cleared, with its
  `prompt_id`; cleared: the SessionStart with `source: "clear"` of the new session (no
  plan in either). A person's own `/clear` gives the same pair (Claude Code 2.1.328,
  fixtures/claude_code/2.1.328/12-hook-events): what tells a "clear context" approval
  apart is that the ending carries the `prompt_id` of the prompt that presented the plan
  (a person's /clear has a new one). So a cleared start approves the plan its project
  presented last only when the ending just before it (within CLEAR_WINDOW) is that
  presenting session's, with that prompt; the new session is the one that implements it.
"""

# ruff: noqa: PTH103, PTH105, PTH108, PTH116, PTH118
# (os.path, not pathlib: the hook imports this at every ExitPlanMode, and pathlib alone
# costs a hook a fifth of its time)

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import time
from collections.abc import Iterator, Mapping
from typing import Any

LEDGER = "ledger.jsonl"
TEXTS = "ledger-texts"
TEXT_MOST = 16 * 1024 * 1024  # a longer "plan" is no plan: its line is kept, not its text
LINE_MOST = 64 * 1024  # a line longer than this is not one clarity wrote
LEDGER_MOST = 256 * 1024 * 1024  # past this the ledger is not read (one line per plan shown)
PRESENTED, APPROVED, ENDED, CLEARED = "presented", "approved", "ended", "cleared"
EVENTS = (PRESENTED, APPROVED, ENDED, CLEARED)
CLEAR_WINDOW = 10.0  # seconds from the cleared session's end to the new one's start (0.1 s)
PLAN_TOOL = "ExitPlanMode"


def _now() -> str:
    """Now, as transcripts write times (2026-11-02T09:15:00.000Z), so that they compare."""
    moment = time.time()
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{int(moment % 1 * 1000):03d}Z"
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def entry_of(data: Mapping[str, Any]) -> tuple[dict[str, Any], str | None] | None:
    """The ledger line for a hook's input, and the plan's text; None if it is no event the
    ledger keeps."""
    event = data.get("hook_event_name")
    session = _text(data.get("session_id"))
    if session is None:
        return None
    tool_input = data.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if event == "SessionStart":
        if data.get("source") != "clear":
            return None
        kind, plan, text = CLEARED, None, None
    elif event == "SessionEnd":
        if data.get("reason") != "clear":
            return None
        kind, plan, text = ENDED, None, None
    elif data.get("tool_name") != PLAN_TOOL:
        return None
    elif event in ("PreToolUse", "PermissionRequest"):
        kind, plan, text = PRESENTED, tool_input.get("planFilePath"), tool_input.get("plan")
    elif event == "PostToolUse":
        response = data.get("tool_response")
        response = response if isinstance(response, dict) else {}
        plan = response.get("filePath") or tool_input.get("planFilePath")
        kind, text = APPROVED, response.get("plan") or tool_input.get("plan")
    else:
        return None
    text = _text(text)
    if text is not None and len(text) > TEXT_MOST:
        text = None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() if text else ""
    line = {
        "event": kind,
        "at": _now(),
        "session": session,
        "cwd": _text(data.get("cwd")),
        "plan": _text(plan),
        "sha256": digest,
        "prompt": _text(data.get("prompt_id")),
        "transcript": _text(data.get("transcript_path")),
    }
    return line, text


def record(data: Mapping[str, Any], state_dir: str) -> bool:
    """Write the ledger line for a hook's input (and the text, once); whether it was one
    to keep. Raises OSError (the hook says nothing and goes on)."""
    found = entry_of(data)
    if found is None:
        return False
    line, text = found
    os.makedirs(state_dir, exist_ok=True)
    if text is not None:
        # A text that cannot be written (a full disk) leaves its line all the same: the
        # approval is evidence, and the transcript still holds the text.
        _write_text(os.path.join(state_dir, TEXTS), line["sha256"], text)
    data_line = (json.dumps(line, ensure_ascii=True) + "\n").encode("ascii")
    path = os.path.join(state_dir, LEDGER)
    for _ in range(_REOPENS):
        fd = os.open(path, _APPEND, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a device: not clarity's ledger
                raise OSError(errno.EINVAL, "not a regular file", LEDGER)
            if _appending_to(fd, path):
                os.write(fd, data_line)  # one write of a short line: appended whole
                return True
        finally:
            os.close(fd)  # and its lock with it
    raise OSError(errno.EAGAIN, "the ledger was replaced again and again", LEDGER)


_REOPENS = 5
_LOCK_WAIT = 1.0  # seconds a hook waits for a compaction's last step (ledger_compact.py)


def _appending_to(fd: int, path: str) -> bool:
    """Whether fd is still the ledger at path, under a shared lock held until fd closes.

    A compaction (ledger_compact.py) writes the ledger anew and renames it into place
    holding the old file's exclusive lock, after copying every line appended so far: a
    line written under the shared lock is in the old file before that copy, and a hook
    that opened the old file and locked it after the rename sees it replaced and opens
    the ledger again. A lock never granted (another program holding one) is waited for
    only so long: the line is written all the same."""
    try:
        import fcntl
    except ImportError:  # no flock here (Windows): nothing compacts a ledger while it runs
        return True
    deadline = time.monotonic() + _LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                break  # held too long: written all the same, if still the ledger
            time.sleep(0.005)
    try:
        return os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False  # gone between: opened again


# The state-file rule, in the standard library alone: never through a link (O_NOFOLLOW),
# never waiting on a FIFO (O_NONBLOCK: no reader, no open), a regular file only (fstat).
_NEVER_WAIT = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NEVER_WAIT
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _write_text(folder: str, sha256: str, text: str) -> None:
    path = os.path.join(folder, f"{sha256}.md")
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.lstat(path).st_mode):
            return  # kept already (anything else in its place is written over)
    temp = os.path.join(folder, f".{sha256}.md.{os.getpid()}.tmp")  # fsio.sweep_folder_temps
    try:
        os.makedirs(folder, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)  # left by a killed hook that had this pid
        with os.fdopen(os.open(temp, _NEW, 0o600), "wb") as out:
            out.write(text.encode("utf-8", "surrogatepass"))
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)


class LedgerLines:
    """The ledger's lines that are clarity's, oldest first, each with the offset of its
    end; a damaged one is passed over. Read a piece at a time, never through a link nor
    from anything but a regular file; of a ledger past LEDGER_MOST, its newest
    LEDGER_MOST bytes (the oldest lines are passed over, never every one).

    inode, once read: which file was read (a compaction writes the ledger anew, so an
    offset into the old one says nothing of the new); size: its size when opened, or
    until, if given: the lines to that size only (a compaction's second reading)."""

    def __init__(self, state_dir: str, until: int | None = None) -> None:
        self.path = os.path.join(state_dir, LEDGER)
        self.inode = 0
        self.size = 0
        self.until = until

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        from clarity.fsio import READ_FLAGS

        try:
            fd = os.open(self.path, READ_FLAGS)
        except OSError:
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return  # a FIFO, a device: not clarity's ledger
            # To its size now: what hooks append meanwhile is the next reading's.
            size = info.st_size if self.until is None else min(self.until, info.st_size)
            self.inode, self.size = info.st_ino, size
            yield from _lines(fd, max(0, size - LEDGER_MOST), size)
        except OSError:
            return
        finally:
            os.close(fd)


def read_ledger(state_dir: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The ledger's lines (LedgerLines), where the file they came from does not matter."""
    return iter(LedgerLines(state_dir))


def _lines(fd: int, start: int, stop: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """The ledger's lines from start (a line begun before it is passed over) to stop."""
    position, end, rest = start, start, b""  # end: where the line at hand began
    first = start > 0  # the window may begin inside a line
    while position < stop:
        chunk = os.pread(fd, min(_CHUNK, stop - position), position)
        if not chunk:
            break
        position += len(chunk)
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()  # not ended yet: read on
        for raw in lines:
            end += len(raw) + 1
            line = None if first else _line(raw)
            first = False
            if line is not None:
                yield end, line
        if len(rest) > LINE_MOST:  # no line of clarity's: passed over to its end
            end, rest, first = position, b"", True


_CHUNK = 1 << 20


def _line(raw: bytes) -> dict[str, Any] | None:
    if len(raw) + 1 > LINE_MOST:
        return None
    with contextlib.suppress(ValueError, RecursionError):
        line = json.loads(raw)
        if (
            isinstance(line, dict)
            and line.get("event") in EVENTS
            and isinstance(line.get("at"), str)
            and isinstance(line.get("session"), str)
        ):
            return line
    return None
