"""Gemini CLI's plans: a plan source whose folders are the agent's own session store.

What Gemini CLI writes (read in its bundle, `@google/gemini-cli` 0.61.0, `Storage`
and `sessionCleanup`, and seen in fixtures/gemini_cli, recorded from the real client):
- Home: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. A project's temporary folder is
  `tmp/<slug>/` (the project folder's name; `projects.json` maps projects to slugs, and
  `.project_root` in the folder names its project).
- Plans: `tmp/<slug>/<session uuid>/plans/<name the model chose>.md`, written with
  `write_file` (a revision overwrites it) or changed with `replace`; before sessions had
  folders, `tmp/<slug>/plans/`. A project's `general.plan.directory` (in its
  `.gemini/settings.json`, relative, inside the project) puts them there instead.
- Sessions: `tmp/<slug>/chats/session-<UTC date>T<HH-MM>-<first 8 of the uuid>.jsonl`,
  JSON lines: a head `{sessionId, lastUpdated, ...}`, messages, and `{"$set": ...}`
  updates. A model message carries `toolCalls[{id, name, args, result, status,
  timestamp}]`. Approval is the `exit_plan_mode` answer "Plan approved. ... The
  approved implementation plan is stored at: <path>"; a refusal, "Plan rejected. ..."
  (its status is `success` too: only the words tell them apart).
- Cleanup: at every start, a session whose `lastUpdated` is older than
  `general.sessionRetention.maxAge` (on by default, "30d") is deleted: its chat and
  its whole `<session uuid>/` folder, plans and all. A custom plans folder is never
  swept.
- Its folders are its own store: clarity never writes there. It keeps every plan's text
  (a version) at each run that writes, so that once Gemini CLI deletes a session, its
  plans are still found (`search`, `show`, `archived`, browse, MCP): such a session is
  a root that is `gone`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from clarity.dates import stamp_seconds
from clarity.fsio import ParsedFiles
from clarity.model import NO_SESSIONS, PlanSessions, Retention, SessionEvidence
from clarity.plans.reader import is_plan_name
from clarity.settings.locations import (
    Origin,
    Source,
    absolute,
    default_archive_dir,
    is_folder,
)
from clarity.sources import Found, PassedOver, PlansRoot
from clarity.sources.defaults import PlainSource
from clarity.state import DirState
from clarity.transcripts.store import text_digest
from clarity.transcripts.texts_seen import APPROVED as TEXT_APPROVED
from clarity.transcripts.texts_seen import FOLDER as TEXTS_FOLDER
from clarity.transcripts.texts_seen import WRITTEN, TextsSeen

if TYPE_CHECKING:
    from clarity.settings.config import Settings

NAME = "gemini-cli"
LABEL = "Gemini CLI"
SESSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
APPROVED = "Plan approved."
REJECTED = "Plan rejected."
STORED_AT = re.compile(r"plan is stored at: (.+)")
PLAN_WRITES = ("write_file", "replace")  # the tools that write a plan, and the work
SETTINGS_MOST = 1024 * 1024
CHAT_MOST = 256 * 1024 * 1024  # a chat past this is not read (said in a note)
MAX_AGE = re.compile(r"^(\d+)([dhwm])$")
UNIT_DAYS = {"h": 1 / 24, "d": 1.0, "w": 7.0, "m": 30.0}  # as Gemini CLI counts them
DEFAULT_MAX_AGE = "30d"


class GeminiCli(PlainSource):
    """Gemini CLI's plans, as the module says."""

    name = NAME
    label = LABEL
    may_move = False

    def folders(self, settings: Settings, home: Path) -> Found:
        found: dict[str, PlansRoot] = {}
        passed: list[PassedOver] = []
        tmp = gemini_home(home) / "tmp"
        archives = _archives(settings, home)
        for slug, temp in _project_temps(tmp):
            project = _project_root(temp)
            where = f"project {project}" if project is not None else f"{temp}"
            for entry in _folders(temp):
                plans = temp / entry / "plans"
                if SESSION.fullmatch(entry) and is_folder(plans):
                    how = f"Gemini CLI session {entry[:8]} of {where}"
                    _add(found, plans, how, archives / slug / entry, temp, project)
            if is_folder(temp / "plans"):  # before sessions had folders of their own
                how = f"Gemini CLI's plans of {where}"
                _add(found, temp / "plans", how, archives / slug / "plans", temp, project)
            if project is not None:
                custom = _custom_plans_dir(project)
                if isinstance(custom, PassedOver):
                    passed.append(custom)
                elif custom is not None and is_folder(custom):
                    how = f"general.plan.directory of {project}"
                    _add(found, custom, how, archives / slug / "project", temp, project)
        for root in _gone(archives, tmp, found):
            found[os.fspath(root.plans_dir)] = root
        return Found(tuple(found.values()), tuple(passed))

    def root_of(self, settings: Settings, plans_dir: Path) -> PlansRoot | None:
        """A session's plans folder (or one from before sessions had folders), with its
        archive in the user's: never one beside it, inside Gemini CLI's store."""
        plans_dir = absolute(plans_dir)
        session = plans_dir.parent.name
        if SESSION.fullmatch(session):
            temp, keeps = plans_dir.parent.parent, session
        elif plans_dir.parent.parent.name == "tmp":
            temp, keeps = plans_dir.parent, "plans"
        else:
            return None
        archive = _archives(settings, Path.home()) / temp.name / keeps
        how = f"Gemini CLI's plans of {temp}"
        gone = not os.path.lexists(plans_dir)
        why = Source(f"the user's archive, for {how}", Origin.DEFAULT)
        return PlansRoot(plans_dir, how, archive, why, temp, _project_root(temp), NAME, gone)

    def claims(self, plans_dir: Path) -> bool:
        parts = plans_dir.parts
        return len(parts) >= 5 and parts[-1] == "plans" and ".gemini" in parts[:-3]

    def sessions(
        self, settings: Settings, now: datetime, session: str | None, *, go_on: bool
    ) -> PlanSessions:
        """What the project's chats say about the plans of settings' plans folder (the
        folder whose chats tell is the project's temporary folder, `claude_dir`)."""
        return read_sessions(settings.claude_dir, settings.plans_dir, now, settings.protect_hours)

    def retention(self, settings: Settings, root: PlansRoot) -> Retention | None:
        session = root.plans_dir.parent.name
        if root.gone or not SESSION.fullmatch(session) or root.plans_dir.name != "plans":
            return None  # a custom folder, or one before sessions: never swept
        rule = session_retention(root.claude_dir.parent.parent)  # tmp/<slug> -> .gemini
        if rule is None:
            return None
        chat = _chat_of(root.claude_dir, session)
        last = None if chat is None else read_chat(chat).last_updated
        if last is None:
            return None  # no chat: its cleanup, which goes chat by chat, never reaches it
        return rule._replace(since=last)


