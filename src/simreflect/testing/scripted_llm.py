"""A real HTTP server that speaks the OpenAI chat-completions protocol and answers from a script.

Each request takes the next reply in the script (the last one repeats). A reply is a dict:
    {"content": "..."}                         200 with that message content
    {"status": 429, "retry_after": 0.1}        an error status (optionally with Retry-After)
    {"hang": 5.0}                              wait that long before answering (to trip timeouts)
    {"reject_format": True}                    400 if the request carries response_format, else next reply
    {"body": "not json"}                       a 200 whose body is not JSON
    {"tool_calls": [...], "content": ""}       200 with a message calling tools (chat-completions
                                               tool_calls: {"id", "type": "function", "function":
                                               {"name", "arguments": "<JSON text>"}}), finish_reason tool_calls
A reply may also be a callable taking the request JSON and returning such a dict.

    with ScriptedLLMServer([{"content": '{"diagnosis": "x", "script": "pass"}'}]) as server:
        agent = LLMAgent(LLMConfig(model="m", base_url=server.base_url))
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


class ScriptedLLMServer:
    def __init__(self, replies: list[Reply], host: str = "127.0.0.1", port: int = 0):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._index = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = server._next(body)
                if "hang" in reply:
                    time.sleep(float(reply["hang"]))
                    reply = {k: v for k, v in reply.items() if k != "hang"} or {"content": ""}
                if reply.get("reject_format") and "response_format" in body:
                    self._send(400, {"error": {"message": "response_format json_schema is not supported"}})
                    return
                if "body" in reply:
                    self._raw(200, str(reply["body"]).encode())
                    return
                status = int(reply.get("status", 200))
                if status != 200:
                    headers = {"Retry-After": str(reply["retry_after"])} if "retry_after" in reply else {}
                    self._send(status, {"error": {"message": reply.get("message", f"status {status}")}}, headers)
                    return
                content = reply.get("content", "")
                message = {"role": "assistant", "content": content}
                if "tool_calls" in reply:
                    message["tool_calls"] = reply["tool_calls"]
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "created": 0,  # required by the openai SDK's models (a fixed value: no clock)
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "tool_calls" if "tool_calls" in reply else "stop",
                                 "message": message}],
                    "usage": {"prompt_tokens": sum(len(m.get("content") or "") // 4 for m in body.get("messages", [])),
                              "completion_tokens": len(content) // 4,
                              "total_tokens": 0},
                })

            def _send(self, status, obj, headers=None):
                self._raw(status, json.dumps(obj).encode(), headers)

            def _raw(self, status, data, headers=None):
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _next(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(body)
            reply = self.replies[min(self._index, len(self.replies) - 1)]
            self._index += 1
            while isinstance(reply, dict) and reply.get("reject_format") and "response_format" not in body:
                reply = self.replies[min(self._index, len(self.replies) - 1)]
                self._index += 1
        return reply(body) if callable(reply) else dict(reply)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
