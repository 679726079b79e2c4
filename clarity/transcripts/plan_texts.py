"""The texts of a plan a session approved or wrote, as transcripts tell them (SPEC 4.3).

Where the approved text is known, whether a plan changed since is judged on its
text, not its mtime: the texts here are known by their sha256 (store.text_digest).
And the first message of the chain that implements a plan approved with "clear
context", which names the plan by its slug and carries its text. Pure functions
on records already parsed.
"""

from __future__ import annotations

import re
from typing import Any

from clarity.transcripts.store import normal_time, text_digest

IMPLEMENT_PREFIX = "Implement the following plan:"
# Claude Code's note after the plan's text, from 2.1.3xx (before planContent was the rule).
_TRANSCRIPT_NOTE = "\n\n\nIf you need specific details from before exiting plan mode"
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")  # a plan file's name, less .md


def implementing(record: dict[str, Any]) -> tuple[str, str, str] | None:
    """(plan, time, text) of the first message of a chain that implements an approved
    plan: `Implement the following plan:` and the plan's text (also as `planContent` from
    2.1.29), in a session that names no plans directory; `slug` is the plan's name.
    None for any other record (a request blob has no time; a prompt may quote the words).
    """
    time = normal_time(record.get("timestamp"))
    slug = record.get("slug")
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # the text as a block
        texts = (b.get("text") for b in content if isinstance(b, dict))
        content = next((t for t in texts if isinstance(t, str)), None)
    if (
        record.get("type") != "user"
        or time is None
        or not isinstance(content, str)
        or not content.startswith(IMPLEMENT_PREFIX)
        or not isinstance(slug, str)
        or not _SLUG.fullmatch(slug)
    ):
        return None
    text = record.get("planContent")
    if not isinstance(text, str):
        # Before 2.1.29 the message alone: the plan's text, then at times a note of
        # Claude Code's ("If you need specific details ..., read the full transcript").
        text = content[len(IMPLEMENT_PREFIX) :].lstrip("\n")
        note = text.find(_TRANSCRIPT_NOTE)
        text = text if note == -1 else text[: note + 1]
    return f"{slug}.md", time, text


def digest_of(text: object) -> str:
    return text_digest(text) if isinstance(text, str) and text.strip() else ""


def text_after(tool: str, tool_input: dict[str, Any], sidecar: Any) -> str | None:
    """The file's text after a Write, Edit or MultiEdit, where the call and its result
    tell it (an edit's result carries the file as it was before: `originalFile`)."""
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    original = sidecar.get("originalFile") if isinstance(sidecar, dict) else None
    if not isinstance(original, str):
        return None
    edits = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
    if not isinstance(edits, list):
        return None
    text = original
    for change in edits:
        old = change.get("old_string") if isinstance(change, dict) else None
        new = change.get("new_string") if isinstance(change, dict) else None
        if not isinstance(old, str) or not isinstance(new, str) or old not in text:
            return None
        text = (
            text.replace(old, new)
            if change.get("replace_all") is True
            else text.replace(old, new, 1)
        )
    return text
