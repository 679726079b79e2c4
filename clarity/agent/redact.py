"""Take obvious secrets out of plan text before any of it leaves the machine (SPEC 8).

Pure text in, text out. It errs on the side of redacting: a false positive
costs the agent a word, a false negative leaks a credential.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MASK = "[REDACTED]"

_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----"
    r".*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",  # a cut-off block: to the end
    re.DOTALL,
)
# Credentials with a recognisable shape, wherever they appear.
_TOKENS = re.compile(
    r"""(?x)
    \b(
        sk-ant-[A-Za-z0-9_-]{16,}            # Anthropic
      | sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}   # OpenAI
      | gh[pousr]_[A-Za-z0-9]{30,}           # GitHub tokens
      | github_pat_[A-Za-z0-9_]{30,}
      | glpat-[A-Za-z0-9_-]{20,}             # GitLab
      | xox[abprs]-[A-Za-z0-9-]{10,}         # Slack
      | (?:AKIA|ASIA)[0-9A-Z]{16}            # AWS access key id
      | AIza[0-9A-Za-z_-]{35}                # Google API key
      | [rs]k_(?:live|test)_[A-Za-z0-9]{16,} # Stripe
      | eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}  # JWT
    )
    """
)
_BEARER = re.compile(r"(?i)\b(bearer|token|basic)(\s+)([A-Za-z0-9._~+/=-]{16,})")
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]+:)([^\s@/]+)@")
# `NAME=value` / `name: value` where the name says it holds a secret.
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (\b[\w.-]*(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key
              |credentials?|auth)[\w.-]*
     \s*[:=]\s*)
    (["']?)([^\s"'`]{4,})\2
    """
)


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    count: int  # how many secrets were masked


def redact(text: str) -> Redacted:
    count = 0

    def masked(replacement: str) -> str:
        nonlocal count
        count += 1
        return replacement

    text = _PRIVATE_KEY.sub(lambda _: masked("[REDACTED PRIVATE KEY]"), text)
    text = _TOKENS.sub(lambda _: masked(MASK), text)
    text = _URL_PASSWORD.sub(lambda m: masked(f"{m.group(1)}{MASK}@"), text)
    text = _BEARER.sub(lambda m: masked(f"{m.group(1)}{m.group(2)}{MASK}"), text)
    text = _ASSIGNMENT.sub(
        lambda m: m.group(0) if m.group(3) == MASK else masked(f"{m.group(1)}{MASK}"), text
    )
    return Redacted(text, count)
