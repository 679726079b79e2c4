"""Every plan source clarity knows, in the order `clarity roots` finds their folders
(the first source to find a folder owns it). A new agent's source is added here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarity.sources.claude_code import ClaudeCode

if TYPE_CHECKING:
    from clarity.sources import PlanSource

SOURCES: tuple[PlanSource, ...] = (ClaudeCode(),)
