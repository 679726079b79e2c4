"""`python -I -m clarity.hook`: Claude Code's SessionStart hook (issue 17).

At the start of a session it says one line, and only when something is worth
saying: plans ready to archive, or plans Claude Code's own cleanup deletes
within a week. Claude Code shows a hook's `systemMessage` to the user and adds
its `additionalContext` to the session; stdout that is not that JSON would go
to Claude only.

It must be quick and must never fail a session:
- Every session start stats the plans directory and the settings files that
  choose it, and, when none changed since the last scan today (and that scan
  is at most MEMO_SECONDS old), says what that scan found. This module imports
  nothing but the standard library and clarity.render.output: no typer, no rich, no
  classifier.
- Otherwise it scans (clarity.workflows.session_start, with the facts cache, so unchanged
  plans are not read again), remembers the result, and says it. That takes
  longer; past DEADLINE_SECONDS it gives up, keeping what it read, hands the rest to a
  detached continuation (hook_background), and says what it knows at once: the plans
  Claude Code's cleanup deletes within the week, by their age. The next start says
  the continuation's whole finding.
- Anything that goes wrong ends the hook with exit 0 and nothing said.
"""

# ruff: noqa: PTH109, PTH112, PTH117, PTH118
# (os.path, not pathlib: importing pathlib alone costs this hook a fifth of its time)

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

from clarity.claude_code.hook_memo import MEMO_FILE, load_memo, memo_key, save_memo, state_dir
from clarity.workflows.session_watch import HORIZON_DAYS, listing, stamp

MEMO_SECONDS = 4 * 3600  # a scan's finding is said again for this long, the same day only
DONE_AT_LEAST = 3  # fewer completed plans are not worth a line of their own
# A scan that takes longer is given up and handed to a continuation (issue 45: a session
# start answers within 1.5 s, imports and GRACE_SECONDS included; Claude Code's timeout is 5).
DEADLINE_SECONDS = 0.8
KEEP_SHARE = 0.5  # of the deadline, for keeping the texts of plans near Claude Code's cleanup
GRACE_SECONDS = 0.4  # then to keep what it read and say what it knows, or stop at once
# An ExitPlanMode approval carries the plan twice (tool_input and tool_response): real
# plans of 40-70 KiB make events of 80-140 KiB. An event past this is not read at all.
MAX_INPUT = 16 << 20
INPUT_SECONDS = 1.0  # Claude Code writes the event and closes stdin at once


