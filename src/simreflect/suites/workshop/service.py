"""The HTTP command service: a FastAPI app over one Session, served by uvicorn on 127.0.0.1 only.

Endpoints (the OpenAPI schema is at /openapi.json, the docs at /docs):
    GET  /health          liveness
    GET  /spec            the build, the robot's joints and limits, the rules' numbers
    GET  /state           the exact structured state, budgets, reward, progress; ?fields=boards,screws
                          returns only those top-level fields (an unknown name is a 422 listing the known)
    POST /act             {"segments": [...]}: moves, waits and drill actions, run in order
    POST /step            one segment (the same objects as in /act)
    POST /note            {"text": "..."}: a short progress note, recorded
    POST /finish          {"summary": "..."}: settle, freeze the final state, end the session
A malformed or out-of-range command is answered 422 with the field and the reason (never the input)
and changes nothing; a command the session cannot take any more (finished, a budget spent) is
answered 409; a body over the size limit 413, too many requests at once 429 (guard.py). Every
refusal is a JSON body {"detail": ...}. There is no reset and no way to set a pose or a state: the
world changes only through the robot.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path
from typing import Optional

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from simreflect.suites.workshop.guard import RequestGuard, bounded_errors, bounded_text
from simreflect.suites.workshop.protocol import Act, Finish, Note, Segment
from simreflect.suites.workshop.session import MAX_FIELDS_CHARS, InvalidCommand, Session
from simreflect.suites.workshop.sim import CommandRejected

HOST = "127.0.0.1"

_REFUSALS = {status: {"description": what, "content": {"application/json": {"schema": {
    "type": "object", "properties": {"detail": {}}, "required": ["detail"]}}}}
    for status, what in ((400, "The body cannot be read as JSON (not UTF-8, malformed, nested too deep, a number too long)."),
                         (409, "The session cannot take this command now (finished, a budget spent)."),
                         (413, "The request body is over the size limit."),
                         (422, "The command is malformed or out of range; nothing changed."),
                         (429, "Too many requests at once."))}


def create_app(session: Session) -> FastAPI:
    from simreflect.suites.workshop import notes

    app = FastAPI(title="simreflect workshop", version="1", description=notes.SERVICE_DOC, responses=_REFUSALS)
    app.add_middleware(RequestGuard)

    @app.exception_handler(RequestValidationError)
    async def _malformed(request: Request, exc: RequestValidationError):
        return JSONResponse(status_code=422, content={"detail": bounded_errors(list(exc.errors()))})

    @app.exception_handler(InvalidCommand)
    async def _invalid(request: Request, exc: InvalidCommand):
        return JSONResponse(status_code=422, content={"detail": bounded_errors(exc.errors)})

    @app.exception_handler(CommandRejected)
    async def _rejected(request: Request, exc: CommandRejected):
        return JSONResponse(status_code=409, content={"detail": bounded_text(exc, 1000)})

    # Responses are plain JSON built from dicts of floats and strings: JSONResponse serialises them
    # directly (FastAPI's generic encoder would walk every float of a state first, ten times slower).
    @app.get("/health")
    def health() -> JSONResponse:
        return JSONResponse({"ok": True, "build": session.spec.name, "seed": session.spec.seed, "done": session.finished})

    @app.get("/spec")
    def spec() -> JSONResponse:
        return JSONResponse(session.describe())

    @app.get("/state")
    def state(fields: Optional[str] = Query(None, max_length=MAX_FIELDS_CHARS,
                                            description="Comma-separated top-level fields to return (boards,screws).")
              ) -> JSONResponse:
        return JSONResponse(session.state(fields))

    @app.post("/act")
    def act(body: Act) -> JSONResponse:
        return JSONResponse(session.act(body))

    @app.post("/step")
    def step(body: Segment = Body(...)) -> JSONResponse:
        return JSONResponse(session.act(Act(segments=[body])))

    @app.post("/note")
    def note(body: Note) -> JSONResponse:
        return JSONResponse(session.note(body.model_dump()))

    @app.post("/finish")
    def finish(body: Optional[Finish] = None) -> JSONResponse:
        return JSONResponse(session.finish(body.model_dump() if body is not None else {}))

    return app


def free_socket(host: str = HOST, port: int = 0) -> socket.socket:
    """A bound listening socket on `host:port` (port 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit this: without it the response's second write waits ~40 ms for the
    # client's delayed ACK (Nagle), which made every command cost 45 ms
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(64)
    return sock


def unix_listener(path: Path) -> socket.socket:
    """A listening Unix socket at `path` that any local user may connect to (the sandboxed
    program runs under another uid; the directory holding the socket is what guards it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    os.chmod(path, 0o666)
    sock.listen(64)
    return sock


class ServiceThread:
    """uvicorn serving a session's app from a background thread (tests, run_program)."""

    def __init__(self, session: Session, port: int = 0, unix_socket: Optional[Path] = None):
        """Listen on HOST:port, or with `unix_socket` on that Unix socket only (for a sandboxed
        client, whose relay reaches it from its own network namespace; `url` is then None)."""
        import uvicorn

        self.session = session
        if unix_socket is not None:
            self.sock = unix_listener(Path(unix_socket))
            self.port, self.url = None, None
        else:
            self.sock = free_socket(HOST, port)
            self.port = self.sock.getsockname()[1]
            self.url = f"http://{HOST}:{self.port}"
        config = uvicorn.Config(create_app(session), log_level="warning", access_log=False, lifespan="off",
                                ws="none")  # plain HTTP only: no WebSocket upgrade
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def start(self, timeout: float = 20.0) -> ServiceThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the workshop service did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    def __enter__(self) -> ServiceThread:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(session: Session, port: int, exit_after_finish: bool = False, on_ready=None) -> None:
    """Serve in the foreground until interrupted (or, with `exit_after_finish`, shortly after the
    session finishes)."""
    svc = ServiceThread(session, port).start()
    if on_ready is not None:
        on_ready(svc.url)
    try:
        while svc.thread.is_alive():
            if exit_after_finish and session.finished:
                time.sleep(0.5)  # let the /finish response go out
                break
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        if not session.finished:
            session.finish_quietly("service stopped")
        svc.stop()
