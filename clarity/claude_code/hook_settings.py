"""clarity's hooks in Claude Code's settings.json (issue 17; the approval ledger, issue 32).

Claude Code reads hooks from its settings files:

    {"hooks": {"SessionStart": [{"matcher": "startup|resume",
                                 "hooks": [{"type": "command", "command": "...",
                                            "timeout": 5}]}]}}

clarity's one command answers four events (EVENTS): SessionStart (its line; and a
session that "clear context" started, for the approval ledger), ExitPlanMode's
PreToolUse and PostToolUse (a plan shown, a plan approved), and SessionEnd (a session
"clear context" or /clear ended): the last three only for the ledger.

settings.json is the user's file, full of their own keys and hooks, so it is
edited, never replaced: clarity adds or updates its one entry (known by the
`-m clarity.hook` its command ends with), keeps every other key, hook and the
order of keys and the spelling of every number (clarity.settings.files), and
writes the result atomically. A file that is not a JSON object is refused with
nothing written: clarity will not guess at what it meant.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarity.errors import ClarityError
from clarity.executable import unsafe_character
from clarity.managed import Outcome, write_text
from clarity.settings.files import dump_json, indent_of, parse_json, read_settings_text

EVENT = "SessionStart"
MATCHER = "startup|resume|clear"  # a session that starts, comes back, or "clear context" began
# Each event clarity's hook answers, and its matcher (None: every one). A ledger line for
# ExitPlanMode only, and for a session that ends by "clear context" (or /clear).
EVENTS: dict[str, str | None] = {
    EVENT: MATCHER,
    "PreToolUse": "ExitPlanMode",
    "PostToolUse": "ExitPlanMode",
    "SessionEnd": None,
}
TIMEOUT_SECONDS = 5  # Claude Code stops the hook after this; the hook itself gives up sooner
HOOK_MODULE = "clarity.hook"
_GUARD = " 2>/dev/null || true"  # clarity uninstalled, its Python gone: the hook says nothing
_OURS = re.compile(
    r"(^|\s)-m\s+" + re.escape(HOOK_MODULE) + r"\s*(" + re.escape(_GUARD.strip()) + r")?\s*$"
)


def hook_command(python: str) -> str:
    """The shell command Claude Code runs: this Python, quoted for the shell, and the
    hook module (not the clarity command: the hook never pays for typer and rich).
    -I: the project folder the session starts in is not on sys.path, so no file of
    its own (a json.py, a clarity/) is ever imported in clarity's place. Guarded: once
    clarity is uninstalled and its Python gone, the shell's "not found" is not said and
    the hook still ends well, at every session start and every plan shown (issue 36)."""
    if unsafe_character(python) is not None:
        raise ClarityError(
            f"the Python that runs clarity has a control character in its path ({python!r}); "
            "Claude Code's hook cannot run it: reinstall clarity under a plain path"
        )
    return shlex.join([python, "-I", "-m", HOOK_MODULE]) + _GUARD


def is_ours(hook: Any) -> bool:
    return (
        isinstance(hook, dict)
        and hook.get("type") == "command"
        and isinstance(hook.get("command"), str)
        and _OURS.search(hook["command"]) is not None
    )


@dataclass(frozen=True, slots=True)
class HookChange:
    path: Path
    outcome: Outcome


def _load(path: Path) -> dict[str, Any] | None:
    """The settings as a dict; None when there is no file."""
    try:
        text = read_settings_text(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise ClarityError(
            f"cannot read {path}: {reason or error}; fix it, then try again"
        ) from None
    try:
        settings = parse_json(text)
    except ValueError as error:
        raise ClarityError(
            f"{path}: {error}; clarity leaves it alone: fix it, then try again"
        ) from None
    if not isinstance(settings, dict):
        raise ClarityError(f"{path} is not a JSON object; clarity leaves it alone")
    return settings


def _groups(settings: dict[str, Any], path: Path, event: str = EVENT) -> list[Any] | None:
    hooks = settings.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise ClarityError(f'{path}: "hooks" is not an object; clarity leaves it alone')
    groups = hooks.get(event)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise ClarityError(f'{path}: "hooks.{event}" is not a list; clarity leaves it alone')
    return groups


def check_settings(path: Path) -> None:
    """Refuse, before anything is written, a settings file clarity could not edit."""
    settings = _load(path)
    if settings is not None:
        for event in EVENTS:
            _groups(settings, path, event)


def _save(path: Path, settings: dict[str, Any]) -> None:
    """The settings written back in the indent the file had (a person's 4 spaces stay)."""
    try:
        indent = indent_of(read_settings_text(path))
    except (OSError, UnicodeDecodeError):
        indent = "  "
    write_text(path, dump_json(settings, indent))


def _entry(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}


def add_hook(path: Path, command: str) -> HookChange:
    """Add clarity's hooks (EVENTS) to the settings file at path, or bring them up to date;
    every other key and hook stays as it was."""
    settings = _load(path)
    created = settings is None
    if settings is None:
        settings = {}
    for event in EVENTS:
        _groups(settings, path, event)  # every event checked before anything changes
    outcomes = {_add(settings, path, event, matcher, command) for event, matcher in EVENTS.items()}
    if outcomes == {Outcome.UNCHANGED}:
        return HookChange(path, Outcome.UNCHANGED)
    if created:
        _remember_created(path)
    _save(path, settings)
    fresh = outcomes == {Outcome.INSTALLED}  # none was there: installed; else brought up to date
    return HookChange(path, Outcome.INSTALLED if fresh else Outcome.UPDATED)


def _add(
    settings: dict[str, Any], path: Path, event: str, matcher: str | None, command: str
) -> Outcome:
    """clarity's hook for one event, added or brought up to date in settings (not saved)."""
    groups = _groups(settings, path, event)
    wanted = _entry(command)
    found = _ours_in(groups or [])
    if found:
        (group, index), *extra = found
        if not extra and group["hooks"][index] == wanted and group.get("matcher") == matcher:
            return Outcome.UNCHANGED
        _drop(groups or [], extra)
        group["hooks"][index] = wanted
        if matcher is None:
            group.pop("matcher", None)
        else:
            group["matcher"] = matcher
        return Outcome.UPDATED
    if groups is None:
        hooks = settings.setdefault("hooks", {})
        groups = hooks.setdefault(event, [])
    groups.append(
        {"hooks": [wanted]} if matcher is None else {"matcher": matcher, "hooks": [wanted]}
    )
    return Outcome.INSTALLED


def _ours_in(groups: list[Any]) -> list[tuple[dict[str, Any], int]]:
    """Where clarity's hooks are among the SessionStart groups: (group, index) pairs."""
    return [
        (group, index)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for index, hook in enumerate(group["hooks"])
        if is_ours(hook)
    ]


def _drop(groups: list[Any], places: list[tuple[dict[str, Any], int]]) -> None:
    """Take the hooks at places out; a group left with no hook goes too."""
    for group, index in sorted(places, key=lambda place: -place[1]):
        del group["hooks"][index]
    groups[:] = [
        group
        for group in groups
        if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)) or group["hooks"]
    ]


