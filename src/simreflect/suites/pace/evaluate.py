"""One evaluation: a design program against one environment of one task.

    program text -> sandbox session (runner: build(api) -> design JSON)
                 -> parse + validate the design (trusted) -> Box2D world (task world + design)
                 -> run at 60 FPS (controller requests every few steps, for controller tasks)
                 -> the task's evaluator -> constraints -> the one score -> feedback

The program only ever receives the visible variables and, for controller tasks, the sensor
readings its task documents. Its session is closed as soon as it is no longer needed (right
after the build for design-only tasks). `Evaluation.metrics()` is deterministic (same program and
environment -> same bytes in any process); timings are kept apart in `Evaluation.timings`.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from simreflect.core.program import ProgramResult
from simreflect.core.sandbox import SANDBOX_WORKDIR, Limits, SessionError, open_session, write_workspace_file
from simreflect.core.untrusted import JsonLimits, Refusal, finite_float, load_json
from simreflect.core.verdict import Check, Detail, Verdict
from simreflect.suites.pace import feedback as feedback_mod
from simreflect.suites.pace.design import TOLERANCE, DesignInvalid, check_design, parse_design
from simreflect.suites.pace.engine import DT, Event, Sim, StopSimulation, Timings
from simreflect.suites.pace.overlap import world_overlaps
from simreflect.suites.pace.scoring import Constraint, score
from simreflect.suites.pace.task import GENERIC_CONSTRAINTS, Outcome, TaskSpec, parse_stage, stage_label
from simreflect.suites.pace.wire import TAG_COMMAND, TAG_JSON, FrameError, Layout, json_payload

PROGRAM_FILE = "program.py"
TASK_FILE = "task.json"
#: All of simreflect the program's process can import: the API, the runner and the frames it speaks
#: (wire: standard library only). Not the engine,
#: not the evaluator, not the task folders (their stages hold the hidden values).
PROGRAM_MODULES = ("simreflect.suites.pace.api", "simreflect.suites.pace.runner", "simreflect.suites.pace.wire")
DEFAULT_TIMEOUT_S = 120.0
BUILD_TIMEOUT_S = 30.0
CONTROL_TIMEOUT_S = 2.0
MAX_REPLY_BYTES = 1 << 20
#: How the program's replies are read (core.untrusted): a design is a few levels deep and at most
#: a few thousand values (design.ENGINE_CAP); NaN and infinities are refused on the pipe (every
#: number of a design and of a command must be finite; design.py bounds each field further);
#: a lone surrogate in a string (an id, an error message) is replaced by U+FFFD.
REPLY_LIMITS = JsonLimits(max_bytes=MAX_REPLY_BYTES, max_depth=16, max_items=50_000, max_string_chars=10_000,
                          surrogates="replace")


class ChannelError(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _decode_reply(payload: bytes) -> Any:
    """A JSON reply frame's document, read within REPLY_LIMITS (hostile bytes: raises FrameError)."""
    if not payload or payload[0] != TAG_JSON:
        tag = f"0x{payload[0]:02x}" if payload else "none"
        raise FrameError(f"a reply of type {tag} where a JSON document was due")
    try:
        return load_json(payload[1:], REPLY_LIMITS, "it")
    except Refusal as e:
        raise FrameError(f"not one JSON value: {e}") from None


class _FrameCommand(dict):
    """A command read from a C frame by its layout: its keys are this task's actuators, its values
    finite floats (so only the clamping of `_clean_command` is left to do)."""


class _ControlReplies:
    """How a reply to a control request is read: a C frame (the command, judged by the layout) or
    a JSON frame (the reply as the JSON protocol has it); anything else is a FrameError."""

    __slots__ = ("layout",)

    def __init__(self, layout: Layout | None):
        self.layout = layout

    def __call__(self, payload: bytes) -> Any:
        if payload and payload[0] == TAG_COMMAND and self.layout is not None:
            return {"ok": True, "cmd": _FrameCommand(self.layout.decode_command(payload))}
        return _decode_reply(payload)