def gemini_home(home: Path) -> Path:
    """Gemini CLI's own folder: `$GEMINI_CLI_HOME/.gemini`, else `<home>/.gemini`."""
    return Path(os.environ.get("GEMINI_CLI_HOME") or home) / ".gemini"


def session_retention(gemini: Path) -> Retention | None:
    """Gemini CLI's session cleanup as its user settings set it (None: turned off)."""
    path = gemini / "settings.json"
    general = _json_file(path).get("general")
    rule = general.get("sessionRetention") if isinstance(general, dict) else None
    rule = rule if isinstance(rule, dict) else {}
    if rule.get("enabled", True) is not True:
        return None
    value = rule.get("maxAge", DEFAULT_MAX_AGE)
    match = MAX_AGE.match(value) if isinstance(value, str) else None
    if match is None or int(match.group(1)) == 0:
        return None  # Gemini CLI turns its cleanup off for a value it cannot read
    days = int(match.group(1)) * UNIT_DAYS[match.group(2)]
    source = (
        f"general.sessionRetention.maxAge in {path}" if "maxAge" in rule else "Gemini CLI's default"
    )
    return Retention(days, source, who=LABEL)


class Call(NamedTuple):
    """One tool call of a chat, as its latest record has it."""

    name: str
    args: Mapping[str, object]
    status: str
    output: str
    at: float


class Chat(NamedTuple):
    session: str
    last_updated: float | None
    calls: tuple[Call, ...]
    project: str | None


_CHATS: ParsedFiles[Chat] = ParsedFiles()  # a long-running server reads a chat once a change
_NO_CHAT = Chat("", None, (), None)


