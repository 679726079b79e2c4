"""The advisor a run uses, as the config and the environment say: Claude's (agent/claude.py,
the SDK with it) or the extractive fallback (agent/advisor.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from clarity.agent.advisor import Advisor, ExtractiveAdvisor
from clarity.model import AgentUsage

if TYPE_CHECKING:
    from clarity.settings.config import AgentSettings


def make_advisor(settings: AgentSettings, env: Mapping[str, str]) -> Advisor:
    """The advisor a run uses: Claude when asked for and a key is set, else the fallback."""
    usage = AgentUsage(model=settings.model, budget=settings.budget)
    if not settings.enabled:
        return ExtractiveAdvisor(usage)
    if not env.get("ANTHROPIC_API_KEY", "").strip():
        usage.note("no ANTHROPIC_API_KEY set: carrying on without the agent")
        return ExtractiveAdvisor(usage)
    from clarity.agent.claude import ClaudeAdvisor  # the SDK comes with it, only now

    return ClaudeAdvisor(settings, usage=usage)