class SandboxChannel:
    """The program in a sandbox session (the only channel for untrusted programs), spoken to in
    frames (suites/pace/wire.py): JSON documents for the build and the first control request,
    float64 frames for the sensors and the commands after that."""

    def __init__(self, workdir: Path, timeout_s: float):
        limits = Limits(wall_s=timeout_s, cpu_s=timeout_s, memory_mb=1024, processes=16, file_mb=16,
                        output_kb=64, disk_mb=64)
        self.session = open_session([sys.executable, "-P", "-m", "simreflect.suites.pace.runner",
                                     f"{SANDBOX_WORKDIR}/{PROGRAM_FILE}"], workdir, limits,
                                    package_modules=PROGRAM_MODULES, max_message_bytes=MAX_REPLY_BYTES,
                                    reply_limits=REPLY_LIMITS)
        self._layout: Layout | None = None
        self._replies = _ControlReplies(None)

    def _exchange(self, payload: bytes, timeout_s: float, decode: Callable[[bytes], Any]) -> Any:
        try:
            return self.session.request_frame(payload, timeout_s, decode)
        except SessionError as e:
            raise ChannelError(e.kind, str(e)) from None

    def request(self, msg: dict[str, Any], timeout_s: float) -> Any:
        """One JSON request and its JSON reply."""
        return self._exchange(json_payload(json.dumps(msg, separators=(",", ":"), allow_nan=False)), timeout_s,
                              _decode_reply)

    def control(self, sensors: dict[str, Any], commands: tuple[str, ...], timeout_s: float) -> Any:
        """The program's reply to these sensor readings: {"ok": True, "cmd": {...}} or its failure.
        Readings that fit the layout go as an S frame; others (the first, or another shape) as
        JSON with their layout, which is the one from then on."""
        layout = self._layout
        payload = layout.encode_sensors(sensors) if layout is not None else None
        if payload is None:
            layout = Layout.of(sensors, list(commands))
            msg: dict[str, Any] = {"op": "control", "sensors": sensors}
            if layout is not None:
                msg["layout"] = layout.to_json()
            self._layout = layout
            self._replies = _ControlReplies(layout)
            payload = json_payload(json.dumps(msg, separators=(",", ":"), allow_nan=False))
        return self._exchange(payload, timeout_s, self._replies)

    def close(self) -> ProgramResult:
        return self.session.close()


class InProcessChannel:
    """A TRUSTED program (a reference design of this package) run in this process, for tuning tasks
    and profiling. No isolation at all: never give it a program you did not write."""

    def __init__(self, program: str):
        from simreflect.suites.pace.api import API

        self._api_cls = API
        self._namespace: dict[str, Any] = {"__name__": "design_program"}
        self._source = program
        self._control = None

    def request(self, msg: dict[str, Any], timeout_s: float) -> Any:
        msg = json.loads(json.dumps(msg))
        try:
            if msg["op"] == "build":
                exec(compile(self._source, "program.py", "exec"), self._namespace)
                api = self._api_cls(msg.get("env") or {})
                self._namespace["build"](api)
                self._control = self._namespace.get("control")
                out = {"ok": True, "design": api.to_dict(), "controller": callable(self._control)}
            else:
                out = {"ok": True, "cmd": self._control(msg.get("sensors") or {})}
        except Exception as e:  # noqa: BLE001 - reported like the runner does
            out = {"ok": False, "where": msg["op"], "error": f"{type(e).__name__}: {e}"}
        return json.loads(json.dumps(out, allow_nan=False))

    def control(self, sensors: dict[str, Any], commands: tuple[str, ...], timeout_s: float) -> Any:
        return self.request({"op": "control", "sensors": sensors}, timeout_s)

    def close(self) -> ProgramResult:
        return ProgramResult("ok", 0, "", 0.0, isolation={"mode": "in-process (trusted programs only)"})


