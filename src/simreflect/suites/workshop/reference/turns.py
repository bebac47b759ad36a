"""The reference controller of a build as an interactive agent: every request it makes becomes one
`http` tool call, its reply the tool result the session returns; when the controller is done (it
sends POST /finish itself) the agent calls `finish`.

The controller runs in a thread of its own that blocks on each request until the next turn brings
its result. A fresh agent given a chat with results in it (a resumed session, or the scripted
test server, which is handed the whole chat each request) first feeds the controller the recorded
results in order: the controller is deterministic and JSON floats read back exactly, so it asks the
same requests again and carries on from the first one not answered.
"""

from __future__ import annotations

import importlib
import json
import queue
import threading
from typing import Any

from simreflect.core.interactive import ModelTurn
from simreflect.suites.workshop.client import WorkshopClient, WorkshopError

#: The state fields the reference's skills read: the rest of the state stays out of the chat.
STATE_FIELDS = "time,arms,boards,drills,screws,holds"
_DONE = object()
#: How long a turn waits for the controller's next request (it computes, it never sleeps).
REQUEST_TIMEOUT_S = 600.0


def _http_call(call_id: str, method: str, path: str, body: Any) -> dict[str, Any]:
    args = {"method": method, "path": path, **({"body": body} if body is not None else {})}
    return {"id": call_id, "type": "function", "function": {"name": "http", "arguments": json.dumps(args)}}


def tool_results(messages: list[dict[str, Any]]) -> list[str]:
    """The contents of the tool results of a chat, in order (the text protocol's are not read)."""
    return [m.get("content", "") for m in messages if isinstance(m, dict) and m.get("role") == "tool"]


def parse_result(text: str) -> dict:
    """A tool result of `http` ("HTTP 200\\n{...}") as the client would have read it."""
    head, _, body = text.partition("\n")
    status = int(head.split()[1]) if head.startswith("HTTP ") and head[5:].strip().isdigit() else 0
    try:
        data = json.loads(body)
    except ValueError:
        data = body
    if status == 0 or status >= 400:
        raise WorkshopError(status, data.get("detail") if isinstance(data, dict) else data)
    return data


class _TurnTransport:
    """The controller's transport: a request is handed to the agent, its result awaited."""

    def __init__(self, requests: queue.Queue, replies: queue.Queue):
        self.requests, self.replies = requests, replies

    def request(self, method: str, path: str, payload: dict | None = None) -> dict:
        if (method, path) == ("GET", "/state"):
            path = f"/state?fields={STATE_FIELDS}"
        self.requests.put((method, path, payload))
        return parse_result(self.replies.get())

    def close(self) -> None:
        pass


class ReferenceTurnAgent:
    """The oracle of interactive episodes: the build's reference controller behind `http` calls."""

    name = "oracle"
    text_protocol = False

    def __init__(self, build: str):
        self.build = build
        self.fed = 0  # tool results handed to the controller
        self.thread: threading.Thread | None = None
        self.requests: queue.Queue = queue.Queue()
        self.replies: queue.Queue = queue.Queue()
        self.outcome = ""
        self.pending: Any = None  # the controller's request not answered yet

    def _start(self) -> None:
        module = importlib.import_module(f"simreflect.suites.workshop.reference.{self.build}")

        def work() -> None:
            try:
                module.run(WorkshopClient(_TurnTransport(self.requests, self.replies)))
                self.outcome = f"{self.build} built by the reference controller"
            except Exception as e:  # the controller gave up: the agent finishes and says why
                self.outcome = f"the reference controller stopped: {type(e).__name__}: {str(e)[:300]}"
            self.requests.put(_DONE)

        self.thread = threading.Thread(target=work, daemon=True, name=f"reference-{self.build}")
        self.thread.start()

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        results = tool_results(messages)
        if self.thread is None:
            self._start()
        while True:
            if self.pending is None:
                self.pending = self.requests.get(timeout=REQUEST_TIMEOUT_S)
            if self.pending is _DONE:
                call = {"id": f"call_{len(results)}", "type": "function",
                        "function": {"name": "finish", "arguments": json.dumps({"summary": self.outcome})}}
                return ModelTurn({"role": "assistant", "content": "", "tool_calls": [call]})
            if self.fed < len(results):  # a request the chat already holds the answer to
                self.replies.put(results[self.fed])
                self.fed += 1
                self.pending = None
                continue
            method, path, payload = self.pending
            return ModelTurn({"role": "assistant", "content": "",
                              "tool_calls": [_http_call(f"call_{len(results)}", method, path, payload)]})
