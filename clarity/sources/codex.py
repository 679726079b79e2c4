"""Codex CLI's plans: an agent that writes no plan file, whose plans clarity extracts.

What Codex CLI writes (read in `@openai/codex` 0.171.0 and seen in fixtures/codex,
recorded from the real client offline):
- Home: `$CODEX_HOME`, else `~/.codex`. Each session is one JSON-lines rollout,
  `sessions/YYYY/MM/DD/rollout-<start>-<session id>.jsonl` (`archived_sessions/` once a
  person archives it), each line `{timestamp, type, payload}`: `session_meta` (its
  `id` and `cwd`) first.
- A plan: in plan mode the model answers with a `<proposed_plan>` block, and the rollout
  gets `event_msg` `item_completed` with `{"type": "Plan", "id", "text"}`. There is no
  file: the plan lives only in the rollout.
- Approval: the dialog's "implement" switches the thread back to the default mode and
  sends the user message "Implement the plan."; "clear context and implement" writes
  the plan to `attachments/<uuid>/approved-plan.md` and starts a new thread whose first
  message is "Read the approved plan at <path> and implement it.". A refusal writes
  nothing (the person's feedback is one more plan-mode turn).
- The work: `item_completed` `FileChange` items (`changes`: the files, `status`
  completed) after the approval; `update_plan` calls (off by default) carry the steps
  and their status.

clarity never writes in `~/.codex`. Each plan item is extracted, once, into a plans
folder of clarity's own (`codex/plans/` in the user's archive), named by its date and
first heading (`2026-11-28-greeting-plan.md`), its mtime the moment Codex showed it:
from there it is judged, archived and trashed as any plan, and never extracted again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarity.dates import stamp_seconds
from clarity.model import NO_SESSIONS, PlanSessions, SessionEvidence
from clarity.settings.locations import Origin, Source, absolute, default_archive_dir, is_folder
from clarity.sources import Found, PlansRoot
from clarity.sources.defaults import PlainSource
from clarity.transcripts.store import text_digest

if TYPE_CHECKING:
    from clarity.settings.config import Settings

NAME = "codex"
LABEL = "Codex"
IMPLEMENT = "Implement the plan."
FRESH_THREAD = re.compile(r"^Read the approved plan at (.+) and implement it\.$", re.S)
ROLLOUT_MOST = 512 * 1024 * 1024
ATTACHMENT_MOST = 8 * 1024 * 1024
EXTRACTED = "codex.json"  # in the folder's state: what was extracted, and each rollout's facts
FORMAT = 1


class Codex(PlainSource):
    """Codex CLI's plans, as the module says."""

    name = NAME
    label = LABEL
    may_move = True  # the folder is clarity's own: Codex's rollouts are never written

    def folders(self, settings: Settings, home: Path) -> Found:
        codex = codex_home(home)
        if not any(is_folder(codex / place) for place in ("sessions", "archived_sessions")):
            return Found((), ())
        plans = extracted_dir(settings, home)
        how = f"Codex's plans, extracted by clarity from the sessions in {codex}"
        archive = default_archive_dir(plans)
        why = Source(
            f"beside the folder of Codex's plans clarity extracted, {plans}", Origin.DEFAULT
        )
        return Found((PlansRoot(plans, how, archive, why, codex, None, NAME),), ())

    def root_of(self, settings: Settings, plans_dir: Path) -> PlansRoot | None:
        return None  # the folder is clarity's: its archive is beside it, as any plans folder's

    def claims(self, plans_dir: Path) -> bool:
        return plans_dir.name == "plans" and plans_dir.parent.name == NAME

    def prepare(self, settings: Settings) -> tuple[str, ...]:
        """Extract the plan items of rollouts new or grown since the last time into the
        folder (never twice: a plan archived or trashed stays so)."""
        return extract(settings.claude_dir, settings.plans_dir)

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        known = _load(settings.plans_dir)
        if not known["plans"]:
            return NO_SESSIONS
        return weigh(known, now.timestamp(), settings.protect_hours)


def codex_home(home: Path) -> Path:
    return Path(os.environ.get("CODEX_HOME") or home / ".codex")


def extracted_dir(settings: Settings, home: Path) -> Path:
    """`codex/plans` in the user's archive (the configured one, or the one beside
    `~/.claude/plans`)."""
    source = settings.sources["archive_dir"]
    user = (
        settings.archive_dir if source.chosen else default_archive_dir(home / ".claude" / "plans")
    )
    return absolute(user) / NAME / "plans"


def _state_file(plans_dir: Path) -> Path:
    from clarity.state import DirState

    return DirState.for_plans_dir(plans_dir).root / EXTRACTED