@dataclass
class Evaluation:
    task: str
    stage: str
    passed: bool
    score: float
    goal_met: bool
    progress: float
    goal: str
    constraints: list[Constraint]
    steps: int
    failure: str
    failure_step: int | None
    events: list[Event]
    joints: list[dict[str, Any]]
    health: dict[str, Any]
    terminal: dict[str, Any]
    design: dict[str, Any]
    invalid: str = ""
    program: ProgramResult | None = None
    notes: list[str] = field(default_factory=list)
    feedback: str = ""
    feedback_levels: dict[str, str] = field(default_factory=dict)
    timings: Timings = field(default_factory=Timings)

    @property
    def sim_time(self) -> float:
        return self.steps * DT

    def metrics(self) -> dict[str, Any]:
        """Everything the evaluation concluded, as deterministic JSON data (no timings)."""
        return {
            "task": self.task, "stage": self.stage, "passed": self.passed, "score": self.score,
            "goal_met": self.goal_met, "progress": round(self.progress, 6), "goal": self.goal,
            "invalid": self.invalid, "failure": self.failure, "failure_step": self.failure_step,
            "steps": self.steps, "sim_time": round(self.sim_time, 4),
            "constraints": [c.to_dict() for c in self.constraints],
            "events": [e.to_dict() for e in self.events], "joints": self.joints, "health": self.health,
            "terminal": self.terminal, "design": self.design, "notes": self.notes,
            "program_status": None if self.program is None else self.program.status,
        }

    def metrics_json(self) -> str:
        return json.dumps(self.metrics(), sort_keys=True, separators=(",", ":"), default=_jsonable)

    def verdict(self) -> Verdict:
        diagnostics = {"feedback": self.feedback_levels or {"3": self.feedback}, "metrics": self.metrics()}
        if self.invalid:
            return Verdict(checks=(), score=self.score, reward=self.score / 100.0, invalid=self.invalid,
                           diagnostics=diagnostics)
        checks = [Check("goal", self.goal_met, value=round(self.progress, 4), limit="goal met", unit="progress",
                        message=self.goal)]
        for c in self.constraints:
            limit = "" if c.limit is None else f"{c.sense} {c.limit:g}"
            details = (Detail(2, c.detail),) if c.detail else ()
            checks.append(Check(c.name, c.passed, value=c.value, limit=limit, unit=c.unit,
                                message=c.description, where={} if c.step is None else {"step": c.step},
                                details=details))
        return Verdict(checks=tuple(checks), score=self.score, reward=self.score / 100.0, diagnostics=diagnostics)


def _both(first: Callable[[Sim], None], second: Callable[[Sim], None]) -> Callable[[Sim], None]:
    def call(sim: Sim) -> None:
        first(sim)
        second(sim)

    return call


def _jsonable(o: Any) -> Any:
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    raise TypeError(f"not JSON: {type(o).__name__}")


def _program_failure(reply: Any, where: str) -> str | None:
    """Why a reply is not a success, in words (None for a good reply)."""
    if not isinstance(reply, dict):
        return f"the program's reply to '{where}' is not a JSON object"
    if reply.get("ok") is True:
        return None
    if reply.get("ok") is False:
        err = str(reply.get("error", ""))[:500] or "an error"
        return f"the program's {str(reply.get('where', where))[:20]}() raised {err}"
    return f"the program's reply to '{where}' has no ok field"