def hook_input(stream: TextIO, wait: float = INPUT_SECONDS) -> dict[str, Any] | None:
    """What Claude Code sends on stdin (session_id, cwd, source, ...): {} when nothing came
    (the hook run by hand); None when what came is not one whole JSON object (cut off past
    MAX_INPUT, or by `wait` running out on a stdin left open): no event can be told from
    it, and it is never taken for a session start."""
    try:
        text = _read_within(stream, wait)
    except OSError:
        return None
    if text is None:
        return None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _read_within(stream: TextIO, wait: float) -> str | None:
    """Stdin, up to its end or `wait` seconds; None past MAX_INPUT bytes."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return _read_bounded(stream)  # not a file (a test's StringIO): read as it is
    import select

    chunks: list[bytes] = []
    size, end = 0, time.monotonic() + wait
    while True:
        left = end - time.monotonic()
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
        except (OSError, ValueError):  # select cannot wait on it (Windows pipes)
            return _read_bounded(stream)
        if not ready:
            break  # stdin left open: what came is read as it is (JSON or not)
        chunk = os.read(fd, MAX_INPUT + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_INPUT:
            return None
    return b"".join(chunks).decode("utf-8", "replace")


def _read_bounded(stream: TextIO) -> str | None:
    text = stream.read(MAX_INPUT + 1)
    return None if len(text) > MAX_INPUT else text


def project_dir(data: Mapping[str, Any]) -> str:
    """The session's working directory, as Claude Code reports it; else this process's."""
    cwd = data.get("cwd")
    if isinstance(cwd, str) and "\0" not in cwd and os.path.isabs(cwd) and os.path.isdir(cwd):
        return cwd
    return os.getcwd()


def line(
    done: int, deadlines: list[float], now: float, kept: int = 0, *, keeping: bool = False
) -> str | None:
    """The one line, or None when there is nothing worth saying. Plans are counted as the
    scan counts them (each file, sub-plans too); what Claude Code will delete is said in
    the future, with the nearest deadline, and whether clarity kept their text (kept: the
    plans near the cleanup whose text is kept; keeping: it is at it in the background)."""
    at_risk = at_risk_of(deadlines, now)
    parts = []
    if done >= DONE_AT_LEAST or (done and at_risk):
        parts.append(f"{_plans(done)} done")
    if at_risk:
        saved = ""
        if keeping:
            saved = f" (clarity is keeping {'their' if len(at_risk) > 1 else 'its'} text now)"
        elif kept >= len(at_risk):
            saved = " (clarity kept their text)" if len(at_risk) > 1 else " (clarity kept its text)"
        elif kept:
            saved = f" (clarity kept the text of {kept})"
        parts.append(f"Claude Code will delete {_due(at_risk, now)}{saved}")
    if not parts:
        return None
    return "clarity: " + "; ".join(parts) + ": /clarity to review them"


def at_risk_of(deadlines: list[float], now: float) -> list[float]:
    return sorted(d for d in deadlines if d - now < HORIZON_DAYS * 86400)


def _plans(count: int) -> str:
    return f"{count} plan{'s' if count != 1 else ''}"


def _due(at_risk: list[float], now: float) -> str:
    """`3 plans within 5 days, the first within a day`: in the whole days the scan report
    gives (rounded down, as cleanup_in_days); a day past means at Claude Code's next start."""
    days = [math.floor(round((d - now) / 86400, 6)) for d in at_risk]  # soonest first
    past = sum(1 for day in days if day < 0)

    def when(day: int) -> str:
        if day < 0:
            return "at its next start"
        return "within a day" if day == 0 else f"in {day} day{'s' if day != 1 else ''}"

    count = _plans(len(days))
    if days[0] == days[-1] or past == len(days):
        return f"{count} {when(days[-1])}"
    span = (
        "within a day" if days[-1] == 0 else f"within {days[-1]} day{'s' if days[-1] != 1 else ''}"
    )
    if past:
        return f"{count} {span}, {past} of them at its next start"
    return f"{count} {span}, the first {when(days[0])}"


def new_to_say(entry: Mapping[str, Any], said: Any, now: float, day: str) -> bool:
    """Whether the line is worth saying again: once a day, and again that day only when a
    plan is newly due (newly within the week of Claude Code's cleanup, or past it)."""
    due = sorted(_due_keys(entry, now))
    if not isinstance(said, dict) or said.get("day") != day:
        return True
    if said.get("partial") and not entry.get("partial"):
        return True  # a start cut short said what it knew: the whole finding, once
    return not set(map(tuple, due)) <= {tuple(key) for key in said.get("due", [])}


def _said_due(entry: Mapping[str, Any], said: Any, now: float, day: str) -> list[list[int]]:
    """The plans said to be due today, this line's with those said before it today: a start
    cut short counts stale stubs the whole finding leaves out, and they are not newly due
    when the next start cut short counts them again."""
    due = {tuple(key) for key in _due_keys(entry, now)}
    if isinstance(said, dict) and said.get("day") == day:
        due |= {tuple(key) for key in said.get("due", []) if isinstance(key, list)}
    return [list(key) for key in sorted(due)]


def _due_keys(entry: Mapping[str, Any], now: float) -> list[list[int]]:
    return [[round(d), int(d < now)] for d in at_risk_of(list(entry["deadlines"]), now)]


