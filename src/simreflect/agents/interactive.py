"""Agents of interactive episodes (core.interactive.TurnAgent): the chat so far and the tools in,
one assistant message out.

- ToolLLMAgent: any OpenAI-compatible endpoint, the tools sent as function specs (`tools`,
  `tool_choice: auto`), or with `text_protocol` no tools field and the calls read from ```tool
  blocks of the answer. Retries, backoff, the bounded reading of the response and the on-disk
  response cache (keyed by the full request) are LLMAgent's. The chat is sent compacted: the
  results of all but the last `history_turns` turns cut to a head and a note (compact_chat).
- NoopTurnAgent: finishes at once (a control: doing nothing must fail).
The oracle of a suite is its own (`interactive_oracle`, core.contract.InteractiveEpisodes).
"""

from __future__ import annotations

import json
import time
from typing import Any

from simreflect.agents.llm import LLMAgent, LLMConfig, _tokens
from simreflect.core.interactive import ModelTurn, compact_chat


#: The turns whose tool results the model is sent in full (older ones are cut to their head and a
#: note): a 400-turn workshop session in full would be tens of MB of chat, past any model's context.
DEFAULT_HISTORY_TURNS = 24


class ToolLLMAgent:
    name = "llm"

    def __init__(self, config: LLMConfig, text_protocol: bool = False, client=None,
                 history_turns: int = DEFAULT_HISTORY_TURNS):
        if isinstance(history_turns, bool) or not isinstance(history_turns, int) or history_turns < 0:
            raise ValueError(f"history_turns must be a whole number >= 0 (0: every turn in full), not {history_turns!r}")
        self.llm = LLMAgent(config, client=client)
        self.config = config
        self.text_protocol = bool(text_protocol)
        self.history_turns = history_turns

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        c = self.config
        sent, elided = compact_chat(messages, self.history_turns)
        body: dict[str, Any] = {"model": c.model, "messages": sent}
        if not self.text_protocol:
            body.update(tools=tools, tool_choice="auto")
        if c.temperature is not None:
            body["temperature"] = c.temperature
        if c.max_tokens is not None:
            body["max_tokens"] = c.max_tokens
        if c.reasoning_effort:
            body["reasoning_effort"] = c.reasoning_effort
        chars = len(json.dumps(sent))
        cached = self.llm._cache_get(body)
        if cached is not None and isinstance(cached.get("message"), dict):
            return ModelTurn(cached["message"], cached["prompt_tokens"], cached["completion_tokens"], 0.0, chars, elided)
        start = time.monotonic()
        data, _calls = self.llm._post_with_retries(body)
        message = data["choices"][0]["message"]  # present: _post_with_retries checked it
        message = message if isinstance(message, dict) else {}
        usage = data.get("usage")
        answer = ModelTurn(message, _tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens"),
                           time.monotonic() - start, chars, elided)
        self.llm._cache_put(body, {"text": "", "message": message, "prompt_tokens": answer.prompt_tokens,
                                   "completion_tokens": answer.completion_tokens})
        return answer


class NoopTurnAgent:
    """Calls finish on its first turn, having changed nothing."""

    name = "noop"
    text_protocol = False

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        call = {"id": "call_0", "type": "function",
                "function": {"name": "finish", "arguments": json.dumps({"summary": "nothing done"})}}
        return ModelTurn({"role": "assistant", "content": "", "tool_calls": [call]})