def _clean_command(raw: Any, commands: dict[str, tuple[float, float]], last: dict[str, float],
                   saturation: dict[str, int]) -> dict[str, float]:
    if type(raw) is _FrameCommand:  # judged by the frame's layout already: only the clamping
        out = dict(last)
        for name, v in raw.items():
            lo, hi = commands[name]
            if v < lo or v > hi:
                saturation[name] = saturation.get(name, 0) + 1
                v = min(hi, max(lo, v))
            out[name] = v
        return out
    if not isinstance(raw, dict):
        raise ValueError(f"control() must return a dict of actuator commands, got {type(raw).__name__}")
    unknown = sorted(str(k) for k in raw if k not in commands)
    if unknown:
        raise ValueError(f"control() returned unknown actuator(s) {', '.join(unknown)[:200]}; this task's "
                         f"actuators are {', '.join(commands)}")
    out = dict(last)
    for name, (lo, hi) in commands.items():
        if name not in raw:
            continue
        v = finite_float(raw[name])  # the reply's numbers are bounded already (REPLY_LIMITS): repr is safe
        if v is None:
            raise ValueError(f"control() returned {raw[name]!r}"[:120] + f" for {name}, which is not a finite number")
        if v < lo or v > hi:
            saturation[name] = saturation.get(name, 0) + 1
            v = min(hi, max(lo, v))
        out[name] = v
    return out


def evaluate(spec: TaskSpec, stage: str, program: str, *, workdir: Path | None = None,
             timeout_s: float = DEFAULT_TIMEOUT_S, gif: Path | None = None, trusted_inprocess: bool = False,
             observe: Callable[[Sim], None] | None = None) -> Evaluation:
    """Run `program` against `stage` of `spec` (see the module docstring).

    `workdir` (optional) is the program's work directory: program.py and task.json are written
    there; otherwise a temporary one is used. `gif` writes an animation of the run. `observe`
    (trusted code only) is called with the simulator at every GIF frame (4 steps) and once after
    the run, to read it (the probe's contact log); it never enters the metrics."""
    stage = parse_stage(stage)
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="simreflect-pace-") as tmp:
            return evaluate(spec, stage, program, workdir=Path(tmp), timeout_s=timeout_s, gif=gif,
                            trusted_inprocess=trusted_inprocess, observe=observe)
    kw = {"timeout_s": timeout_s, "gif": gif, "trusted_inprocess": trusted_inprocess, "observe": observe}
    if len(spec.runs) == 1:
        return _evaluate_run(spec, stage, program, spec.run_environment(stage, spec.runs[0]), Path(workdir), **kw)
    return _evaluate_runs(spec, stage, program, Path(workdir), **kw)


def _evaluate_runs(spec: TaskSpec, stage: str, program: str, workdir: Path, **kw: Any) -> Evaluation:
    """Every run of the card's [[runs]] (task.Run) in turn, each in a fresh work directory of its
    own holding only the program and task.json (nothing one run writes reaches the next, nothing
    tells the program which run it is in), until one fails. The evaluation is that failing run's,
    or the last run's when all pass; its notes say how every run went."""
    _write_workspace(spec, stage, program, workdir)
    said: list[str] = []
    total = Timings()
    n = len(spec.runs)
    for i, run in enumerate(spec.runs, 1):
        with tempfile.TemporaryDirectory(prefix="simreflect-pace-run-") as tmp:
            ev = _evaluate_run(spec, stage, program, spec.run_environment(stage, run), Path(tmp), **kw)
        for k in ("program_s", "engine_s", "harness_s", "total_s", "steps", "requests"):
            setattr(total, k, getattr(total, k) + getattr(ev.timings, k))
        label = f"run {i} of {n} ({run.name})"
        said.append(f"{label}: " + ("passed" if ev.passed else f"failed: {ev.failure}"))
        if not ev.passed:
            ev.failure = f"{label}: {ev.failure}"
            break
    ev.notes = said + ev.notes
    ev.feedback_levels = feedback_mod.format_levels(ev, spec)
    ev.feedback = ev.feedback_levels["3"]
    ev.timings = total
    return ev


def _write_workspace(spec: TaskSpec, stage: str, program: str, workdir: Path) -> None:
    """The work directory the program runs in: its program.py and task.json, nothing else."""
    workdir.mkdir(parents=True, exist_ok=True)
    write_workspace_file(workdir, PROGRAM_FILE, program)
    write_workspace_file(workdir, TASK_FILE, task_description(spec, stage))


