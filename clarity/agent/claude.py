"""The Claude advisor: the anthropic SDK, imported only here and only when a request is made.

Each request sends one plan, redacted and cut to `plan_bytes`, and forces a
tool call so the answer is structured, not parsed from prose. Answers are
cached by content hash and model. A per-run token budget stops the asking;
any failure falls back to the extractive advisor for that plan, and a
rejected key stops the asking for the run.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from clarity.agent.advisor import VERDICTS, ExtractiveAdvisor, PlanText
from clarity.agent.cache import AnswerCache, cache_key
from clarity.agent.redact import redact
from clarity.model import Advice, AgentUsage, Summary
from clarity.settings.config import AgentSettings

if TYPE_CHECKING:
    import anthropic
    from anthropic.types import MessageParam, ToolChoiceToolParam, ToolParam

PROMPT_VERSION = "2"  # 2: head and tail, age and findings
MAX_TOKENS = 400
_OVERHEAD_TOKENS = 350  # system prompt, tool schema, framing
_TIMEOUT_SECONDS = 30.0
_FAILURES_BEFORE_GIVING_UP = 3

SYSTEM = (
    "You help a developer keep their directory of Claude Code plan files lean. "
    "Each plan is a markdown file written during a planning session. Answer only "
    "through the tool you are given. Be concrete and brief; never invent facts that "
    "are not in the plan."
)

SUMMARY_TOOL: ToolParam = {
    "name": "record_summary",
    "description": "Record a distilled summary of a finished plan for the archive index.",
    "input_schema": {
        "type": "object",
        "properties": {
            "summary": {
                "type": "string",
                "description": "One paragraph, at most 80 words: what the plan set out to "
                "do, what was done, and the key decisions with their why.",
            }
        },
        "required": ["summary"],
    },
}

REVIEW_TOOL: ToolParam = {
    "name": "record_verdict",
    "description": "Record your verdict on a plan that has not been touched for weeks.",
    "input_schema": {
        "type": "object",
        "properties": {
            "verdict": {
                "type": "string",
                "enum": list(VERDICTS),
                "description": "finished: the work it plans is done; abandoned: it was "
                "dropped; live: it still describes work to do. Judge from where the plan "
                "says it stands (its top and its end), its age and what clarity's rules found.",
            },
            "reason": {"type": "string", "description": "One line: the evidence."},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["verdict", "reason", "confidence"],
    },
}


class _Stop(Exception):
    """No more requests this run (budget spent, key rejected, service down)."""


class ClaudeAdvisor:
    def __init__(
        self,
        settings: AgentSettings,
        cache: AnswerCache | None = None,
        usage: AgentUsage | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache or AnswerCache()
        self.usage = usage or AgentUsage(model=settings.model, budget=settings.budget)
        self.fallback = ExtractiveAdvisor(self.usage)
        self._client: anthropic.Anthropic | None = None
        self._stopped = False
        self._failures = 0

    def summarize(self, plan: PlanText) -> Summary:
        answer = self._ask(SUMMARY_TOOL, plan)
        text = answer.get("summary") if answer else None
        if isinstance(text, str) and text.strip():
            return Summary(" ".join(text.split()), "agent")
        return self.fallback.summarize(plan)

    def review(self, plan: PlanText) -> Advice | None:
        answer = self._ask(REVIEW_TOOL, plan)
        if answer is None:
            return None
        verdict, reason, confidence = (answer.get(k) for k in ("verdict", "reason", "confidence"))
        if (
            verdict not in VERDICTS
            or not isinstance(reason, str)
            or isinstance(confidence, bool)
            or not isinstance(confidence, int | float)
        ):
            self.usage.note("Claude's reply did not fit the verdict schema; left without advice")
            return None
        return Advice(str(verdict), " ".join(reason.split()), min(1.0, max(0.0, confidence)))

    # -- one request ---------------------------------------------------------

    def _plan_part(self, plan: PlanText) -> str:
        """The plan's text as sent: its head and tail, redacted, then cut to plan_bytes.

        Redact first, then cut: a secret on the cut is masked whole, never half sent.
        """
        cap = self.settings.plan_bytes
        head = redact(plan.text).text.encode("utf-8", "replace")
        if plan.tail is None:
            cut = head[:cap].decode("utf-8", "ignore")
            more = (
                "\n[... the rest of the plan is not shown]" if len(head) > len(cut.encode()) else ""
            )
            return f"<plan>\n{cut}{more}\n</plan>"
        tail = redact(plan.tail).text.encode("utf-8", "replace")
        tail_cut = tail[-(cap // 3) :].decode("utf-8", "ignore")
        head_cut = head[: cap - len(tail_cut.encode())].decode("utf-8", "ignore")
        gap = "\n[... the middle of the plan is not shown ...]\n"
        return f"<plan>\n{head_cut}{gap}{tail_cut}\n</plan>"

    def _prompt(self, plan: PlanText, text: str) -> str:
        lines = [f"Plan file: {plan.name}"]
        if plan.age_days is not None:
            lines.append(f"Last modified {plan.age_days:.0f} days ago.")
        if plan.findings:
            lines.append(f"clarity's rules found: {plan.findings}")
        return "\n".join(lines) + "\n\n" + text

    def _ask(self, tool: ToolParam, plan: PlanText) -> dict[str, Any] | None:
        text = self._plan_part(plan)
        prompt = self._prompt(plan, text)
        # Keyed by what the plan says, not by its age: an unchanged plan is paid for once.
        key = cache_key(tool["name"], self.settings.model, PROMPT_VERSION, plan.findings, text)
        cached = self.cache.get(key)
        if cached is not None:
            self.usage.cached += 1
            return cached
        if self._stopped:
            return None
        estimate = len(prompt.encode()) // 3 + _OVERHEAD_TOKENS + MAX_TOKENS
        if self.usage.tokens + estimate > self.settings.budget:
            self._stop(
                f"token budget of {self.settings.budget:,} spent "
                f"({self.usage.tokens:,} used); the rest without the agent"
            )
            return None
        try:
            answer = self._request(tool, prompt)
        except _Stop:
            return None
        if answer is not None:
            self.cache.put(key, answer)
        return answer

    def _stop(self, why: str) -> None:
        self._stopped = True
        self.usage.note(why)

    def _sdk_client(self) -> anthropic.Anthropic:
        if self._client is None:
            import anthropic  # only here: commands without the agent never import it

            self._client = anthropic.Anthropic(timeout=_TIMEOUT_SECONDS, max_retries=2)
        return self._client

    def _request(self, tool: ToolParam, prompt: str) -> dict[str, Any] | None:
        import anthropic

        client = self._sdk_client()
        messages: list[MessageParam] = [{"role": "user", "content": prompt}]
        choice: ToolChoiceToolParam = {"type": "tool", "name": tool["name"]}
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                message = client.messages.create(
                    model=self.settings.model,
                    max_tokens=MAX_TOKENS,
                    system=SYSTEM,
                    messages=messages,
                    tools=[tool],
                    tool_choice=choice,
                )
            for warning in caught:  # e.g. the model is deprecated: worth a line in the report
                self.usage.note(" ".join(str(warning.message).split()))
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError):
            self._stop("API key rejected; the rest without the agent")
            raise _Stop from None
        except anthropic.NotFoundError:
            self._stop(f"model {self.settings.model} not found; set agent_model")
            raise _Stop from None
        except (anthropic.APIError, ValueError) as error:
            self._failed(_describe(error))
            return None
        self.usage.requests += 1
        self._failures = 0
        usage = getattr(message, "usage", None)
        self.usage.input_tokens += int(getattr(usage, "input_tokens", 0) or 0)
        self.usage.output_tokens += int(getattr(usage, "output_tokens", 0) or 0)
        for block in message.content:
            if block.type == "tool_use" and isinstance(block.input, dict):
                return dict(block.input)
        self.usage.note("Claude replied without the tool call; the extractive fallback was used")
        return None

    def _failed(self, what: str) -> None:
        self._failures += 1
        self.usage.note(f"Claude unavailable ({what}); the extractive fallback was used")
        if self._failures >= _FAILURES_BEFORE_GIVING_UP:
            self._stop(f"{self._failures} failed requests in a row; the rest without the agent")


def _describe(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    kind = type(error).__name__
    return f"{kind} {status}" if status else kind
