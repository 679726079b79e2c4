"""Every plan source clarity knows, in the order `clarity roots` finds their folders
(the first source to find a folder owns it). A new agent's source is added here. A
folder a person names is the first one's that claims it, in the reverse order: Claude
Code, which claims any folder, is asked last."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarity.sources.claude_code import ClaudeCode
from clarity.sources.codex import Codex
from clarity.sources.cursor import Cursor
from clarity.sources.gemini_cli import GeminiCli
from clarity.sources.opencode import OpenCode
from clarity.sources.qwen_code import QwenCode
from clarity.sources.windsurf import Windsurf

if TYPE_CHECKING:
    from clarity.sources.protocol import PlanSource

SOURCES: tuple[PlanSource, ...] = (
    ClaudeCode(),
    Cursor(),
    GeminiCli(),
    Codex(),
    QwenCode(),
    OpenCode(),
    Windsurf(),
)
