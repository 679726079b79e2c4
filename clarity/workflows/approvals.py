"""Approvals recorded the moment they happen (SPEC 6.1): a hook's event (ExitPlanMode shown
or approved, a session ended or started by "clear context") written into the approval
ledger, which the scan reads beside the transcripts. Light: the hook runs it for every
such event, and it imports nothing but the ledger's writer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def record_event(data: Mapping[str, Any], state_dir: str) -> bool:
    """Write the ledger's line for a hook's input; whether it was one to keep. OSError:
    the hook says nothing and goes on."""
    from clarity.transcripts.ledger import record

    return record(data, state_dir)
