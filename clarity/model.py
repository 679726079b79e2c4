"""Value objects shared by the reader, the classifier and the renderers.

Everything here is frozen: facts are read once from disk, verdicts are derived
from facts, and a report is what a command returns for a renderer to print.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple


class PlanClass(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"
    STALE = "stale"
    DORMANT = "dormant"


class Place(StrEnum):
    """Where a plan's text lies: the plans folder, the archive, or a text clarity kept of a
    plan Claude Code deleted (SPEC 6.1). The only list of these words."""

    LIVE = "live"
    ARCHIVE = "archive"
    KEPT = "kept"


class Action(StrEnum):
    KEEP = "keep"
    ARCHIVE = "archive"
    TRASH = "trash"
    REPORT = "report"


MOVING_ACTIONS = (Action.ARCHIVE, Action.TRASH)  # what apply does something about

ACTION_FOR: dict[PlanClass, Action] = {
    PlanClass.ACTIVE: Action.KEEP,
    PlanClass.COMPLETED: Action.ARCHIVE,
    PlanClass.STALE: Action.TRASH,
    PlanClass.DORMANT: Action.REPORT,
}


class TextStatus(NamedTuple):
    """What a plan's status fields or status table say (SPEC 4.2), and whether that is done."""

    evidence: str  # for a reason: 'status field "IMPLEMENTED"', 'status table: 4/4 rows done'
    done: bool
    # The plan's own list of what is left (a frontmatter todo list): while it is open,
    # nothing else the plan says (a marker, a status field) makes it done.
    binding: bool = False


class Frontmatter(NamedTuple):
    """The frontmatter keys the rules look at."""

    status: str | None = None
    pinned: bool = False
    # A `todos:` list of items with a `status` (Cursor's plans write one and mark each
    # item `completed` as the work is done): what it says, which the reader makes the
    # plan's status (PlanFacts.status), binding.
    todos: TextStatus | None = None


NO_FRONTMATTER = Frontmatter()


class SessionEvidence(NamedTuple):
    """What a Claude Code session did with a plan it presented (SPEC 4.3): facts to weigh."""

    session: str  # the session whose approval is the latest
    approved_at: float  # when the person approved the plan, seconds since the epoch
    files_edited: int  # files outside the plans dir the session edited after that
    todos: tuple[int, int] | None  # (done, total) of the session's todo list after that, if any
    last_activity: float  # the session's last write to its transcripts
    withdrawn: str | None = None  # why the approval no longer stands, if it does not
    after_clear: bool = False  # approved with "clear context": implemented in a new chain
    # sha256 of each text the plan file may hold for the approval to stand: the text
    # approved, and the text after each of that session's own writes of it since. Empty:
    # no text is known, and the file's mtime decides instead.
    texts: frozenset[str] = frozenset()
    commits: int = 0  # commits the session made after the approval (git commit, through Bash)
    patches: int = 0  # patches it applied (git apply, git am)


class PlanSessions(NamedTuple):
    """What the transcripts say about the plans of one plans directory."""

    in_use: Mapping[str, str]  # plan name -> the session that used it most recently
    current: frozenset[str]  # plan names the --session session used
    transcripts_read: int = 0  # transcripts with new lines this time
    notes: tuple[str, ...] = ()
    evidence: Mapping[str, SessionEvidence] = MappingProxyType({})  # plan -> its latest approval
    projects: Mapping[str, str] = MappingProxyType({})  # plan -> its session's working directory
    bytes_read: int = 0
    presented: frozenset[str] = frozenset()  # plans a session presented (ExitPlanMode) or approved


NO_SESSIONS = PlanSessions({}, frozenset())