def is_fresh(entry: Mapping[str, Any], now: float, day: str) -> bool:
    return (
        entry.get("day") == day
        and not entry.get("keep_left")  # texts left to keep: this start keeps them
        and 0 <= now - float(entry["made"]) < MEMO_SECONDS
        and all(stamp(path) == was for path, was in entry["watch"])
        and listing(entry["plans_dir"]) == entry["listing"]
        # the user's default plans, when the project keeps its own elsewhere
        and all(listing(folder) == was for folder, was in entry.get("also", ()))
    )


def deadline(env: Mapping[str, str]) -> float:
    """DEADLINE_SECONDS, or CLARITY_HOOK_DEADLINE's seconds where a person (or a test) set
    a shorter one; longer than Claude Code's own timeout allows is not honoured."""
    try:
        seconds = float(env.get("CLARITY_HOOK_DEADLINE", ""))
    except ValueError:
        return DEADLINE_SECONDS
    return seconds if 0 < seconds < DEADLINE_SECONDS else DEADLINE_SECONDS


class Deadline(BaseException):
    """The scan ran past DEADLINE_SECONDS. Not an OSError (TimeoutError is one), nor an
    Exception: no `except OSError` on the scan's way may swallow it."""


def _give_up(signum: int, frame: object) -> None:
    import signal

    signal.signal(signal.SIGALRM, _stop_now)
    signal.setitimer(signal.ITIMER_REAL, GRACE_SECONDS)  # to keep what the scan read
    raise Deadline


def _stop_now(signum: int, frame: object) -> None:
    os._exit(0)  # the hook's own timeout is near: say nothing, leave at once


def _bound(seconds: float) -> None:
    """Interrupt what runs after seconds (0: no longer). The scan then keeps what it read
    (its files are written whole or not at all) within GRACE_SECONDS, or is stopped."""
    import signal

    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _give_up)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def finding(data: Mapping[str, Any], env: Mapping[str, str], now: float) -> tuple[str, bool] | None:
    """The line to say at this session start, and whether plans are due (Claude Code
    deletes some within the week); None when nothing is worth saying."""
    cwd = project_dir(data)
    day = time.strftime("%Y-%m-%d", time.localtime(now))
    memo_path = os.path.join(state_dir(env), MEMO_FILE)
    memo = load_memo(memo_path)
    key = memo_key(cwd, env)
    entry = memo.get(key)
    said = entry.get("said") if isinstance(entry, dict) else None
    text, fresh = None, False
    try:
        if isinstance(entry, dict) and is_fresh(entry, now, day):
            entry["deadlines"] = [float(d) for d in entry["deadlines"]]
            kept = int(entry.get("kept", 0))
            text, fresh = line(int(entry["done"]), entry["deadlines"], now, kept), True
    except (KeyError, TypeError, ValueError):
        pass  # an entry of another version: scan again
    if not fresh:
        from clarity.claude_code import hook_background

        if hook_background.busy(state_dir(env)):
            return None  # a start cut short handed its work on, and it is not done yet
        from clarity.workflows.session_start import summarize

        seconds = deadline(env)
        try:
            _bound(seconds)  # the scan's own time: the imports above take a steady 0.1 s
            # Keeping texts takes at most KEEP_SHARE of it (what is left, goes on after).
            entry = summarize(cwd, env, now, time.monotonic() + seconds * KEEP_SHARE)
        except Deadline:
            hook_background.spawn(cwd, env)  # goes on detached: the next start answers
            return _cut_short(cwd, env, now, day, said)
        _bound(0)
        if entry["keep_left"]:  # texts near the cleanup not kept in time: kept detached
            hook_background.spawn(cwd, env)
        entry["day"] = day
        text = line(entry["done"], entry["deadlines"], now, entry["kept"])
    assert isinstance(entry, dict)
    worth = text is not None and new_to_say(entry, said, now, day)
    if worth:
        said = {"day": day, "due": _said_due(entry, said, now, day)}
    if worth or not fresh:
        entry["said"] = said
        save_memo(memo_path, memo, key, entry)
    if not worth or text is None:
        return None
    return text, bool(at_risk_of(list(entry["deadlines"]), now))


