"""A session: one build at one seed, its engine, budgets, notes, reward and (optional) recording.

The HTTP service is a thin layer over this class; tests and the reference controllers can also
drive it in-process through the same JSON payloads (LocalTransport in client.py). Every command is
validated completely before anything runs, so a rejected command changes nothing.

Budgets: the build's actions, simulated seconds and wall seconds, and the record's size (recording
.MAX_RECORD_BYTES). The command that spends one is executed, answered and recorded in full, and
then the session finishes (the finish settle and the final state are recorded after it), so a
replay of the record reproduces the final state. A command arriving after a budget ran out (wall
time passes between commands) is refused (409) and finishes the session. Notes have a budget of
their own (MAX_NOTES, MAX_NOTES_CHARS in total): a note past it is refused (409), the session goes on.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Optional

from simreflect.suites.workshop import grader
from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.protocol import Act, Finish, Note, parse_act, parse_segment
from simreflect.suites.workshop.sim import SETTLE_S, CommandRejected, Engine, _r
from simreflect.suites.workshop.world import HZ

MAX_NOTES = 200
MAX_NOTES_CHARS = 100_000
#: GET /state?fields=a,b: at most this many names, this long in all (every name is a top-level key).
MAX_FIELDS = 32
MAX_FIELDS_CHARS = 1000


class InvalidCommand(ValueError):
    """A command that is malformed or out of range (HTTP 422); `errors` as pydantic gives them."""

    def __init__(self, message: str, errors: list | None = None):
        super().__init__(message)
        self.errors = errors or [{"msg": message}]


class Session:
    def __init__(self, spec: BuildSpec, record_dir: Optional[Path] = None, clock=time.monotonic):
        self.spec = spec
        self.engine = Engine(spec)
        self.lock = threading.Lock()
        self.clock = clock
        self.started = clock()
        self.commands = 0
        self.notes: list[dict[str, Any]] = []
        self.notes_chars = 0
        self.finished = False
        self.finish_reason = ""
        self.final_state: Optional[dict[str, Any]] = None
        self.last_reward = 0.0
        self.total_reward = 0.0
        self.success = False
        self.recorder = None
        if record_dir is not None:
            from simreflect.suites.workshop.recording import Recorder

            self.recorder = Recorder(Path(record_dir), self)

    @classmethod
    def for_build(cls, build: str, seed: int, record_dir: Optional[Path] = None) -> Session:
        return cls(get_build(build).spec(seed), record_dir=record_dir)

    # ----- budgets ---------------------------------------------------------------------------------

    @property
    def budget_steps(self) -> int:
        return int(round(self.spec.budgets.sim_seconds * HZ))

    def budgets(self) -> dict[str, Any]:
        b = self.spec.budgets
        wall_used = self.clock() - self.started
        return {
            "actions": {"limit": b.actions, "used": self.engine.actions_used, "left": max(0, b.actions - self.engine.actions_used)},
            "sim_seconds": {"limit": b.sim_seconds, "used": _r(self.engine.time, 6),
                            "left": _r(max(0.0, b.sim_seconds - self.engine.time), 6)},
            "wall_seconds": {"limit": b.wall_seconds, "used": round(wall_used, 3), "left": round(max(0.0, b.wall_seconds - wall_used), 3)},
            "notes": {"limit": MAX_NOTES, "used": len(self.notes), "left": MAX_NOTES - len(self.notes),
                      "chars_limit": MAX_NOTES_CHARS, "chars_used": self.notes_chars},
        }

    def _spent(self) -> str:
        b = self.spec.budgets
        if self.engine.actions_used >= b.actions:
            return "action budget spent"
        if self.engine.step_count >= self.budget_steps:
            return "simulated-time budget spent"
        if self.clock() - self.started >= b.wall_seconds:
            return "wall-time budget spent"
        if self.recorder is not None and self.recorder.full:
            return "record size limit reached"
        return ""

    # ----- reading ---------------------------------------------------------------------------------

    def state(self, fields: str | None = None) -> dict[str, Any]:
        """The exact state; with `fields` ("boards,screws") only those top-level fields of it
        (InvalidCommand for a name the state has not: the known ones are listed)."""
        wanted = parse_fields(fields)
        with self.lock:
            out = self._state()
        if wanted is None:
            return out
        unknown = [f for f in wanted if f not in out]
        if unknown:
            raise InvalidCommand(f"unknown state field(s) {', '.join(unknown)}; the state has: {', '.join(sorted(out))}")
        return {f: out[f] for f in wanted}

    def _state(self) -> dict[str, Any]:
        if self.final_state is not None:
            out = dict(self.final_state)
        else:
            out = self.engine.observe_now()
        out["build"] = self.spec.name
        out["seed"] = self.spec.seed
        out["budgets"] = self.budgets()
        out["reward"] = {"last": _r(self.last_reward, 6), "total": _r(self.total_reward, 6)}
        out["done"] = self.finished
        out["finish_reason"] = self.finish_reason
        out["commands"] = self.commands
        out["notes"] = len(self.notes)
        return out

    def describe(self) -> dict[str, Any]:
        """The build spec, the robot's joints and their limits, the rules' numbers."""
        from simreflect.suites.workshop import notes

        return notes.describe(self.spec)

    # ----- commands --------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.finished:
            raise CommandRejected(f"the session is finished ({self.finish_reason}); no more commands")
        why = self._spent()
        if why:
            self._finish(why)
            raise CommandRejected(f"{why}: the session is now finished")

    def act(self, payload: dict[str, Any] | Act, single: bool = False) -> dict[str, Any]:
        from pydantic import ValidationError

        try:
            act = payload if isinstance(payload, Act) else (parse_segment(payload) if single else parse_act(payload))
        except ValidationError as e:
            raise InvalidCommand("invalid command", e.errors(include_url=False, include_context=False)) from None
        with self.lock:
            try:
                self.engine.validate(act)
            except ValueError as e:
                raise InvalidCommand(str(e)) from None
            self._check_open()
            t0 = self.clock()
            lost_before = sum(1 for t in self.engine.boards.values() if t.lost)
            success_before = self.success
            results = self.engine.execute(act, budget_steps=self.budget_steps, budget_actions=self.spec.budgets.actions)
            self.commands += 1
            obs = self.engine.observe_now()
            success_now = grader.passes(obs, self.spec)
            self.success = success_now
            reward = self.engine.reward_update(lost_before, success_before, success_now)
            self.last_reward = reward
            self.total_reward += reward
            out = {"command": self.commands, "results": results, "reward": _r(reward, 6),
                   "time": _r(self.engine.time, 6), "budgets": self.budgets(), "done": False}
            why = self._spent()
            if why:
                out["done"] = True
                out["finish_reason"] = why
            if self.recorder is not None:
                # with_state only asks to look: the world never depends on it, so the record leaves it out
                self.recorder.command("act", act.model_dump(mode="json", exclude={"with_state"}), out,
                                      wall_s=self.clock() - t0)
                if not why and self.recorder.full:  # this command's own line filled the record
                    why = "record size limit reached"
                    out = {**out, "done": True, "finish_reason": why}
            if why:
                self._finish(why)
            if act.with_state:
                out = {**out, "state": self._state()}
            return out

    def note(self, payload: dict[str, Any]) -> dict[str, Any]:
        from pydantic import ValidationError

        try:
            note = Note.model_validate(payload)
        except ValidationError as e:
            raise InvalidCommand("invalid note", e.errors(include_url=False, include_context=False)) from None
        with self.lock:
            self._check_open()
            if len(self.notes) >= MAX_NOTES:
                raise CommandRejected(f"note budget spent ({MAX_NOTES} notes); the session goes on")
            if self.notes_chars + len(note.text) > MAX_NOTES_CHARS:
                raise CommandRejected(f"note budget spent ({MAX_NOTES_CHARS} characters of notes in all, "
                                      f"{MAX_NOTES_CHARS - self.notes_chars} left); the session goes on")
            entry = {"index": len(self.notes), "time": _r(self.engine.time, 6), "text": note.text}
            self.notes.append(entry)
            self.notes_chars += len(note.text)
            if self.recorder is not None:
                self.recorder.note(note.model_dump(mode="json"), {"ok": True, **entry})
            return {"ok": True, **entry}

    def finish(self, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        from pydantic import ValidationError

        try:
            fin = Finish.model_validate(payload or {})
        except ValidationError as e:
            raise InvalidCommand("invalid finish", e.errors(include_url=False, include_context=False)) from None
        with self.lock:
            if self.finished:
                raise CommandRejected(f"the session is already finished ({self.finish_reason})")
            self._finish("finished by the client", summary=fin.summary)
            return {"ok": True, "time": _r(self.engine.time, 6), "finish_reason": self.finish_reason,
                    "progress": progress(self.final_state, self.spec)}

    def finish_quietly(self, reason: str) -> None:
        """Finish now if not finished yet (the service stopping, a program ending without /finish)."""
        with self.lock:
            self._finish(reason)

    def _finish(self, reason: str, summary: str = "") -> None:
        """Let the world settle (SETTLE_S, servo targets held, not counted in any budget), then freeze
        the final state."""
        if self.finished:
            return
        self.engine.settle(SETTLE_S)
        self.finished = True
        self.finish_reason = reason
        self.final_state = self.engine.observe_now()
        if self.recorder is not None:
            self.recorder.finish(reason, summary)


def parse_fields(fields: str | None) -> tuple[str, ...] | None:
    """The field names of a `fields` filter ("boards, screws"), None for no filter; InvalidCommand
    when it is too long, has too many names or an empty one."""
    if fields is None:
        return None
    if len(fields) > MAX_FIELDS_CHARS:
        raise InvalidCommand(f"fields is longer than {MAX_FIELDS_CHARS} characters")
    names = tuple(dict.fromkeys(f.strip() for f in fields.split(",")))
    if len(names) > MAX_FIELDS:
        raise InvalidCommand(f"fields names more than {MAX_FIELDS} fields")
    if not all(names):
        raise InvalidCommand("fields holds an empty name (write fields=boards,screws)")
    return names


def progress(state: dict[str, Any] | None, spec: BuildSpec) -> dict[str, Any]:
    v = grader.grade(state, spec)
    return {"complete": v.passed, **v.diagnostics}