class FileStamp(NamedTuple):
    """What stat says about a file: if none of it changed, neither did the bytes.

    Any write to a file moves its ctime, which no one can set by hand, so an
    equal stamp is the cheap proof that a file is as it was when scanned
    (where `STAMP_PROVES_UNCHANGED`).
    """

    size: int
    mtime_ns: int
    inode: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStamp:
        return cls(info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


# On Windows st_ctime is the creation time, which a rewrite does not move: a
# same-size rewrite with its mtime put back keeps its stamp. There an equal
# stamp proves nothing, and only the bytes can say a file is unchanged.
STAMP_PROVES_UNCHANGED = sys.platform != "win32"


# Value objects are NamedTuples, not frozen dataclasses: just as immutable, but
# a fifth of the cost to build (PlanFacts and Verdict are made once per plan)
# and a seventh to define (a dataclass costs about 1 ms of every start).
class PlanFacts(NamedTuple):
    """What the reader learned about one plan file: all the classifier sees."""

    name: str
    folder: Path  # the plans directory it was read from
    size: int
    mtime: float  # seconds since the epoch, as stat reports it
    title: str | None  # text of the first H1 (ATX or setext), None if none was found
    last_line: str | None  # last line with a non-space character
    frontmatter: Frontmatter = NO_FRONTMATTER
    warnings: tuple[str, ...] = ()
    bytes_read: int = 0  # how much of the file the reader read (bounded, see reader)
    stamp: FileStamp | None = None  # None only for facts made up by hand (tests)
    sha256: str | None = None  # of the whole file, when it was small enough to read whole
    status: TextStatus | None = None  # what its status fields or tables say, if it has any
    # Nothing beyond a title and a line or two (SPEC 4.5 rule 3): a seed stub, not a real
    # plan. True for facts made by hand; the reader says False for a plan with sections.
    stub: bool = True

    @property
    def path(self) -> Path:
        return self.folder / self.name


class Skipped(NamedTuple):
    """A file in the plans directory that was not classified, and why."""

    path: Path
    reason: str


class Basis(StrEnum):
    """The kind of evidence that decided a verdict (the scan's footer counts them)."""

    IN_USE = "in use by a session"  # rule 1: the current session's, a live session's
    NOW = "touched today or pinned"  # rule 1
    RESTORED = "restored from the archive"  # rule 1: a person put it back lately
    MARKER = "terminal marker"
    FRONTMATTER = "frontmatter status"
    STATUS = "status field or table"
    SESSION = "session evidence"
    AGENT = "agent's verdict"
    AGE = "age and size"  # rules 3 to 5
    PARENT = "its parent"  # a sub-plan that follows its parent


class Verdict(NamedTuple):
    facts: PlanFacts
    plan_class: PlanClass
    reason: str
    parent: str | None = None  # name of the root parent, for a sub-plan
    subplans: tuple[str, ...] = ()  # names of the sub-plans folded under this plan
    basis: Basis = Basis.AGE
    held: bool = False  # git tracks its group: reported, never moved (SPEC 2)
    # What the rules found that did not decide (a qualified status, an approval without
    # edits, why it was not trashed), each as the reason says it after the rule's own
    # words: for the person who decides, and for the agent (agent/review.py).
    findings: tuple[str, ...] = ()

    @property
    def kept_by_git(self) -> bool:
        """Whether apply would move it but for git tracking it."""
        return self.held and ACTION_FOR[self.plan_class] in MOVING_ACTIONS

    @property
    def action(self) -> Action:
        action = ACTION_FOR[self.plan_class]
        return Action.REPORT if self.held and action in MOVING_ACTIONS else action

    @property
    def name(self) -> str:
        return self.facts.name


class Thresholds(NamedTuple):
    stale_days: float = 7.0
    stale_bytes: int = 2048
    dormant_days: float = 14.0


class Retention(NamedTuple):
    """How old a plan may get before its agent deletes it at its next start (SPEC 9):
    the one answer to "when does the agent delete this plan" for every reader (the
    scan's report, the hook, keeping, restore, browse, MCP)."""

    days: float
    source: str  # where the figure came from, for the report
    # When the age counts from for every plan of the folder, if not each file's mtime:
    # Gemini CLI deletes a whole session, plans and all, by the session's last activity.
    since: float | None = None
    who: str = "Claude Code"  # the agent that deletes them, for the report

    def left(self, mtime: float, now: float) -> float:
        """Days before the agent deletes a file of this mtime that stays where it is
        (below 0: past its age, gone at the agent's next start)."""
        return self.days - (now - (mtime if self.since is None else self.since)) / 86400

    def whole_days_left(self, mtime: float, now: float) -> int:
        """left(), rounded down to whole days (0: within a day), as every format says it;
        rounded first: 30 days less an age of 20 days is 10, not 9.999999."""
        return math.floor(round(self.left(mtime, now), 6))

    def near(self, mtime: float, now: float, keep_days: float) -> bool:
        """Within keep_days of the cleanup (SPEC 6.1): its text is kept before it goes."""
        return self.left(mtime, now) <= keep_days


class ScanReport(NamedTuple):
    plans_dir: Path
    archive_dir: Path
    now: datetime
    verdicts: tuple[Verdict, ...]
    skipped: tuple[Skipped, ...]
    advice: Mapping[str, Advice] = MappingProxyType({})  # dormant plans, by name
    agent: AgentUsage | None = None  # set when the agent was asked for
    retention: Retention | None = None  # None when not looked up (hand-made reports)
    notes: tuple[str, ...] = ()  # things the reader of the report should know
    projects: Mapping[str, str] = MappingProxyType({})  # plan -> its session's working directory
    proposal: str | None = None  # the id apply knows this scan by; None: not recorded
    gone: bool = False  # its plans dir is removed once shown (the demo's): no command acts on it
    # plan -> what its latest approving session did (the browse page shows it)
    sessions: Mapping[str, SessionEvidence] = MappingProxyType({})
    plan_source: str = ""  # whose plans these are: the plan source's name (sources/)
    kept_in_place: bool = False  # an agent's own store: its plans' texts are kept, never moved
    agent_label: str = "Claude Code"  # whose sessions the evidence is from, in prose

    def project(self, verdict: Verdict) -> str | None:
        """The project a plan belongs to: its own session's, else its parent's."""
        found = self.projects.get(verdict.name)
        if found is None and verdict.parent is not None:
            found = self.projects.get(verdict.parent)
        return found

    def counts(self) -> dict[str, int]:
        counts = {plan_class.value: 0 for plan_class in PlanClass}
        for verdict in self.verdicts:
            counts[verdict.plan_class.value] += 1
        return counts

    def moves(self) -> bool:
        """Whether apply would move anything."""
        return any(verdict.action in MOVING_ACTIONS for verdict in self.verdicts)

    def age_days(self, verdict: Verdict) -> float:
        return (self.now.timestamp() - verdict.facts.mtime) / 86400

    def cleanup_in_days(self, verdict: Verdict) -> int | None:
        """Whole days before Claude Code's own cleanup deletes a plan that stays put, rounded
        down (0: within a day; below 0: past its age, gone at Claude Code's next start).

        None where that cleanup does not reach: plans apply moves, a plans dir
        other than Claude Code's own. Every format shows this one figure.
        """
        if self.retention is None or verdict.action in MOVING_ACTIONS:
            return None
        return self.retention.whole_days_left(verdict.facts.mtime, self.now.timestamp())


# The agent's part of a report (SPEC 8): plain values, so the model needs no agent code.


@dataclass(frozen=True, slots=True)
class Advice:
    verdict: str  # one of VERDICTS
    reason: str
    confidence: float  # 0.0 to 1.0


@dataclass(frozen=True, slots=True)
class Summary:
    text: str
    source: str  # "agent" | "extract"


@dataclass(slots=True)
class AgentUsage:
    """What a run asked of the agent and what it cost, for the report."""

    model: str | None = None
    budget: int = 0
    requests: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def note(self, line: str) -> None:
        if line not in self.notes:
            self.notes.append(line)


# How the executor writes an archived plan's summary: the extract, or the agent's
# (agent/review.py). (archived file, name) -> (text, source)
Summarizer = Callable[[Path, str], tuple[str, str]]


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What a person asked: the words, and what narrows them (None: everything)."""

    query: str
    place: str | None = None  # live, archive or kept
    project: str | None = None
    plan_class: str | None = None
    since: datetime | None = None
    limit: int | None = 20


@dataclass(frozen=True, slots=True)
class ScanRequest:
    """What a scan is asked for, beside the settings: built once by the entry point (the
    CLI's options, the MCP server's arguments, the hook's moment) and carried into the
    core as one value."""

    now: datetime  # classify as of this moment
    current: tuple[str, ...] = ()  # plans named as the current session's (--current)
    session: str | None = None  # the Claude Code session clarity runs for: its plans are current
    project: Path | None = None  # report only the plans of sessions that worked there