def _close(channel, timings: Timings) -> ProgramResult:
    """End the program's session, its time counted as the program's."""
    t0 = time.perf_counter()
    closed = channel.close()
    timings.program_s += time.perf_counter() - t0
    return closed


def _request_design(spec: TaskSpec, stage: str, channel, timeout_s: float, timings: Timings, t0: float):
    """Ask the program for its design: (design, None), or (None, why the program gave none usable).
    The program's time runs from `t0` (before its session was opened) to its answer."""
    try:
        reply = channel.request({"op": "build", "env": spec.visible(stage)}, min(BUILD_TIMEOUT_S, timeout_s))
        problem = _program_failure(reply, "build")
    except ChannelError as e:
        reply, problem = None, f"the program did not answer the build request: {e}"
    timings.program_s += time.perf_counter() - t0
    if problem is not None:
        return None, problem
    try:
        design = parse_design(reply.get("design"))
    except DesignInvalid as e:
        return None, f"the declared design cannot be simulated: {e}"
    if spec.controller and reply.get("controller") is not True:
        return None, "this task needs a controller, and the program defines no control(sensors) function"
    return design, None


@dataclass
class _Scene:
    """The built world of one run: the simulator, the task's world around the design, the design's
    rule checks and the task's evaluator."""

    sim: Sim
    world: Any
    design_constraints: list[Constraint]
    design_summary: dict[str, Any]
    evaluator: Any


def _build_scene(spec: TaskSpec, env: dict[str, Any], design) -> _Scene:
    rules = spec.rules(env)
    sim = Sim(spec.engine_settings(env))
    world = spec.world_class(sim, env)
    world.build()
    sim.build_design(design, rules, spec.strength(env))
    world.place(design)
    design_constraints, design_summary = check_design(design, rules, world_overlaps(sim, TOLERANCE))
    return _Scene(sim, world, design_constraints, design_summary, spec.make_evaluator(sim, world, env))


class _Controller:
    """The program's controller as the simulator calls it: sensor readings out, clamped commands
    back (held until the next request); a failure stops the simulation with its reason in `stop`."""

    def __init__(self, channel, world, timings: Timings, stop: list[str]):
        self.channel, self.world, self.timings, self.stop = channel, world, timings, stop
        self.commands = dict(world.commands)
        self.names = tuple(self.commands)
        self.last = {k: 0.0 if lo <= 0.0 <= hi else lo for k, (lo, hi) in self.commands.items()}
        self.saturation: dict[str, int] = {}

    def _fail(self, step: int, why: str) -> str:
        why = f"the controller failed at step {step} (t = {step * DT:.2f} s): {why}"
        self.stop.append(why)
        return why

    def __call__(self, step: int) -> None:
        sensors = self.world.sensors(step)
        t1 = time.perf_counter()
        try:
            reply = self.channel.control(sensors, self.names, CONTROL_TIMEOUT_S)
        except ChannelError as e:
            self.timings.program_s += time.perf_counter() - t1
            raise StopSimulation("program", self._fail(step, str(e))) from None
        self.timings.program_s += time.perf_counter() - t1
        self.timings.requests += 1
        bad = _program_failure(reply, "control")
        if bad is None:
            try:
                self.last = _clean_command(reply.get("cmd"), self.commands, self.last, self.saturation)
            except ValueError as e:
                bad = str(e)
        if bad is not None:
            raise StopSimulation("program", self._fail(step, bad))
        self.world.apply(self.last, step)


def _frame_hooks(spec: TaskSpec, env: dict[str, Any], gif: Path | None, observe: Callable[[Sim], None] | None):
    """(the GIF's frame recorder or None, what the simulator calls at every frame or None)."""
    frames = None
    on_frame = None
    if gif is not None:
        from simreflect.suites.pace.render import FrameRecorder

        frames = FrameRecorder(spec, env)
        on_frame = frames.capture
    if observe is not None:
        on_frame = observe if on_frame is None else _both(on_frame, observe)
    return frames, on_frame


