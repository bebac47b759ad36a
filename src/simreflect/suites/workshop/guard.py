"""The workshop service's front door: limits every request meets before the app sees it, and the
shape of every refusal.

- A request body holds at most MAX_BODY_BYTES. A Content-Length above that is refused before a
  byte of the body is read; a body sent without one (chunked) is counted as it arrives and refused
  as soon as it passes the limit, so the host never holds more than the limit plus one chunk.
- At most MAX_IN_FLIGHT requests are handled at once: a program that opens many connections cannot
  make the host hold many bodies.
- A body is JSON read by the trusted side's one bounded reader (core.untrusted) before the app
  parses it: nesting, values, strings and numbers bounded, NaN, Infinity and lone surrogates
  refused, with the reader's reason (400 for a body that is not bounded JSON text, 422 for a
  value the commands never take).
- A validation error is answered with its field, its reason and its kind, never with the input:
  at most MAX_ERRORS errors, each string cut to a bounded length and made valid UTF-8.
Refusals are JSON bodies {"detail": ...} with a 4xx status (413 too large, 429 too many at once).
"""

from __future__ import annotations

import json
from typing import Any

from simreflect.core.untrusted import JsonLimits, Refusal, load_json

MAX_BODY_BYTES = 1 << 20
MAX_IN_FLIGHT = 8
MAX_ERRORS = 20
MAX_MESSAGE_CHARS = 300
MAX_LOC_ITEMS = 12
MAX_LOC_CHARS = 40
#: What a command body may hold: far more than any command needs (a segment list is a few kB).
BODY_LIMITS = JsonLimits(max_bytes=MAX_BODY_BYTES, max_depth=16, max_items=100_000, max_string_chars=10_000,
                         max_int_digits=32, max_abs=1e300, nonfinite="refuse", surrogates="refuse")
#: Refusal kinds that say the body is not bounded JSON text at all (400); others are values (422).
_MALFORMED = ("syntax", "encoding", "size", "depth", "items", "type")


def bounded_text(value: Any, limit: int) -> str:
    """`value` as text of at most `limit` characters, lone surrogates written as escapes."""
    text = str(value)
    if len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit} more characters)"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def bounded_errors(errors: list[Any]) -> list[dict[str, Any]]:
    """Validation errors as a client may see them: location, message and kind, no input."""
    out = []
    for err in errors[:MAX_ERRORS]:
        err = err if isinstance(err, dict) else {"msg": err}
        loc = [x if isinstance(x, int) else bounded_text(x, MAX_LOC_CHARS) for x in list(err.get("loc", ()))[:MAX_LOC_ITEMS]]
        entry = {"msg": bounded_text(err.get("msg", ""), MAX_MESSAGE_CHARS)}
        if loc:
            entry["loc"] = loc
        if "type" in err:
            entry["type"] = bounded_text(err["type"], MAX_LOC_CHARS)
        out.append(entry)
    if len(errors) > MAX_ERRORS:
        out.append({"msg": f"and {len(errors) - MAX_ERRORS} more errors"})
    return out


async def _refuse(send, status: int, detail: str | list[dict[str, Any]]) -> None:
    body = json.dumps({"detail": detail}).encode()
    # connection: close, so the server stops reading whatever the client still sends
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def _content_length(scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class RequestGuard:
    """ASGI middleware: the body-size and in-flight limits above."""

    def __init__(self, app, max_body_bytes: int = MAX_BODY_BYTES, max_in_flight: int = MAX_IN_FLIGHT):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_in_flight = max_in_flight
        self.in_flight = 0

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.max_in_flight:
            await _refuse(send, 429, f"more than {self.max_in_flight} requests at once")
            return
        self.in_flight += 1
        try:
            too_large = f"request body larger than {self.max_body_bytes} bytes"
            length = _content_length(scope)
            if length is not None and length > self.max_body_bytes:
                await _refuse(send, 413, too_large)
                return
            body = bytearray()
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":  # the client went away
                    return
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.max_body_bytes:
                    await _refuse(send, 413, too_large)
                    return
            if body.strip():
                try:
                    load_json(bytes(body), BODY_LIMITS, "the request body")
                except Refusal as e:
                    status = 400 if e.kind in _MALFORMED else 422
                    await _refuse(send, status, [{"msg": bounded_text(e, MAX_MESSAGE_CHARS), "type": e.kind}])
                    return
            await self.app(scope, _replay(bytes(body), receive), send)
        finally:
            self.in_flight -= 1


def _replay(body: bytes, receive):
    """A receive() that hands the app the body already read, then waits on the real one."""
    sent = False

    async def replayed():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
