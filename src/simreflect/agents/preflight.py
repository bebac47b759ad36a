"""One request before a run's first episode: is the endpoint there, does it take the key, does it know the model?

A run whose endpoint refuses every request would otherwise spend every episode's retries and end
with nothing scored. `preflight` sends one short chat completion with the run's own settings (one
retry, short backoff, no cache, no response_format) and raises PreflightError with the endpoint's
own message when it does not answer."""

from __future__ import annotations

from dataclasses import replace

from simreflect.agents.base import InfrastructureError
from simreflect.agents.llm import LLMAgent, LLMConfig

PROMPT = [{"role": "user", "content": "Reply with the word OK."}]


class PreflightError(RuntimeError):
    """The endpoint cannot serve the run; the message is what it (or the connection) said."""


def preflight(config: LLMConfig, timeout_s: float = 30.0) -> None:
    """Raise PreflightError unless the endpoint answers one chat completion for `config.model`."""
    probe = replace(config, max_retries=1, backoff_s=0.5, max_backoff_s=1.0, cache_dir=None, structured=False,
                    timeout_s=min(timeout_s, config.timeout_s))
    agent = LLMAgent(probe)
    try:
        agent.complete(PROMPT)
    except InfrastructureError as e:
        raise PreflightError(f"the endpoint {config.base_url} (model {config.model!r}) did not answer: {e}") from None
    finally:
        agent.close()
