"""A thin client of the workshop service: JSON over HTTP (httpx), or in-process for development.

    from simreflect.suites.workshop.client import WorkshopClient
    c = WorkshopClient("http://127.0.0.1:8765")
    s = c.state()
    c.act([{"type": "move", "duration": 0.5, "left": {"ee": {"linear": [0, 0, 0.05]}}}])

Nothing here knows the physics: it only sends the commands the service documents.
"""

from __future__ import annotations

from typing import Any, Optional


class WorkshopError(Exception):
    def __init__(self, status: int, detail: Any):
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class HttpTransport:
    def __init__(self, url: str, timeout: float = 120.0):
        import httpx

        self.url = url.rstrip("/")
        self.http = httpx.Client(base_url=self.url, timeout=timeout)

    def request(self, method: str, path: str, payload: Optional[dict] = None) -> dict:
        r = self.http.request(method, path, json=payload)
        if r.status_code >= 400:
            try:
                detail = r.json().get("detail")
            except ValueError:
                detail = r.text
            raise WorkshopError(r.status_code, detail)
        return r.json()

    def close(self) -> None:
        self.http.close()


class LocalTransport:
    """The same requests, answered by a Session in this process (no network)."""

    def __init__(self, session):
        self.session = session

    def request(self, method: str, path: str, payload: Optional[dict] = None) -> dict:
        from simreflect.suites.workshop.session import InvalidCommand
        from simreflect.suites.workshop.sim import CommandRejected

        s = self.session
        try:
            path, _, query = path.partition("?")
            if (method, path) == ("GET", "/state"):
                from urllib.parse import parse_qs

                return s.state(parse_qs(query).get("fields", [None])[-1])
            if (method, path) == ("GET", "/spec"):
                return s.describe()
            if (method, path) == ("POST", "/act"):
                return s.act(payload)
            if (method, path) == ("POST", "/step"):
                return s.act(payload, single=True)
            if (method, path) == ("POST", "/note"):
                return s.note(payload)
            if (method, path) == ("POST", "/finish"):
                return s.finish(payload)
        except InvalidCommand as e:
            raise WorkshopError(422, e.errors) from None
        except CommandRejected as e:
            raise WorkshopError(409, str(e)) from None
        raise WorkshopError(404, f"no route {method} {path}")

    def close(self) -> None:
        pass


class WorkshopClient:
    def __init__(self, url_or_transport):
        self.t = HttpTransport(url_or_transport) if isinstance(url_or_transport, str) else url_or_transport

    def state(self, fields: Optional[str] = None) -> dict:
        return self.t.request("GET", "/state" + (f"?fields={fields}" if fields else ""))

    def spec(self) -> dict:
        return self.t.request("GET", "/spec")

    def act(self, segments: list[dict], with_state: bool = False) -> dict:
        """Run the segments; with `with_state` the answer's "state" is the state after them."""
        payload: dict = {"segments": segments}
        if with_state:
            payload["with_state"] = True
        return self.t.request("POST", "/act", payload)

    def step(self, segment: dict) -> dict:
        return self.t.request("POST", "/step", segment)

    def note(self, text: str) -> dict:
        return self.t.request("POST", "/note", {"text": text})

    def finish(self, summary: str = "") -> dict:
        return self.t.request("POST", "/finish", {"summary": summary})

    def close(self) -> None:
        self.t.close()