def read_chat(path: Path) -> Chat:
    """A chat file's session, last activity and tool calls in order (each call once, as
    its last record has it: a model message is written again with its answers)."""
    return _CHATS.get(path, _read_chat, _NO_CHAT)


def _read_chat(path: Path) -> Chat:
    from clarity.fsio import read_regular

    try:
        data = read_regular(path, CHAT_MOST)
    except (OSError, ValueError):
        return _NO_CHAT
    session, last, project = "", None, None
    calls: dict[str, Call] = {}
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash: the others still tell
        if not isinstance(record, dict):
            continue
        update = record.get("$set")
        if isinstance(update, dict):
            last = stamp_seconds(update.get("lastUpdated")) or last
            continue
        if "sessionId" in record and not session:
            session = str(record["sessionId"])
            last = stamp_seconds(record.get("lastUpdated")) or last
            continue
        for call in record.get("toolCalls") or ():
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                calls[call["id"]] = _call(call, record)
        if project is None and record.get("type") == "user":
            project = _workspace(record.get("content"))
    return Chat(session, last, tuple(sorted(calls.values(), key=lambda c: c.at)), project)


def _call(call: dict[str, object], record: dict[str, object]) -> Call:
    args = call.get("args")
    output = ""
    for part in call.get("result") or ():  # type: ignore[attr-defined]
        response = (
            part.get("functionResponse", {}).get("response", {}) if isinstance(part, dict) else {}
        )
        if isinstance(response, dict):
            output = str(response.get("output") or response.get("error") or "")
    at = stamp_seconds(call.get("timestamp")) or stamp_seconds(record.get("timestamp")) or 0.0
    return Call(
        str(call.get("name")),
        args if isinstance(args, dict) else {},
        str(call.get("status")),
        output,
        at,
    )


def _workspace(content: object) -> str | None:
    """The project folder the session context names first (`- **Workspace Directories:**`)."""
    if not isinstance(content, list):
        return None
    for part in content:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and "<session_context>" in text:
            match = re.search(r"Workspace Directories:\*\*\n\s*- (.+)", text)
            return match.group(1).strip() if match else None
    return None


def read_sessions(temp: Path, plans_dir: Path, now: datetime, protect_hours: float) -> PlanSessions:
    """Each plan of plans_dir that a chat of the project approved, and what the session
    did after (SPEC 2.1: approved, then edits)."""
    chats = temp / "chats"
    wanted = plans_dir.parent.name if SESSION.fullmatch(plans_dir.parent.name) else None
    try:
        names = sorted(entry.name for entry in os.scandir(chats))
    except OSError:
        return NO_SESSIONS
    real = os.path.realpath(plans_dir)
    state = DirState.for_plans_dir(plans_dir)
    read = _chats_read(state)
    texts = TextsSeen()
    evidence: dict[str, SessionEvidence] = {}
    presented: set[str] = set()
    projects: dict[str, str] = {}
    in_use: dict[str, str] = {}
    notes: list[str] = []
    for name in names:
        if not name.startswith("session-") or not name.endswith((".jsonl", ".json")):
            continue
        if wanted is not None and not name.endswith(
            (f"-{wanted[:8]}.jsonl", f"-{wanted[:8]}.json")
        ):
            continue
        chat = read_chat(chats / name)
        if wanted is not None and chat.session != wanted:
            continue
        found = _weigh(chat, real, texts if _grown(read, chats / name) else None)
        for plan, seen in found.items():
            presented.add(plan)
            if chat.project:
                projects[plan] = chat.project
            if seen is not None:
                earlier = evidence.get(plan)
                if earlier is None or earlier.approved_at <= seen.approved_at:
                    evidence[plan] = seen
        last = chat.last_updated
        if (
            wanted is not None
            and last is not None
            and now.timestamp() - last < protect_hours * 3600
        ):
            for plan in _plans_in(plans_dir):
                in_use[plan] = chat.session
    if texts.found and texts.set_aside(state.root / TEXTS_FOLDER):
        _save_chats_read(state, read)  # each chat's texts are set aside once
    elif not texts.found:
        _save_chats_read(state, read)
    return PlanSessions(
        in_use,
        frozenset(),
        notes=tuple(notes),
        evidence=evidence,
        projects=projects,
        presented=frozenset(presented),
    )


_CHATS_READ = "gemini-chats.json"  # in the folder's state: chat -> its stamp when its texts went