def _load(plans_dir: Path) -> dict[str, Any]:
    from clarity.fsio import read_regular

    empty: dict[str, Any] = {"format": FORMAT, "plans": {}, "rollouts": {}}
    try:
        known = json.loads(read_regular(_state_file(plans_dir), ROLLOUT_MOST))
    except (OSError, ValueError, RecursionError):
        return empty
    if not isinstance(known, dict) or known.get("format") != FORMAT:
        return empty
    return known


def extract(codex: Path, plans_dir: Path) -> tuple[str, ...]:
    """Each plan item of a rollout not seen before written into plans_dir (an atomic,
    exclusive create), and every rollout's facts recorded; the notes to say."""
    from clarity.fsio import write_atomic

    known = _load(plans_dir)
    plans: dict[str, Any] = known["plans"]
    rollouts: dict[str, Any] = known["rollouts"]
    notes: list[str] = []
    changed = False
    for rollout in _rollouts(codex):
        try:
            info = rollout.stat()
        except OSError:
            continue
        stamp = [info.st_size, info.st_mtime_ns]
        key = os.fspath(rollout)
        if rollouts.get(key, {}).get("stamp") == stamp:
            continue
        facts = read_rollout(rollout, codex)
        if facts is None:
            notes.append(f"{rollout}: not read (past {ROLLOUT_MOST // 2**20} MiB, or unreadable)")
            continue
        changed = True
        for item in facts["plans"]:
            text = item.pop("text")  # in the file it goes to; the state keeps its sha alone
            if item["id"] not in plans:
                name = _write_plan(plans_dir, item, text)
                if name is None:
                    notes.append(f"the Codex plan {item['id']} could not be written to {plans_dir}")
                    continue
                plans[item["id"]] = {"name": name, "sha": item["sha"], "at": item["at"]}
        rollouts[key] = {**facts, "stamp": stamp}
    if changed:
        path = _state_file(plans_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(known, ensure_ascii=True).encode("ascii") + b"\n")
    return tuple(notes)


def _rollouts(codex: Path) -> Iterator[Path]:
    for place in ("sessions", "archived_sessions"):
        folder = codex / place
        if is_folder(folder):
            yield from sorted(folder.rglob("rollout-*.jsonl"))


def _write_plan(plans_dir: Path, item: Mapping[str, Any], text: str) -> str | None:
    """The plan's text in a new file named by its date and first heading (`-2`, `-3`...
    beside one of that name), whole or not at all; its name, None if it could not be."""
    from clarity.fsio import sweep_temps, write_new

    day = datetime.fromtimestamp(item["at"], UTC).date().isoformat()
    stem = f"{day}-{_slug(text)}"
    names = [plans_dir / f"{stem}.md", *(plans_dir / f"{stem}-{n}.md" for n in range(2, 1000))]
    try:
        plans_dir.mkdir(parents=True, exist_ok=True)
        sweep_temps(names[0])
        # surrogatepass: as text_digest reads it (JSON may hold half a UTF-16 pair)
        return write_new(names, text.encode("utf-8", "surrogatepass"), mtime=item["at"]).name
    except OSError:
        return None


def _slug(text: str) -> str:
    heading = next((line for line in text.splitlines() if line.strip()), "plan")
    words = re.sub(r"[^a-z0-9]+", "-", heading.lstrip("#").strip().lower()).strip("-")
    return words[:60].rstrip("-") or "plan"


def read_rollout(path: Path, codex: Path) -> dict[str, Any] | None:
    """What one rollout says: its session, folder, last moment, each plan item and what
    followed it (approval, files changed, update_plan steps), and a fresh thread's plan."""
    from clarity.fsio import read_regular

    try:
        data = read_regular(path, ROLLOUT_MOST)
    except (OSError, ValueError):
        return None
    facts: dict[str, Any] = {"session": "", "cwd": None, "last": 0.0, "plans": [], "fresh": None}
    items: dict[str, dict[str, Any]] = {}
    latest: str | None = None  # the plan a "Implement the plan." approves
    working: dict[str, Any] | None = None  # what the work that follows is for
    first_user = True
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or not isinstance(record.get("payload"), dict):
            continue
        payload, kind = record["payload"], record.get("type")
        at = stamp_seconds(record.get("timestamp"))
        if at is not None:
            facts["last"] = max(facts["last"], at)
        if kind == "session_meta":
            facts["session"] = str(payload.get("id") or payload.get("session_id") or "")
            facts["cwd"] = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        elif kind == "event_msg" and payload.get("type") == "item_completed":
            item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
            if item.get("type") == "Plan" and isinstance(item.get("text"), str) and item.get("id"):
                plan = {"id": str(item["id"]), "text": item["text"], "at": at or 0.0}
                plan |= {
                    "sha": text_digest(item["text"]),
                    "approved": None,
                    "files": [],
                    "todos": None,
                }
                items[plan["id"]] = plan
                facts["plans"].append(plan)
                latest, working = plan["id"], None  # planning again: earlier work has ended
            elif item.get("type") == "FileChange" and item.get("status") == "completed":
                changes = item.get("changes")
                if working is not None and isinstance(changes, dict):
                    working["files"] = sorted({*working["files"], *map(str, changes)})
        elif kind == "response_item" and payload.get("type") == "message":
            text = _user_text(payload)
            if text is None:
                continue
            if text.startswith("<environment_context>"):
                continue  # what Codex tells the model, not the person
            fresh = FRESH_THREAD.match(text.strip()) if first_user else None
            first_user = False
            if text.strip() == IMPLEMENT and latest is not None:
                working = items[latest]
                working["approved"] = at
            elif fresh is not None:
                attached = _attachment_sha(Path(fresh.group(1).strip()), codex)
                working = {"sha": attached, "approved": at, "files": [], "todos": None}
                facts["fresh"] = working
        elif kind == "response_item" and _is_update_plan(payload) and working is not None:
            working["todos"] = _steps(payload.get("arguments"))
    return facts


