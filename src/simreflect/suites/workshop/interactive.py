"""The workshop's interactive episode: one live session that a model drives through tools
(core.interactive): `http` is one request to the session's service over its Unix socket (through
the same guard and validation as a program's), `python` runs code in the core sandbox reaching the
service as a program does (suite.run_client), `finish` ends the session.

A session lives in a directory of the run (`base`): `record/` (the session's record, which the
sandbox never sees), `workspace/` (the sandbox's work directory: task.json, INTERFACE.md and what
the model's code leaves there, kept between python calls). A resumed session replays the recorded
commands from the initial state into a fresh session (bit-exact, as recording.replay is): the old
record is moved to `record.old` first and removed only when the replay is complete, so a kill
during the replay replays again from it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from simreflect.core.interactive import ToolCall
from simreflect.core.sandbox import write_workspace_file
from simreflect.suites.workshop import notes
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.recording import COMMANDS_FILE, canonical
from simreflect.suites.workshop.session import InvalidCommand, Session
from simreflect.suites.workshop.sim import CommandRejected

RECORD, OLD_RECORD, WORKSPACE = "record", "record.old", "workspace"
TOOL_SCRIPT = "tool_call.py"
#: The longest a python call may run (less when the session has less wall time left).
PYTHON_TIMEOUT_S = 600.0
#: The session's own finish reasons, named as budgets (what ended the session).
BUDGETS = {"finished by the client": "finish", "action budget spent": "actions",
           "simulated-time budget spent": "sim_seconds", "wall-time budget spent": "wall",
           "record size limit reached": "record"}


class SessionClock:
    """The session's wall clock: stopped while recorded commands are replayed, then running on
    from the wall time the session had used before the harness was restarted."""

    def __init__(self) -> None:
        self.base = 0.0
        self.started: float | None = None

    def __call__(self) -> float:
        return 0.0 if self.started is None else self.base + time.monotonic() - self.started

    def run_from(self, used_s: float) -> None:
        self.base, self.started = float(used_s), time.monotonic()


class WorkshopWorld:
    """One workshop session behind the World protocol of core.interactive."""

    tools = ("http", "python", "finish")

    def __init__(self, spec: BuildSpec, base: Path, task_json: str, wall_used_s: float = 0.0):
        import httpx

        from simreflect.suites.workshop.service import ServiceThread

        self.base = Path(base)
        self.workspace = self.base / WORKSPACE
        if not self.workspace.is_dir():
            self.workspace.mkdir(parents=True)
            write_workspace_file(self.workspace, "task.json", task_json)
            write_workspace_file(self.workspace, "INTERFACE.md", notes.INTERFACE)
        self.clock = SessionClock()
        self.replayed = self._restore(spec)
        self.clock.run_from(wall_used_s)
        # a Unix socket path has at most 107 bytes: its directory is a short private one
        self.sockets = Path(tempfile.mkdtemp(prefix="simreflect-ws-"))
        self.socket_path = self.sockets / "service.sock"
        self.service = ServiceThread(self.session, unix_socket=self.socket_path).start()
        self.http = httpx.Client(transport=httpx.HTTPTransport(uds=str(self.socket_path)),
                                 base_url="http://workshop", timeout=PYTHON_TIMEOUT_S)

    def _restore(self, spec: BuildSpec) -> list[dict[str, Any]]:
        """A session with every recorded command replayed (none on a fresh start); the replayed
        command lines."""
        record, old = self.base / RECORD, self.base / OLD_RECORD
        if (record / COMMANDS_FILE).is_file() and not old.exists():
            record.rename(old)
        shutil.rmtree(record, ignore_errors=True)
        lines = recorded_commands(old)
        self.session = Session(spec, record_dir=record, clock=self.clock)
        for line in lines:
            if line["kind"] == "act":
                self.session.act(line["request"])
            elif line["kind"] == "note":
                self.session.note(line["request"])
            elif line["kind"] == "finish":
                self.session._finish(line["result"].get("reason", ""), line["request"].get("summary", ""))
                break
        shutil.rmtree(old, ignore_errors=True)
        return lines

    # ----- the World protocol --------------------------------------------------------------------

    def commands(self) -> int:
        return self.session.recorder.index

    def sim_time(self) -> float:
        return float(self.session.engine.time)

    def ended(self) -> tuple[str, str] | None:
        if not self.session.finished:
            return None
        reason = self.session.finish_reason
        return BUDGETS.get(reason, "harness"), reason

    def end(self, reason: str) -> None:
        self.session.finish_quietly(reason)

    def finish(self, summary: str) -> str:
        try:
            return _json(self.session.finish({"summary": summary[:2000]}))
        except (InvalidCommand, CommandRejected) as e:
            return f"finish refused: {e}"

    def call(self, call: ToolCall, time_left_s: float = PYTHON_TIMEOUT_S) -> tuple[str, str]:
        if call.name == "http":
            return self._http(call.arguments)
        return self._python(call.arguments["code"], time_left_s)

    def recover(self, call: ToolCall, commands_before: int) -> str | None:
        """What a call in flight at the kill did, from the commands it left in the record."""
        done = self.replayed[commands_before:self.commands()] if self.commands() > commands_before else []
        if not done:
            return None
        if call.name == "python":
            return (f"The harness was restarted while this code ran: {len(done)} command(s) it sent had run and are "
                    "kept; its output is lost. Read GET /state before going on.")
        first = done[0]
        if first["kind"] == "finish":
            return _json({"ok": True, "finish_reason": first["result"].get("reason", "")})
        result = first["result"]
        body = call.arguments.get("body")
        if first["kind"] == "act" and isinstance(body, dict) and body.get("with_state") is True and len(done) == 1:
            # the record leaves with_state out (looking changes nothing); the world, replayed to just
            # after this command, gives the state the answer carried
            result = {**result, "state": self.session.state()}
        return "HTTP 200\n" + _json(result)

    # ----- tools ---------------------------------------------------------------------------------

    def _http(self, args: dict[str, Any]) -> tuple[str, str]:
        import httpx

        try:
            r = self.http.request(args["method"], args["path"], json=args.get("body"))
        except httpx.HTTPError as e:
            return "error", f"the request failed: {type(e).__name__}"
        return ("ok" if r.status_code < 400 else "error"), f"HTTP {r.status_code}\n{r.text}"

    def _python(self, code: str, time_left_s: float) -> tuple[str, str]:
        from simreflect.suites.workshop.suite import run_client

        left = min(self.session.budgets()["wall_seconds"]["left"], time_left_s)
        write_workspace_file(self.workspace, TOOL_SCRIPT, code)
        result = run_client(self.workspace, TOOL_SCRIPT, self.socket_path, max(1.0, min(PYTHON_TIMEOUT_S, left)))
        head = f"exit: {result.status}" + (f" ({result.reason})" if result.reason else "")
        return ("ok" if result.ok else "error"), f"{head}\noutput:\n{result.output_tail}"

    def close(self) -> None:
        self.http.close()
        self.service.stop()
        shutil.rmtree(self.sockets, ignore_errors=True)


def recorded_commands(root: Path) -> list[dict[str, Any]]:
    """The command lines of a record, up to a last line a kill cut short (never written whole, so
    never answered: the call that sent it is run again)."""
    path = Path(root) / COMMANDS_FILE
    lines = []
    for raw in (path.read_bytes().split(b"\n") if path.is_file() else []):
        if not raw.strip():
            continue
        try:
            lines.append(json.loads(raw))
        except ValueError:
            break
    return lines


def _json(obj: Any) -> str:
    try:
        return canonical(obj)
    except ValueError:
        return json.dumps(obj, default=str)