def _chats_read(state: DirState) -> dict[str, list[int]]:
    from clarity.fsio import read_regular

    try:
        known = json.loads(read_regular(state.root / _CHATS_READ, SETTINGS_MOST * 8))
    except (OSError, ValueError, RecursionError):
        return {}
    return known if isinstance(known, dict) else {}


def _grown(read: dict[str, list[int]], chat: Path) -> bool:
    """Whether the chat changed since its texts were set aside (and note its stamp)."""
    try:
        info = chat.stat()
    except OSError:
        return False
    stamp = [info.st_size, info.st_mtime_ns]
    if read.get(os.fspath(chat)) == stamp:
        return False
    read[os.fspath(chat)] = stamp
    return True


def _save_chats_read(state: DirState, read: dict[str, list[int]]) -> None:
    from clarity.fsio import write_atomic

    try:
        state.root.mkdir(parents=True, exist_ok=True)
        write_atomic(state.root / _CHATS_READ, json.dumps(read).encode(), durable=False)
    except OSError:
        pass  # set aside again next time: kept once all the same (by content)


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


def _plans_in(plans_dir: Path) -> list[str]:
    try:
        return [entry.name for entry in os.scandir(plans_dir) if is_plan_name(entry.name)]
    except OSError:
        return []


class _Approval:
    """One plan's latest approval in a chat, and what the session did after it."""

    def __init__(self, at: float, texts: set[str]) -> None:
        self.at = at
        self.texts = texts
        self.edited: set[str] = set()
        self.withdrawn: str | None = None


def _weigh(
    chat: Chat, real_plans_dir: str, texts: TextsSeen | None = None
) -> dict[str, SessionEvidence | None]:
    """plan -> its latest standing approval in the chat (None: presented, never approved).
    texts: given, each text the session wrote or had approved is set aside there (its
    versions, SPEC 6.1: a draft overwritten in the store is still kept)."""
    text: dict[str, str | None] = {}  # plan -> the text the session last wrote, if known
    approvals: dict[str, _Approval] = {}
    seen: dict[str, SessionEvidence | None] = {}
    latest: str | None = None  # the plan whose approval the work that follows is for
    for call in chat.calls:
        if call.status != "success":
            continue
        if call.name in PLAN_WRITES:
            path = call.args.get("file_path")
            if not isinstance(path, str):
                continue
            if os.path.realpath(Path(path).parent) == real_plans_dir:
                plan = Path(path).name
                seen.setdefault(plan, None)
                text[plan] = _written(call, text.get(plan))
                approval = approvals.get(plan)
                written = text[plan]
                if approval is not None and written is not None:
                    approval.texts.add(text_digest(written))  # its own edit of its plan
                if texts is not None and written is not None:
                    texts.add(
                        plan, text_digest(written), written, _iso(call.at), WRITTEN, chat.session
                    )
            elif latest is not None:
                approvals[latest].edited.add(os.path.realpath(path))
        elif call.name == "exit_plan_mode":
            where = STORED_AT.search(call.output)
            path = Path(where.group(1).strip()) if where else None
            if path is None or os.path.realpath(path.parent) != real_plans_dir:
                continue
            plan = path.name
            seen.setdefault(plan, None)
            if call.output.startswith(APPROVED):
                known = text.get(plan)
                if texts is not None and known is not None:
                    texts.add(
                        plan, text_digest(known), known, _iso(call.at), TEXT_APPROVED, chat.session
                    )
                approvals[plan] = _Approval(
                    call.at, set() if known is None else {text_digest(known)}
                )
                latest = plan
            elif call.output.startswith(REJECTED) and plan in approvals:
                approvals[plan].withdrawn = "presented again and rejected"
    for plan, approval in approvals.items():
        seen[plan] = SessionEvidence(
            session=chat.session,
            approved_at=approval.at,
            files_edited=len(approval.edited),
            todos=None,
            last_activity=chat.last_updated or approval.at,
            withdrawn=approval.withdrawn,
            texts=frozenset(approval.texts),
        )
    return seen


def _written(call: Call, before: str | None) -> str | None:
    """The plan's text after a write_file or replace, where it can be known."""
    if call.name == "write_file":
        content = call.args.get("content")
        return content if isinstance(content, str) else None
    old, new = call.args.get("old_string"), call.args.get("new_string")
    if before is None or not isinstance(old, str) or not isinstance(new, str) or old not in before:
        return None
    return (
        before.replace(old, new) if call.args.get("allow_multiple") else before.replace(old, new, 1)
    )