def _cut_short(
    cwd: str, env: Mapping[str, str], now: float, day: str, said: Any
) -> tuple[str, bool] | None:
    """What a start cut short by its deadline says (issue 45): the plans Claude Code's
    cleanup deletes within the week, by their age alone, and that clarity is keeping
    their text (the continuation it handed its work to is at it). Said once a day, as
    any line; the continuation says the rest at the next start."""
    from clarity.workflows.session_start import due_by_age

    deadlines = due_by_age(cwd, env, now)
    _bound(0)  # what is left is quick: never cut in the middle of saying it
    text = line(0, deadlines, now, keeping=True)
    known = {"deadlines": deadlines, "partial": True}
    if text is None or not new_to_say(known, said, now, day):
        return None
    memo_path = os.path.join(state_dir(env), MEMO_FILE)
    memo = load_memo(memo_path)
    key = memo_key(cwd, env)
    was = memo.get(key)
    # said, and nothing else: the entry stays one no start takes as fresh
    entry = {
        **(was if isinstance(was, dict) else {}),
        "said": {"day": day, "due": _said_due(known, said, now, day), "partial": True},
    }
    save_memo(memo_path, memo, key, entry)
    return text, bool(at_risk_of(deadlines, now))


# Events the hook only records in the approval ledger: ExitPlanMode's (its matcher), and
# the end of a session (one "clear context" or /clear ends: the ledger tells them apart).
TOOL_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "SessionEnd")
PLUGIN_FLAG = "--plugin"  # the plugin's hooks.json runs the hook with it
PLUGIN_KEY = "clarity@"  # enabledPlugins' key of the plugin, from any marketplace


def plugin_enabled(env: Mapping[str, str]) -> bool:
    """Whether the clarity plugin is enabled in the person's Claude Code settings: then its
    hook says the line, and a hook install-command added says nothing (never twice)."""
    claude_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME", ""), ".claude")
    settings = load_memo(os.path.join(claude_dir, "settings.json"))  # a bounded JSON read
    enabled = settings.get("enabledPlugins")
    if not isinstance(enabled, dict):
        return False
    return any(str(key).startswith(PLUGIN_KEY) and on is True for key, on in enabled.items())


def ledger(data: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """The approval ledger's line for this event, if it is one (ExitPlanMode shown or
    approved, a session started by "clear context"): written before anything else, and
    never in the way of the session (SPEC 6.1)."""
    from clarity.workflows.approvals import record_event

    with contextlib.suppress(OSError, ValueError):
        record_event(data, state_dir(env))


def run(stdin: TextIO, env: Mapping[str, str], argv: list[str]) -> None:
    from clarity.claude_code.hook_background import FLAG, continue_work

    if argv[:1] == [FLAG] and len(argv) == 2:  # a start cut short handed its work on
        continue_work(argv[1], env)
        return
    if PLUGIN_FLAG not in argv and plugin_enabled(env):
        return
    data = hook_input(stdin)
    if data is None:
        return  # no whole event: whatever it was, nothing to record and nothing to say
    event = data.get("hook_event_name")
    if event in TOOL_EVENTS:
        ledger(data, env)  # ExitPlanMode shown or approved, a session ended: nothing said
        return
    if event not in (None, "SessionStart"):
        return  # an event this hook is not for: it never answers as a session start
    if data.get("source") == "clear":  # "clear context" began it: recorded, nothing said
        ledger(data, env)
        return
    now = time.time()
    found = finding(data, env, now)
    if found is None:
        return
    said, due = found
    from clarity.render.output import say

    document: dict[str, Any] = {"systemMessage": said}
    if due:  # plans Claude Code is about to delete: Claude should know it too
        document["hookSpecificOutput"] = {
            "hookEventName": "SessionStart",
            "additionalContext": said,
        }
    say([json.dumps(document)])  # ASCII: every character outside it is escaped


def main() -> int:
    """Exit 0 whatever happens: a hook that fails must not fail the session."""
    with contextlib.suppress(BaseException):  # anything at all, even an interrupt
        run(sys.stdin, os.environ, sys.argv[1:])
    return 0