def _simulate(spec: TaskSpec, stage: str, scene: _Scene, control: _Controller | None, on_frame,
              observe: Callable[[Sim], None] | None) -> Outcome:
    sim, world = scene.sim, scene.world
    sim.event("start", f"simulation starts ({stage_label(stage)})", 0)
    sim.run(scene.evaluator, before_step=world.before_step if world.forces else None, control=control,
            on_frame=on_frame)
    if observe is not None:
        observe(sim)
    return scene.evaluator.finish()


def _run_notes(control: _Controller | None) -> list[str]:
    saturation = control.saturation if control is not None else {}
    if not saturation:
        return []
    return ["commands outside their range were clamped: " +
            ", ".join(f"{k} {n} times" for k, n in sorted(saturation.items()))]


def _check_hold(spec: TaskSpec, env: dict[str, Any], scene: _Scene, outcome: Outcome) -> None:
    """A task's evaluator may only meet its goal through its success hold (a task bug otherwise)."""
    if outcome.goal_met and not scene.evaluator.success.met:
        raise RuntimeError(f"{spec.id}: the evaluator met its goal without its success hold "
                           f"({spec.hold_rule(env)})")


def _evaluate_run(spec: TaskSpec, stage: str, program: str, env: dict[str, Any], workdir: Path, *,
                  timeout_s: float, gif: Path | None, trusted_inprocess: bool,
                  observe: Callable[[Sim], None] | None) -> Evaluation:
    """One run of `program` in the environment `env` of `stage` (see the module docstring)."""
    t_start = time.perf_counter()
    timings = Timings()
    _write_workspace(spec, stage, program, workdir)
    t0 = time.perf_counter()
    channel = InProcessChannel(program) if trusted_inprocess else SandboxChannel(workdir, timeout_s)
    closed: ProgramResult | None = None
    try:
        design, problem = _request_design(spec, stage, channel, timeout_s, timings, t0)
        if problem is not None:
            closed = channel.close()
            return _finish_invalid(spec, stage, problem, closed, timings, t_start)
        if not spec.controller:
            closed = _close(channel, timings)  # the program is done: release the sandbox before simulating
        scene = _build_scene(spec, env, design)
        stop: list[str] = []
        control = _Controller(channel, scene.world, timings, stop) if spec.controller else None
        frames, on_frame = _frame_hooks(spec, env, gif, observe)
        outcome = _simulate(spec, stage, scene, control, on_frame, observe)
        sim = scene.sim
        if sim.stopped == "work":
            stop.append(sim.stop_reason)
        if spec.controller:
            closed = _close(channel, timings)
        if closed.status != "ok" and not stop:
            stop.append(f"the program's process did not end cleanly: {closed.reason}")
        notes = _run_notes(control)
        _check_hold(spec, env, scene, outcome)
        ev = _assemble(spec, stage, sim, outcome, scene.design_constraints, scene.design_summary, stop, closed, notes)
        if frames is not None:
            frames.write(gif, sim, ev)
    finally:
        if closed is None:
            closed = channel.close()
    ev.timings = _run_timings(timings, sim, t_start)
    return ev


def _run_timings(timings: Timings, sim: Sim, t_start: float) -> Timings:
    timings.engine_s = sim.engine_s
    timings.steps = sim.steps
    timings.total_s = time.perf_counter() - t_start
    timings.harness_s = timings.total_s - timings.engine_s - timings.program_s
    return timings


