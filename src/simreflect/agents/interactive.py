"""Agents of interactive episodes (core.interactive.TurnAgent): the chat so far and the tools in,
one assistant message out.

- ToolLLMAgent: any OpenAI-compatible endpoint, the tools sent as function specs (`tools`,
  `tool_choice: auto`), or with `text_protocol` no tools field and the calls read from ```tool
  blocks of the answer. Retries, backoff and the bounded reading of the response are LLMAgent's.
- NoopTurnAgent: finishes at once (a control: doing nothing must fail).
The oracle of a suite is its own (`interactive_oracle`, core.contract.InteractiveEpisodes).
"""

from __future__ import annotations

import json
import time
from typing import Any

from simreflect.agents.llm import LLMAgent, LLMConfig, _tokens
from simreflect.core.interactive import ModelTurn


class ToolLLMAgent:
    name = "llm"

    def __init__(self, config: LLMConfig, text_protocol: bool = False, client=None):
        self.llm = LLMAgent(config, client=client)
        self.config = config
        self.text_protocol = bool(text_protocol)

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        c = self.config
        body: dict[str, Any] = {"model": c.model, "messages": messages}
        if not self.text_protocol:
            body.update(tools=tools, tool_choice="auto")
        if c.temperature is not None:
            body["temperature"] = c.temperature
        if c.max_tokens is not None:
            body["max_tokens"] = c.max_tokens
        if c.reasoning_effort:
            body["reasoning_effort"] = c.reasoning_effort
        start = time.monotonic()
        data, _calls = self.llm._post_with_retries(body)
        message = data["choices"][0]["message"]  # present: _post_with_retries checked it
        usage = data.get("usage")
        return ModelTurn(message if isinstance(message, dict) else {}, _tokens(usage, "prompt_tokens"),
                         _tokens(usage, "completion_tokens"), time.monotonic() - start)


class NoopTurnAgent:
    """Calls finish on its first turn, having changed nothing."""

    name = "noop"
    text_protocol = False

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        call = {"id": "call_0", "type": "function",
                "function": {"name": "finish", "arguments": json.dumps({"summary": "nothing done"})}}
        return ModelTurn({"role": "assistant", "content": "", "tool_calls": [call]})
