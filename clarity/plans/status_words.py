"""What a status value says: done, open, or neither (SPEC 4.2). Pure text rules.

A done word (complete, done, implemented, shipped, merged, ✅, 完了, ...)
counts only when nothing qualifies it: a phase number, "in progress",
"planning complete", "82%", "ready for", a negation. These words were chosen
from how real plans write their status, and each trap among them is a test.
"""

from __future__ import annotations

import re

_DONE_WORDS = (
    r"complete|completed|done|implemented|finished|shipped|merged|resolved|fixed|landed|delivered"
    r"|impl[eé]ment[eé]e?s?|termin[eé]e?s?|compl[eé]t[eé]e?s?|achev[eé]e?s?|đã\s+xong"
)
_DONE = re.compile(
    rf"""(?<![^\W_])(?:{_DONE_WORDS})(?![^\W_])
      | 已完成 | 完了 | 完成 | 済み | 완료""",
    re.IGNORECASE | re.VERBOSE,
)
_CHECK_MARK = re.compile(r"[\u2705\u2714\u2611]\ufe0f?")  # ✅ ✔ ☑
# What may follow a done word that states a status: an end, punctuation, a date, or a
# little word. "Complete decomposition of 77 failures" uses it as an adjective.
_STATUS_WORD_FOLLOWER = re.compile(
    r"""\s*(?:$|[^\w\s]|\d|(?:and|&|with|to|in|on|at|by|as|per|via|for|from|since|into|
        successfully|fully|now|already|today|yesterday|except|but|pending|after|awaiting|
        et|avec|le|la|les|en|dans|und|mit)(?![^\W_]))""",
    re.IGNORECASE | re.VERBOSE,
)
# CJK done words stand alone, or before kana or 済: not as the head of a compound
# (完了条件 "completion criteria", 完成版 "finished version").
_CJK_FOLLOWER = re.compile(r"(?:$|[^\u3400-\u9fff\uac00-\ud7af]|済)")
# Before a done word: it is not done yet ("not implemented", "to be merged", 未完了), or
# what is done is not the work ("planning complete", "analysis complete").
_NOT_THE_WORK = re.compile(
    r"""(?:(?<![^\W_])(?:not|never|no|yet\s+to\s+be|to\s+be|will\s+be|isn'?t|aren'?t|almost|
        nearly|mostly|partly|partially|half|planning|plan|analysis|analyse|analyses|
        investigation|exploration|design|research|diagnosis|documentation|decomposition|audit|
        scan|spec|specification|discovery|review|evaluation|assessment|prototype|poc|spike|
        step|stage|phase|part|tier|sprint|milestone)(?:\s+(?:yet|fully|been|quite|all|is|are|
        was|were|\d+[a-z]?|[ivx]+))*\s*[:\-]?\s*$)
      | (?:未|尚未|没有|没|规划|计划|分析|调研|诊断|設計|調査|分析|計画|검토|분석)$""",
    re.IGNORECASE | re.VERBOSE,
)
# Anything that says part of the work is still open. A value that has one is not done.
OPEN_WORDS = re.compile(
    r"""(?<![^\W_])(?:
        (?<!all\s)(?:phase|stage|step|part|milestone|sprint)s?\s*\#?\d
      | partial(?:ly)? | partly | in\s*-?\s*progress | pending | remaining | testing | blocked
      | blocker | todo | to\s*-?\s*do | wip | next | draft | ongoing | not\s+started | started
      | not\s+yet | awaiting | waiting | review | planned | planning | proposed
      | proposal | ready | almost | nearly | mostly | except | but | until | after | once
      | when | unless | open | paused | on\s*-?\s*hold | back\s*-?\s*burner | parked
      | rescoped | superseded | cancell?ed | conditional | core | investigating | in\s+flight
      | unfinished | incomplete | stub | en\s+cours | en\s+attente | pr[eê]te?
      )(?![^\W_])
    | (?<!\d)[1-9]?\d\s*%   # 82% complete
    | [\U0001F504\u23F3\U0001F6A7\u23F8\u274C\U0001F7E1\U0001F534\u2B1C\u26A0]
    | 進行中 | 进行中 | 作業中 | 対応中 | 実装中 | 未着手 | 未完了 | 未完成 | 一部 | 部分 | 待ち
    | 保留 | 待定 | 计划中 | 中断 | 开发中 | 执行中 | 待办 | 核心 | 準備中 | 予定 | 진행\s*중
    | 대기 | 미완료""",
    re.IGNORECASE | re.VERBOSE,
)
# In the sentences after a status: what says work is still open.
_STILL_OPEN = re.compile(
    r"""(?<![^\W_])(?:in\s*-?\s*progress|pending|remaining|todo|to\s*-?\s*do|blocked|not\s+yet|
        wip|next\s+steps?|not\s+started|unfinished|incomplete)(?![^\W_])
      | [\U0001F504\u23F3\U0001F6A7] | 進行中 | 进行中 | 未完成 | 未完了 | 待办 | 진행\s*중""",
    re.IGNORECASE | re.VERBOSE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002])\s+(?=\S)")