def _finish_invalid(spec: TaskSpec, stage: str, why: str, closed: ProgramResult, timings: Timings,
                    t_start: float) -> Evaluation:
    if closed.status != "ok" and closed.reason and closed.reason not in why:
        why = f"{why} ({closed.reason})"
    ev = Evaluation(task=spec.id, stage=stage, passed=False, score=-100.0, goal_met=False, progress=0.0,
                    goal="not simulated", constraints=[], steps=0, failure=why, failure_step=0, events=[], joints=[],
                    health={}, terminal={}, design={}, invalid=why, program=closed)
    ev.feedback_levels = feedback_mod.format_levels(ev, spec)
    ev.feedback = ev.feedback_levels["3"]
    timings.total_s = time.perf_counter() - t_start
    timings.harness_s = timings.total_s - timings.program_s
    ev.timings = timings
    return ev


def _assemble(spec: TaskSpec, stage: str, sim: Sim, outcome: Outcome, design_constraints: list[Constraint],
              design_summary: dict[str, Any], stop: list[str], closed: ProgramResult | None,
              notes: list[str]) -> Evaluation:
    health = sim.health.to_dict()
    exec_problems = list(stop)
    if sim.health.status != "ok":
        exec_problems.append(f"numerical failure at step {sim.health.problem_step} "
                             f"(t = {sim.health.problem_step * DT:.2f} s): {sim.health.problem}")
    execution = Constraint("execution", "the program answered every request and the simulation stayed numerically "
                                        "healthy", passed=not exec_problems, value=float(len(exec_problems)),
                           limit=0.0, unit="failures", detail="; ".join(exec_problems))
    task_constraints = list(outcome.constraints)
    names = [c.name for c in task_constraints]
    expected = spec.constraint_text(stage)
    if names != [n for n, _ in expected]:
        raise RuntimeError(f"{spec.id}: the evaluator returned constraints {names}, the card declares "
                           f"{[n for n, _ in expected]}")
    # the card's words (with this environment's visible thresholds) describe each constraint
    task_constraints = [replace(c, description=text) for c, (_, text) in zip(task_constraints, expected)]
    constraints = [execution, *design_constraints, *task_constraints]
    assert [c.name for c in constraints[:4]] == list(GENERIC_CONSTRAINTS)
    sc = score(outcome.goal_met, outcome.progress, constraints)
    passed = sc == 100.0
    failure, failure_step = "", None
    if not passed:
        candidates: list[tuple[int, str]] = []
        if exec_problems:
            candidates.append((sim.steps, exec_problems[0]))
        if outcome.failure is not None:
            candidates.append(outcome.failure)
        # a design outside the rules could never succeed: that is the first thing wrong with it
        candidates += [(0, f"the design breaks a rule: {c.name} violated ({c.detail or c.description})")
                       for c in design_constraints if not c.passed][:1]
        broken = sim.broken_joints()
        if broken and not candidates:
            b = broken[0]
            candidates.append((b.broken_step, f"joint {b.id} broke"))
        if not candidates:
            bad = [c for c in constraints if not c.passed]
            if bad:
                candidates.append((bad[0].step if bad[0].step is not None else sim.steps,
                                   f"hard constraint {bad[0].name} violated: {bad[0].detail or bad[0].description}"))
            else:
                candidates.append((sim.steps, f"goal not reached: {outcome.goal}"))
        failure_step, failure = min(candidates, key=lambda c: c[0])
    ev = Evaluation(task=spec.id, stage=stage, passed=passed, score=sc, goal_met=outcome.goal_met,
                    progress=float(outcome.progress), goal=outcome.goal, constraints=constraints, steps=sim.steps,
                    failure=failure, failure_step=failure_step, events=sim.chronology(),
                    joints=sim.joint_summaries(), health=health, terminal=dict(outcome.terminal),
                    design=design_summary, program=closed, notes=notes)
    ev.feedback_levels = feedback_mod.format_levels(ev, spec)
    ev.feedback = ev.feedback_levels["3"]
    return ev


def task_description(spec: TaskSpec, stage: str) -> str:
    """task.json: what the program's work directory holds besides the program (visible only)."""
    data = {"task": spec.id, "title": spec.title, "stage": parse_stage(stage), "visible": spec.visible(stage),
            "invisible_variables": spec.invisible_names(), "controller": spec.controller}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"