def remove_hook(path: Path) -> HookChange:
    """Take clarity's hooks out of the settings file; nothing else changes."""
    settings = _load(path)
    if settings is None:
        return HookChange(path, Outcome.ABSENT)
    for event in EVENTS:
        _groups(settings, path, event)  # every event checked before anything changes
    removed = False
    for event in EVENTS:
        groups = _groups(settings, path, event)
        places = _ours_in(groups or [])
        if not groups or not places:
            continue
        _drop(groups, places)
        removed = True
        hooks = settings["hooks"]
        if not groups:
            del hooks[event]
        if not hooks:
            del settings["hooks"]
    if not removed:
        return HookChange(path, Outcome.ABSENT)
    if not settings and _forget_created(path):  # clarity made it for its hooks alone
        path.unlink()
    else:  # the person's file, even an empty one, stays theirs
        _save(path, settings)
    return HookChange(path, Outcome.REMOVED)


_CREATED = "settings-files-created.json"  # in clarity's state: settings files it made


def _created_files() -> tuple[Path, list[str]]:
    from clarity.settings.locations import state_dir

    record = state_dir() / _CREATED
    try:
        listed = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        listed = []
    return record, [str(item) for item in listed] if isinstance(listed, list) else []


def _remember_created(path: Path) -> None:
    """That clarity made this settings file (for its hooks): removing them may remove it."""
    from clarity.fsio import write_atomic

    record, listed = _created_files()
    if str(path) not in listed:
        record.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(record, json.dumps([*listed, str(path)]).encode())


def _forget_created(path: Path) -> bool:
    """Whether clarity made this settings file (and it is forgotten now)."""
    from clarity.fsio import write_atomic

    record, listed = _created_files()
    if str(path) not in listed:
        return False
    write_atomic(record, json.dumps([item for item in listed if item != str(path)]).encode())
    return True