def _is_update_plan(payload: Mapping[str, Any]) -> bool:
    return payload.get("type") == "function_call" and payload.get("name") == "update_plan"


def _user_text(payload: Mapping[str, Any]) -> str | None:
    if payload.get("role") != "user":
        return None
    parts = payload.get("content")
    if not isinstance(parts, list):
        return None
    texts = [
        str(p["text"]) for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    ]
    return "".join(texts) if texts else None


def _steps(arguments: object) -> list[int] | None:
    try:
        document = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        return None
    steps = document.get("plan") if isinstance(document, dict) else None
    if not isinstance(steps, list) or not steps:
        return None
    done = sum(1 for s in steps if isinstance(s, dict) and s.get("status") == "completed")
    return [done, len(steps)]


def _attachment_sha(path: Path, codex: Path) -> str | None:
    """The sha256 of the approved plan Codex attached, if it is Codex's and still there."""
    from clarity.fsio import read_regular

    if not os.path.realpath(path).startswith(os.path.realpath(codex) + os.sep):
        return None
    try:
        return hashlib.sha256(read_regular(path, ATTACHMENT_MOST)).hexdigest()
    except (OSError, ValueError):
        return None


def _attached(plans: Iterable[Mapping[str, Any]], fresh: Mapping[str, Any]) -> str | None:
    """The plan a fresh thread implements: of those holding the text it attached, the one
    Codex showed last before it."""
    before = fresh.get("approved") or 0.0
    same = [p for p in plans if p["sha"] == fresh.get("sha") and p.get("at", 0.0) <= before]
    return max(same, key=lambda p: p.get("at", 0.0))["name"] if same else None


def weigh(known: Mapping[str, Any], now: float, protect_hours: float) -> PlanSessions:
    """Each extracted plan's latest approval and the work after it, from the rollouts'
    recorded facts; a fresh thread counts for the plan whose text it attached."""
    names: dict[str, str] = {i: p["name"] for i, p in known["plans"].items()}
    evidence: dict[str, SessionEvidence] = {}
    projects: dict[str, str] = {}
    in_use: dict[str, str] = {}
    presented: set[str] = set()
    for facts in known["rollouts"].values():
        session, last = facts["session"], facts["last"]
        found: list[tuple[str, dict[str, Any], bool]] = [
            (names[p["id"]], p, False) for p in facts["plans"] if p["id"] in names
        ]
        fresh = facts.get("fresh")
        attached = None if not fresh else _attached(known["plans"].values(), fresh)
        if fresh and attached is not None:
            found.append((attached, fresh, True))
        for name, seen, after_clear in found:
            presented.add(name)
            if facts.get("cwd"):
                projects.setdefault(name, facts["cwd"])
            if now - last < protect_hours * 3600:
                in_use[name] = session
            if seen.get("approved") is None:
                continue
            todos = seen.get("todos")
            found_evidence = SessionEvidence(
                session=session,
                approved_at=seen["approved"],
                files_edited=len(seen.get("files") or ()),
                todos=None if todos is None else (todos[0], todos[1]),
                last_activity=last,
                after_clear=after_clear,
                texts=frozenset({seen["sha"]}),
            )
            earlier = evidence.get(name)
            if earlier is None or earlier.approved_at <= found_evidence.approved_at:
                evidence[name] = found_evidence
    return PlanSessions(
        in_use, frozenset(), evidence=evidence, projects=projects, presented=frozenset(presented)
    )
