"""An agent backed by any OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp, hosted).

- Structured output: asks for JSON matching {diagnosis, script} through `response_format`
  (json_schema); a server that rejects the field is asked again without it, and the program is then
  read from a fenced code block.
- Retries with exponential backoff (honouring Retry-After) on 429, 5xx, timeouts and connection
  errors; when they are spent the agent raises InfrastructureError, which is never scored.
- Records token usage and latency per call; an optional on-disk cache keyed by the full request
  makes re-runs free and reproducible.
- The response is untrusted data: its body is read up to MAX_RESPONSE_BYTES (decompressed) and
  parsed within RESPONSE_LIMITS (core.untrusted); a body past them is a malformed response (retried,
  then an InfrastructureError). The answer's text goes through parse_answer (`act`) or clean_answer
  (`complete`), so a lone surrogate or an over-long answer never reaches a file, a record or the
  next request.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from simreflect.agents.base import Action, InfrastructureError, Observation, Usage
from simreflect.agents.parse import ANSWER_SCHEMA, clean_answer, parse_answer
from simreflect.core.untrusted import JsonLimits, finite_float, load_json

API_KEY_ENV = "SIMREFLECT_API_KEY"
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
#: The largest response body read (decompressed); a chat completion is a few hundred KB at most.
MAX_RESPONSE_BYTES = 32 << 20
#: How a response body is read: the answer's own text is judged later (parse_answer, clean_answer),
#: so its lone surrogates are kept here; NaN in a usage figure is read and counted as 0 tokens.
RESPONSE_LIMITS = JsonLimits(max_bytes=MAX_RESPONSE_BYTES, max_depth=64, max_items=1_000_000,
                             max_string_chars=MAX_RESPONSE_BYTES, nonfinite="allow", surrogates="keep")


@dataclass(frozen=True)
class LLMConfig:
    model: str
    base_url: str
    api_key_env: str = API_KEY_ENV
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    timeout_s: float = 300.0
    max_retries: int = 5
    backoff_s: float = 2.0
    max_backoff_s: float = 60.0
    structured: bool = True
    cache_dir: Path | None = None

    def public(self) -> dict[str, Any]:
        """The settings a run records (never the key)."""
        return {"model": self.model, "base_url": self.base_url, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "reasoning_effort": self.reasoning_effort,
                "timeout_s": self.timeout_s, "max_retries": self.max_retries, "structured": self.structured}


class LLMAgent:
    name = "llm"

    def __init__(self, config: LLMConfig, client: httpx.Client | None = None):
        self.config = config
        self._client = client or httpx.Client(timeout=httpx.Timeout(config.timeout_s, connect=min(10.0, config.timeout_s)))
        self._structured = config.structured

    # ----- public ------------------------------------------------------------------------------
    def close(self) -> None:
        self._client.close()

    def act(self, observation: Observation) -> Action:
        messages = with_images(list(observation.messages), observation.images)
        text, usage = self._ask(messages, observation.generation)
        parsed = parse_answer(text)
        return Action(program=parsed.program, diagnosis=parsed.diagnosis, raw=parsed.text, usage=usage,
                      error=parsed.error)

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, Usage]:
        """The model's answer to a chat, as text that can be recorded and sent again (clean_answer)."""
        text, usage = self._ask(messages)
        return clean_answer(text), usage

    def _ask(self, messages: list[dict[str, str]], generation: int = 0) -> tuple[str, Usage]:
        """The model's answer exactly as the endpoint sent it (or the cache holds it). `generation` > 0:
        a retry of an answer without a program, sent with seed 100 x generation (PACE's retry offset)."""
        body = self._body(messages, structured=self._structured, generation=generation)
        cached = self._cache_get(body)
        if cached is not None:
            return cached["text"], Usage(cached["prompt_tokens"], cached["completion_tokens"], 0, 0.0, True)
        start = time.monotonic()
        data, calls = self._post_with_retries(body)
        if data is None:  # the server refused structured output: ask again in plain text
            self._structured = False
            body = self._body(messages, structured=False, generation=generation)
            cached = self._cache_get(body)
            if cached is not None:
                return cached["text"], Usage(cached["prompt_tokens"], cached["completion_tokens"], calls, 0.0, True)
            data, more = self._post_with_retries(body)
            calls += more
            if data is None:
                raise InfrastructureError("the endpoint rejected the request without response_format too")
        text = _content(data)
        usage_raw = data.get("usage")
        usage = Usage(_tokens(usage_raw, "prompt_tokens"), _tokens(usage_raw, "completion_tokens"), calls,
                      time.monotonic() - start)
        self._cache_put(body, {"text": text, "prompt_tokens": usage.prompt_tokens,
                               "completion_tokens": usage.completion_tokens})
        return text, usage

    # ----- internals ---------------------------------------------------------------------------
    def _body(self, messages: list[dict[str, str]], structured: bool, generation: int = 0) -> dict[str, Any]:
        c = self.config
        body: dict[str, Any] = {"model": c.model, "messages": messages}
        if generation:
            body["seed"] = 100 * generation
        if c.temperature is not None:
            body["temperature"] = c.temperature
        if c.max_tokens is not None:
            body["max_tokens"] = c.max_tokens
        if c.reasoning_effort:
            body["reasoning_effort"] = c.reasoning_effort
        if structured:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "fix", "schema": ANSWER_SCHEMA, "strict": True}}
        return body

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.config.api_key_env, "")
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _post_with_retries(self, body: dict[str, Any]) -> tuple[dict[str, Any] | None, int]:
        """POST until success. Returns (None, calls) if the server rejected response_format."""
        url = self.config.base_url.rstrip("/") + "/chat/completions"
        last = ""
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                time.sleep(self._delay(attempt, last))
            try:
                with self._client.stream("POST", url, json=body, headers=self._headers()) as resp:
                    raw = _read_body(resp, MAX_RESPONSE_BYTES)
            except httpx.TimeoutException:
                last = f"timed out after {self.config.timeout_s:g} s"
                continue
            except httpx.HTTPError as e:
                last = f"{type(e).__name__}: {e}"
                continue
            if resp.status_code == 200:
                try:
                    if raw is None:
                        raise ValueError(f"larger than {MAX_RESPONSE_BYTES} bytes")
                    data = load_json(raw, RESPONSE_LIMITS, "the response")
                    _content(data)
                    return data, attempt + 1
                except ValueError as e:
                    last = f"malformed response body: {e}"
                    continue
            text = (raw or b"").decode("utf-8", errors="replace")
            if resp.status_code in RETRY_STATUS:
                last = f"HTTP {resp.status_code}: {text[:300]}"
                self._retry_after = resp.headers.get("retry-after")
                continue
            if resp.status_code in (400, 422) and "response_format" in body and _mentions_format(text):
                return None, attempt + 1
            hint = ""
            if resp.status_code in (401, 403) and not os.environ.get(self.config.api_key_env):
                hint = f" (no key was sent: {self.config.api_key_env} is not set)"
            raise InfrastructureError(f"HTTP {resp.status_code} from {url}{hint}: {text[:300]}")
        raise InfrastructureError(f"no answer after {self.config.max_retries + 1} tries: {last}")

    _retry_after: str | None = None

    def _delay(self, attempt: int, last: str) -> float:
        delay = min(self.config.backoff_s * 2 ** (attempt - 1), self.config.max_backoff_s)
        if self._retry_after:
            try:
                delay = max(delay, min(float(self._retry_after), self.config.max_backoff_s))
            except ValueError:
                pass
            self._retry_after = None
        return delay

    def _cache_path(self, body: dict[str, Any]) -> Path | None:
        if self.config.cache_dir is None:
            return None
        key = json.dumps({"base_url": self.config.base_url, "body": body}, sort_keys=True)
        return Path(self.config.cache_dir) / f"{hashlib.sha256(key.encode()).hexdigest()}.json"

    def _cache_get(self, body: dict[str, Any]) -> dict[str, Any] | None:
        path = self._cache_path(body)
        if path is None or not path.is_file():
            return None
        try:
            value = load_json(path.read_bytes(), RESPONSE_LIMITS, "the cache entry")
        except (OSError, ValueError):
            return None  # a damaged cache entry is ignored and rewritten
        ok = (isinstance(value, dict) and isinstance(value.get("text"), str)
              and all(type(value.get(k)) is int for k in ("prompt_tokens", "completion_tokens")))
        return value if ok else None

    def _cache_put(self, body: dict[str, Any], value: dict[str, Any]) -> None:
        path = self._cache_path(body)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(value))
        os.replace(tmp, path)