def _chat_of(temp: Path, session: str) -> Path | None:
    chats = temp / "chats"
    try:
        names = sorted(entry.name for entry in os.scandir(chats))
    except OSError:
        return None
    for name in names:
        ours = name.endswith((f"-{session[:8]}.jsonl", f"-{session[:8]}.json"))
        if name.startswith("session-") and ours and read_chat(chats / name).session == session:
            return chats / name
    return None


def _project_temps(tmp: Path) -> Iterator[tuple[str, Path]]:
    for name in _folders(tmp):
        if not name.startswith("."):
            yield name, tmp / name


def _folders(folder: Path) -> list[str]:
    try:
        return sorted(e.name for e in os.scandir(folder) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _project_root(temp: Path) -> Path | None:
    from clarity.fsio import read_regular

    try:
        text = read_regular(temp / ".project_root", 64 * 1024).decode().strip()
    except (OSError, ValueError):
        return None
    return Path(text) if text and Path(text).is_absolute() else None


def _custom_plans_dir(project: Path) -> Path | PassedOver | None:
    """A project's `general.plan.directory`, resolved as Gemini CLI does (inside the
    project, or ignored)."""
    path = project / ".gemini" / "settings.json"
    general = _json_file(path).get("general")
    plan = general.get("plan") if isinstance(general, dict) else None
    value = plan.get("directory") if isinstance(plan, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    folder = Path(os.path.normpath(project / value))
    real = os.path.realpath(folder)
    if not (
        real == os.path.realpath(project) or real.startswith(os.path.realpath(project) + os.sep)
    ):
        return PassedOver(
            folder,
            f'general.plan.directory "{value}" in {path} resolves outside the project; '
            "Gemini CLI refuses it, and so does clarity",
        )
    return folder


def _json_file(path: Path) -> dict[str, object]:
    """A Gemini CLI settings file (JSON, comments allowed), or {}."""
    from clarity.fsio import read_regular

    try:
        text = read_regular(path, SETTINGS_MOST).decode("utf-8", "replace")
    except OSError:
        return {}
    for attempt in (text, _uncommented(text)):
        try:
            document = json.loads(attempt)
        except (ValueError, RecursionError):
            continue
        return document if isinstance(document, dict) else {}
    return {}


def _uncommented(text: str) -> str:
    """JSON with `//` and `/* */` comments taken out (outside strings)."""
    return re.sub(
        r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.S
    )


def _archives(settings: Settings, home: Path) -> Path:
    """`gemini-cli/` in the user's archive (the configured one, or the one beside
    `~/.claude/plans`): a folder per project and session, each root's own."""
    source = settings.sources["archive_dir"]
    user = (
        settings.archive_dir if source.chosen else default_archive_dir(home / ".claude" / "plans")
    )
    return absolute(user) / NAME


def _add(
    found: dict[str, PlansRoot],
    plans_dir: Path,
    how: str,
    archive: Path,
    temp: Path,
    project: Path | None,
) -> None:
    real = os.path.realpath(plans_dir)
    if real in found:
        return
    why = Source(f"the user's archive, for {how}", Origin.DEFAULT)
    found[real] = PlansRoot(absolute(plans_dir), how, archive, why, absolute(temp), project, NAME)


def _gone(archives: Path, tmp: Path, found: Mapping[str, PlansRoot]) -> Iterator[PlansRoot]:
    """The sessions Gemini CLI deleted whose plans clarity kept: each archive folder of a
    session whose plans folder is no more."""
    known = {os.path.realpath(root.archive_dir) for root in found.values()}
    for slug in _folders(archives):
        for session in _folders(archives / slug):
            archive = archives / slug / session
            if not SESSION.fullmatch(session) or os.path.realpath(archive) in known:
                continue
            temp = tmp / slug
            plans = temp / session / "plans"
            if os.path.lexists(plans):
                continue
            how = f"Gemini CLI session {session[:8]} of {temp}, deleted by Gemini CLI"
            why = Source(f"the user's archive, for {how}", Origin.DEFAULT)
            project = _project_root(temp)
            yield PlansRoot(absolute(plans), how, archive, why, absolute(temp), project, NAME, True)