# A clause that says it does not hold the plan open ("remaining items are not blocking").
_ASIDE = re.compile(
    r"(?<![^\W_])(?:not\s+blocking|non-?\s*blocking|optional|nice[\s-]to[\s-]have|"
    r"follow[\s-]?ups?|future\s+work|out\s+of\s+scope|deferred)(?![^\W_])",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(  # ; , ( ) [ ] | / a spaced dash, a sentence end, CJK punctuation
    r"\s*(?:[;,()\[\]|/]|\s[-\u2013\u2014]\s|\.\s|:\s|[\u3002\u3001\uff0c\uff1b])\s*"
)
_LETTERS = re.compile(r"[^\W\d_]")


def plain(text: str) -> str:
    """Markdown emphasis and code marks out, `in_progress` as words."""
    return " ".join(text.replace("*", "").replace("`", "").replace("_", " ").split())


def _clause_says(clause: str) -> bool | None:
    """True: done; False: open; None: neither (no status word in it)."""
    if OPEN_WORDS.search(clause):
        return False
    said: bool | None = None
    for match in _DONE.finditer(clause):
        follower = _CJK_FOLLOWER if ord(match.group()[0]) > 0x2FFF else _STATUS_WORD_FOLLOWER
        if not follower.match(clause, match.end()):
            continue  # "Complete decomposition of ...": an adjective, not a status
        if _NOT_THE_WORK.search(clause, 0, match.start()):
            return False
        said = True
    if (
        said is None
        and _CHECK_MARK.search(clause)
        and not _LETTERS.search(_CHECK_MARK.sub("", clause))
    ):
        said = True  # a bare ✅ (with a date, say)
    return said


def status_value(value: str) -> bool | None:
    """What a status value says: True done, False open, None neither.

    Its first sentence is the status: done takes a done word in some clause
    and nothing open in any (a clause that calls itself not blocking is passed
    over); one open clause, or a done word that is negated or about something
    else than the work, makes it open. Later sentences are commentary ("Future
    crates will get their own pass when implemented."): only work they say is
    still open counts.
    """
    first, rest = _first_sentence(plain(value))
    if _STILL_OPEN.search(rest):
        return False
    said: bool | None = None
    for clause in _CLAUSE_BREAK.split(first):
        if not clause or _ASIDE.search(clause):
            continue
        says = _clause_says(clause)
        if says is False:
            return False
        if says:
            said = True
    return said


# A row that will not be done, and need not be: closed, not "something else" (issue 22).
_CLOSED = re.compile(
    r"""(?:[\u23ed\u2796\u2014\u2013-]\ufe0f?\s*)?
        (?:n/?a|not\s+applicable|skipped|skip|won'?t\s+do|not\s+needed)
        (?:\s*[(\-\u2013\u2014:].*)?""",
    re.IGNORECASE | re.VERBOSE,
)
# A done word that names a part of the work ("CORE IMPLEMENTATION COMPLETE", "Required
# items complete"): done for that part; the rest is for a table to show.
_PART = re.compile(r"(?<![^\W_])(?:core|required(?:\s+items)?|main|mvp)(?![^\W_])", re.I)


def closed_value(value: str) -> bool:
    """A status cell that says the row is closed without being done: N/A, skipped."""
    return _CLOSED.fullmatch(plain(value)) is not None


def part_done(value: str) -> bool:
    """A status that says done for a named part of the work, and nothing else open."""
    text = plain(value)
    return _PART.search(text) is not None and status_value(_PART.sub(" ", text)) is True


def _first_sentence(text: str) -> tuple[str, str]:
    end = _SENTENCE_END.search(text)
    return (text, "") if end is None else (text[: end.start()], text[end.end() :])


def says_done(value: str) -> bool:
    return status_value(value) is True