def _read_body(resp: httpx.Response, limit: int) -> bytes | None:
    """The (decompressed) body, or None once it grows past `limit` bytes."""
    chunks, size = [], 0
    for chunk in resp.iter_bytes():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _content(data: Any) -> str:
    """The message text of a chat-completions body (ValueError when it has no message)."""
    try:
        content = data["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ValueError("no choices[0].message in the body") from None
    if content is None:
        return ""
    if isinstance(content, list):  # some servers return content parts
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content if isinstance(content, str) else str(content)


def _tokens(usage: Any, key: str) -> int:
    """A token count of the body's usage object (0 when it has none or it is not a count)."""
    n = finite_float(usage.get(key)) if isinstance(usage, dict) else None
    return int(n) if n is not None and n >= 0 else 0


def _mentions_format(text: str) -> bool:
    t = text.lower()
    return "response_format" in t or "json_schema" in t or "structured" in t


def with_images(messages: list[dict[str, Any]], images: tuple[bytes, ...]) -> list[dict[str, Any]]:
    """The chat with `images` (PNG) attached to its last user message as chat-completions image
    content parts (data URLs); unchanged without images."""
    if not images or not messages or messages[-1].get("role") != "user":
        return messages
    last = messages[-1]
    parts: list[dict[str, Any]] = [{"type": "text", "text": str(last.get("content", ""))}]
    parts += [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}
              for png in images]
    return [*messages[:-1], {**last, "content": parts}]
