"""The trusted 2D simulator: a Box2D world built from a validated design and the environment.

`Sim` owns every body. A task's world module builds the terrain and the task's own objects
with the helpers here; `build_design` adds the declared parts, joints and springs; `run` steps
the world at 60 FPS up to a step cap and does, every step, what must be exact:

* joint breaking: each breakable joint's reaction force (and, for rigid joints, torque) is read
  from Box2D (`GetReactionForce(inv_dt)`, `GetReactionTorque(inv_dt)`); past the joint's
  strength the joint is destroyed and the failure recorded with its step, load and limit; peaks
  are kept for every breakable joint;
* per-step environment forces (the world module's `before_step`, only when it has one);
* the controller, every `control_every` steps (a callback given by the caller);

and, every few steps, the task's evaluator tick and the numerical health check (NaN/Inf in
positions or velocities, speeds at the solver's cap, bodies flung beyond any sensible distance).

Box2D is deterministic for the same sequence of calls: bodies, fixtures and joints are created in
a fixed order (terrain, task objects, design parts, joints, springs in declaration order) and
nothing here iterates over a set. `engine_s` accumulates the wall time spent inside
`b2World.Step` only, so callers can tell the engine's time from their own.
"""

from __future__ import annotations

import math
import time
from itertools import compress
from operator import gt
from dataclasses import dataclass, field
from typing import Any, Callable

from Box2D import _Box2D as _C
from Box2D import b2BodyDef, b2CircleShape, b2EdgeShape, b2FixtureDef, b2PolygonShape, b2World, b2_dynamicBody

from simreflect.suites.pace.bounds import MIN_REST_LENGTH
from simreflect.suites.pace.design import GROUND, MATERIALS, Design, DesignRules

FPS = 60
DT = 1.0 / FPS
INV_DT = float(FPS)
#: Box2D moves a body at most b2_maxTranslation (2 m) per step: 120 m/s at 60 FPS.
SOLVER_SPEED_CAP = 2.0 * FPS
BLOWUP_SPEED = 100.0
BLOWUP_DISTANCE = 1.0e4
SPIN_CAP = 0.5 * math.pi * FPS
#: Collision group of design parts: they never collide with one another, only with the world.
DESIGN_GROUP = -1

_reaction_force = _C.b2Joint_GetReactionForce
_reaction_torque = _C.b2Joint_GetReactionTorque
_length_squared = _C.b2Vec2___LengthSquared
#: Up to this many breakable joints a plain loop beats the map-based check.
SMALL_JOINT_SET = 6


def spring_parameters(stiffness: float, damping: float, mass_a: float, mass_b: float) -> tuple[float, float]:
    """Box2D's soft distance joint is set by a frequency and a damping ratio of the joint's own
    effective mass; a declared spring has a stiffness k (N/m) and a damping c (N s/m). With the
    reduced mass m of the two bodies (a static body counts as infinitely heavy),
    f = sqrt(k/m) / (2 pi) and zeta = c / (2 sqrt(k m)) give the same force law."""
    inv = (1.0 / mass_a if mass_a > 0 else 0.0) + (1.0 / mass_b if mass_b > 0 else 0.0)
    m = 1.0 / inv if inv > 0 else 1.0
    return math.sqrt(stiffness / m) / (2.0 * math.pi), damping / (2.0 * math.sqrt(stiffness * m))


class StopSimulation(Exception):
    """Raised by a controller callback to end the run (the program failed, say), or by a world's
    force field when the design has used up its work budget (kind "work": water.py)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class EngineSettings:
    max_steps: int = 10_000
    velocity_iterations: int = 8
    position_iterations: int = 3
    sleep: bool = True
    tick_every: int = 4  # evaluator ticks
    health_every: int = 30  # design and tracked bodies; every body at 6x this
    control_every: int = 0  # 0: no controller


@dataclass(frozen=True)
class JointStrength:
    """Strength of the design's joints in this environment (inf: unbreakable). `visible` says
    whether the values are shown to the agent (otherwise loads are reported as % only)."""

    rigid_force: float = math.inf
    rigid_torque: float = math.inf
    pivot_force: float = math.inf
    visible: bool = True


@dataclass(frozen=True)
class Event:
    step: int
    kind: str
    text: str

    @property
    def time(self) -> float:
        return self.step * DT

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "time": round(self.time, 4), "kind": self.kind, "text": self.text}


class JointLoad:
    """A design joint and the loads it has carried."""

    __slots__ = ("id", "kind", "a", "b", "joint", "max_force", "max_torque", "max_f2", "peak_f2", "peak_f_step",
                 "peak_torque", "peak_t_step", "broken_step", "broken_by", "broken_load")

    def __init__(self, id: str, kind: str, a: str, b: str, joint: Any, max_force: float, max_torque: float | None):
        self.id, self.kind, self.a, self.b, self.joint = id, kind, a, b, joint
        self.max_force = max_force
        self.max_torque = max_torque
        self.max_f2 = max_force * max_force if math.isfinite(max_force) else math.inf
        self.peak_f2 = 0.0
        self.peak_f_step = 0
        self.peak_torque = 0.0
        self.peak_t_step = 0
        self.broken_step: int | None = None
        self.broken_by = ""
        self.broken_load = 0.0

    @property
    def breakable(self) -> bool:
        return math.isfinite(self.max_force) or (self.max_torque is not None and math.isfinite(self.max_torque))

    @property
    def peak_force(self) -> float:
        return math.sqrt(self.peak_f2)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "a": self.a, "b": self.b,
                               "peak_force": round(self.peak_force, 1), "peak_force_step": self.peak_f_step,
                               "force_ratio": round(self.peak_force / self.max_force, 4)
                               if math.isfinite(self.max_force) and self.max_force > 0 else None}
        if self.max_torque is not None:
            out.update(peak_torque=round(self.peak_torque, 1), peak_torque_step=self.peak_t_step,
                       torque_ratio=round(self.peak_torque / self.max_torque, 4)
                       if math.isfinite(self.max_torque) and self.max_torque > 0 else None)
        if self.broken_step is not None:
            out.update(broken_step=self.broken_step, broken_by=self.broken_by)
        return out


@dataclass
class Health:
    status: str = "ok"  # ok | failed
    problem: str = ""
    problem_step: int | None = None
    peak_speed: float = 0.0
    peak_speed_body: str = ""
    peak_speed_step: int = 0
    peak_spin: float = 0.0
    spin_cap_steps: int = 0
    checks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "problem": self.problem, "problem_step": self.problem_step,
                "peak_speed": round(self.peak_speed, 3), "peak_speed_body": self.peak_speed_body,
                "peak_speed_step": self.peak_speed_step, "peak_spin": round(self.peak_spin, 3),
                "spin_cap_checks": self.spin_cap_steps, "checks": self.checks}


@dataclass
class Tagged:
    body: Any
    role: str  # terrain, design, vehicle, payload, particle, projectile, craft ...
    name: str
    colour: tuple[int, int, int] | None = None


class Sim:
    """One Box2D world with everything in it; see the module docstring."""

    def __init__(self, settings: EngineSettings, gravity: tuple[float, float] = (0.0, -9.81)):
        self.settings = settings
        self.world = b2World(gravity=gravity, doSleep=settings.sleep)
        self.ground = self.world.CreateStaticBody(position=(0.0, 0.0))
        self.tagged: list[Tagged] = [Tagged(self.ground, "terrain", "ground")]
        self.tracked: list[tuple[Any, str]] = []  # checked for health every `health_every` steps
        self.parts: dict[str, Any] = {}
        self.joints: dict[str, JointLoad] = {}
        self.springs: dict[str, Any] = {}
        self.design: Design | None = None
        self._part_masses: list[tuple[Any, float]] = []  # (body, declared mass) of every design part
        self.events: list[Event] = []
        self.health = Health()
        self.steps = 0
        self.engine_s = 0.0
        self.stopped: str = ""  # why the run ended early (evaluator, numerical, program, work)
        self.stop_reason: str = ""  # in words, when the world's forces ended it (kind "work")
        self._breakable: list[JointLoad] = []
        self._rigid: list[JointLoad] = []
        self._all_dynamic: list[tuple[Any, str]] = []
        self._body_def = b2BodyDef()
        self._body_def.type = b2_dynamicBody
        self._fixture_defs: dict[tuple, Any] = {}

    # --- time and events

    @property
    def time(self) -> float:
        return self.steps * DT

    def event(self, kind: str, text: str, step: int | None = None) -> None:
        self.events.append(Event(self.steps if step is None else int(step), kind, text))

    def chronology(self) -> list[Event]:
        return sorted(self.events, key=lambda e: e.step)  # stable: same-step events keep their order

    # --- building the world (for task world modules)

    def set_gravity(self, gx: float, gy: float) -> None:
        self.world.gravity = (gx, gy)

    def static_box(self, center: tuple[float, float], width: float, height: float, angle: float = 0.0,
                   friction: float = 0.7, restitution: float = 0.0) -> Any:
        return self.ground.CreateFixture(b2FixtureDef(
            shape=b2PolygonShape(box=(width / 2, height / 2, center, angle)), friction=friction,
            restitution=restitution))

    def static_polygon(self, vertices: list[tuple[float, float]], friction: float = 0.7) -> Any:
        return self.ground.CreateFixture(b2FixtureDef(shape=b2PolygonShape(vertices=vertices), friction=friction))

    def static_edge(self, p1: tuple[float, float], p2: tuple[float, float], friction: float = 0.7) -> Any:
        return self.ground.CreateFixture(b2FixtureDef(shape=b2EdgeShape(vertices=[p1, p2]), friction=friction))

    def _dynamic_body(self, center: tuple[float, float], angle: float, bullet: bool,
                      fixture: tuple, make_shape: Callable[[], Any]) -> Any:
        """A dynamic body with one fixture. The definitions are made once per kind of body and
        reused (the same bodies as fresh keyword-built ones, five times quicker to create: a task
        with hundreds of grains builds its world in a few milliseconds)."""
        bd = self._body_def
        bd.position, bd.angle, bd.bullet = center, angle, bullet
        fd = self._fixture_defs.get(fixture)
        if fd is None:
            density, friction, restitution, group = fixture[-4:]
            fd = self._fixture_defs[fixture] = b2FixtureDef(shape=make_shape(), density=density, friction=friction,
                                                            restitution=restitution, groupIndex=group)
        body = self.world.CreateBody(bd)
        body.CreateFixture(fd)
        return body

    def dynamic_box(self, center: tuple[float, float], width: float, height: float, density: float,
                    friction: float = 0.6, restitution: float = 0.0, angle: float = 0.0, role: str = "payload",
                    name: str = "", group: int = 0, track: bool = True, colour=None, bullet: bool = False) -> Any:
        body = self._dynamic_body(center, angle, bullet, ("box", width, height, density, friction, restitution, group),
                                  lambda: b2PolygonShape(box=(width / 2, height / 2)))
        self.register(body, role, name or role, track, colour)
        return body

    def dynamic_circle(self, center: tuple[float, float], radius: float, density: float, friction: float = 0.6,
                       restitution: float = 0.0, role: str = "payload", name: str = "", group: int = 0,
                       track: bool = True, colour=None, bullet: bool = False) -> Any:
        body = self._dynamic_body(center, 0.0, bullet, ("circle", radius, density, friction, restitution, group),
                                  lambda: b2CircleShape(radius=radius))
        self.register(body, role, name or role, track, colour)
        return body

    def register(self, body: Any, role: str, name: str, track: bool = True, colour=None) -> None:
        """Make a body the task created itself known: drawn in GIFs, health-checked (every
        `health_every` steps when `track`, else with the full checks)."""
        self.tagged.append(Tagged(body, role, name, colour))
        self._all_dynamic.append((body, name))
        if track:
            self.tracked.append((body, name))
        if not self.settings.sleep:
            body.sleepingAllowed = False

    # --- the design

    def build_design(self, design: Design, rules: DesignRules, strength: JointStrength) -> None:
        """Create the declared parts, joints and springs (in declaration order). Motors are
        clamped to the task's limits: a design may declare more, but gets no more."""
        self.design = design
        for p in design.parts:
            mat = MATERIALS[p.material] if p.material in MATERIALS else MATERIALS["steel"]
            body = self.world.CreateDynamicBody(position=(p.x, p.y), angle=p.angle)
            if p.kind == "wheel":
                shape = b2CircleShape(radius=p.radius)
            else:
                shape = b2PolygonShape(box=(p.width / 2, p.height / 2))
            body.CreateFixture(b2FixtureDef(shape=shape, density=mat.density, friction=mat.friction,
                                            restitution=mat.restitution, groupIndex=DESIGN_GROUP))
            self.parts[p.id] = body
            self._part_masses.append((body, p.mass))
            self.tagged.append(Tagged(body, "design", p.id, mat.colour))
            self._all_dynamic.append((body, p.id))
            self.tracked.append((body, p.id))

        def body_of(ref: str) -> Any:
            return self.ground if ref == GROUND else self.parts[ref]

        for j in design.joints:
            a, b = body_of(j.a), body_of(j.b)
            if j.kind == "rigid":
                joint = self.world.CreateWeldJoint(bodyA=a, bodyB=b, anchor=(j.x, j.y), collideConnected=False)
                rec = JointLoad(j.id, "rigid", j.a, j.b, joint, strength.rigid_force, strength.rigid_torque)
                self._rigid.append(rec)
            else:
                kwargs: dict[str, Any] = {}
                if j.motor_speed is not None:
                    speed = max(-rules.max_motor_speed, min(rules.max_motor_speed, j.motor_speed))
                    torque = max(0.0, min(rules.max_motor_torque, j.max_torque or 0.0))
                    kwargs.update(enableMotor=True, motorSpeed=speed, maxMotorTorque=torque)
                if j.limits is not None:
                    kwargs.update(enableLimit=True, lowerAngle=j.limits[0], upperAngle=j.limits[1])
                joint = self.world.CreateRevoluteJoint(bodyA=a, bodyB=b, anchor=(j.x, j.y), collideConnected=False,
                                                       **kwargs)
                rec = JointLoad(j.id, "pivot", j.a, j.b, joint, strength.pivot_force, None)
            self.joints[j.id] = rec
            if rec.breakable:
                self._breakable.append(rec)
        for s in design.springs:
            a, b = body_of(s.a), body_of(s.b)
            freq, ratio = spring_parameters(s.stiffness, s.damping, a.mass, b.mass)
            joint = self.world.CreateDistanceJoint(bodyA=a, bodyB=b, anchorA=(s.ax, s.ay), anchorB=(s.bx, s.by),
                                                   frequencyHz=freq, dampingRatio=ratio, collideConnected=True)
            joint.length = max(MIN_REST_LENGTH, s.rest_length)
            self.springs[s.id] = joint

    # --- stepping

    def settle(self, steps: int, velocity_iterations: int = 6, position_iterations: int = 2) -> None:
        """Step the world before the run (a task letting its grains settle in `build()`), with no
        checks and no evaluator; the run's step count stays at 0. The time counts as engine time."""
        pc = time.perf_counter
        t0 = pc()
        for _ in range(steps):
            self.world.Step(DT, velocity_iterations, position_iterations)
        self.engine_s += pc() - t0

    def run(self, evaluator: Any, before_step: Callable[[int], None] | None = None,
            control: Callable[[int], None] | None = None, on_frame: Callable[[Sim], None] | None = None,
            frame_every: int = 4) -> None:
        """Step until the evaluator says done, the step cap, a numerical failure or a
        controller stop. `before_step(step)` runs before every step (environment forces);
        `control(step)` every `control_every` steps (it may raise StopSimulation)."""
        s = self.settings
        step_fn = self.world.Step
        vi, pi = s.velocity_iterations, s.position_iterations
        pc = time.perf_counter
        tick_every = max(1, s.tick_every)
        health_every = max(1, s.health_every)
        full_every = health_every * 6
        control_every = s.control_every if control is not None else 0
        engine = 0.0
        self._monitor()
        if not s.sleep:
            # pybox2d's b2World(doSleep=False) still lets bodies fall asleep, and a sleeping body
            # ignores a change of gravity: with sleep off, no body may sleep
            for body in self.world.bodies:
                body.sleepingAllowed = False
        if on_frame is not None:
            on_frame(self)
        try:
            for step in range(s.max_steps):
                if control_every and step % control_every == 0:
                    try:
                        control(step)
                    except StopSimulation as e:
                        self.stopped = e.kind
                        self.event("program", str(e))
                        return
                if before_step is not None:
                    try:
                        before_step(step)
                    except StopSimulation as e:  # the world's force fields out of their work budget
                        self.stopped = e.kind
                        self.stop_reason = str(e)
                        self.event("failure", str(e))
                        return
                t0 = pc()
                step_fn(DT, vi, pi)
                engine += pc() - t0
                n = step + 1
                self.steps = n
                if self._breakable:
                    self._check_joints(n)
                if n % health_every == 0 and not self._check_health(n, full=n % full_every == 0):
                    self.stopped = "numerical"
                    return
                if n % tick_every == 0 and evaluator.tick(n):
                    self.stopped = "evaluator"
                    return
                if on_frame is not None and n % frame_every == 0:
                    on_frame(self)
        finally:
            self.engine_s += engine
            if self.health.status == "ok":
                self._check_health(self.steps, full=True)

    def _monitor(self) -> None:
        """(Re)build the flat lists the per-step joint check works on."""
        self._bj = [r.joint for r in self._breakable]
        self._bf2 = [r.peak_f2 for r in self._breakable]
        self._bmax2 = [r.max_f2 for r in self._breakable]
        self._rigid_live = [r for r in self._breakable if r.max_torque is not None]
        self._rj = [r.joint for r in self._rigid_live]
        self._rt = [r.peak_torque for r in self._rigid_live]
        self._rmax = [r.max_torque for r in self._rigid_live]
        self._inv = [INV_DT] * max(len(self._bj), 1)

    def _check_joints(self, n: int) -> None:
        """Every breakable joint's reaction force (rigid joints: and torque) this step, against its
        peak and its strength. The common case (no new peak) stays in C-level map/any calls; a
        handful of joints is quicker in a plain loop."""
        if len(self._bj) <= SMALL_JOINT_SET:
            return self._check_few_joints(n)
        f2 = list(map(_length_squared, map(_reaction_force, self._bj, self._inv)))
        broken = None
        if any(map(gt, f2, self._bf2)):
            peaks = self._bf2
            for i in compress(range(len(f2)), list(map(gt, f2, peaks))):
                rec = self._breakable[i]
                peaks[i] = rec.peak_f2 = f2[i]
                rec.peak_f_step = n
                if f2[i] > self._bmax2[i]:
                    broken = (broken or []) + [(rec, "force", math.sqrt(f2[i]), rec.max_force)]
        if self._rj:
            t = list(map(abs, map(_reaction_torque, self._rj, self._inv)))
            if any(map(gt, t, self._rt)):
                peaks = self._rt
                for i in compress(range(len(t)), list(map(gt, t, peaks))):
                    rec = self._rigid_live[i]
                    peaks[i] = rec.peak_torque = t[i]
                    rec.peak_t_step = n
                    if t[i] > self._rmax[i] and not (broken and any(b[0] is rec for b in broken)):
                        broken = (broken or []) + [(rec, "torque", t[i], rec.max_torque)]
        self._break(broken, n)

    def _check_few_joints(self, n: int) -> None:
        broken = None
        for rec in self._breakable:
            f2 = _length_squared(_reaction_force(rec.joint, INV_DT))
            if f2 > rec.peak_f2:
                rec.peak_f2 = f2
                rec.peak_f_step = n
                if f2 > rec.max_f2:
                    broken = (broken or []) + [(rec, "force", math.sqrt(f2), rec.max_force)]
                    continue
            if rec.max_torque is not None:
                t = abs(_reaction_torque(rec.joint, INV_DT))
                if t > rec.peak_torque:
                    rec.peak_torque = t
                    rec.peak_t_step = n
                    if t > rec.max_torque:
                        broken = (broken or []) + [(rec, "torque", t, rec.max_torque)]
        self._break(broken, n)

    def design_com(self) -> tuple[float, float]:
        """The design's centre of mass now, each part weighted by its declared mass ((0, 0) when
        the design has no parts)."""
        x = y = 0.0
        for body, m in self._part_masses:
            p = body.worldCenter
            x += m * p.x
            y += m * p.y
        total = sum(m for _, m in self._part_masses) or 1.0
        return (x / total, y / total)

    def name_of(self, body: Any) -> str:
        """What a body is called in reports: "the terrain" for the ground, else its registered name."""
        if body == self.ground:
            return "the terrain"
        return next((t.name for t in self.tagged if t.body == body), "a body of the task")

    def release_joint(self, rec: JointLoad, step: int, by: str, load: float) -> None:
        """Break a joint for a task's own reason (a footing pulled out, say): it is gone from the
        world, reported as broken `by` that reason at `load`, and no longer checked. The caller
        writes the event."""
        if rec.joint is None:
            return
        self._destroy(rec, step, by, load)
        self._monitor()

    def _destroy(self, rec: JointLoad, step: int, by: str, load: float) -> None:
        """Take a joint out of the world and out of the strength checks, recording why."""
        self.world.DestroyJoint(rec.joint)
        rec.joint = None
        rec.broken_step, rec.broken_by, rec.broken_load = step, by, load
        if rec in self._breakable:
            self._breakable.remove(rec)

    def _break(self, broken: list | None, n: int) -> None:
        if broken:
            for rec, by, load, limit in broken:
                self._destroy(rec, n, by, load)
                unit = "N" if by == "force" else "N m"
                what = f"{rec.kind} joint {rec.id} ({rec.a}-{rec.b})"
                self.event("joint_failure", f"{what} broke: reaction {by} {load:.4g} {unit} = "
                                            f"{100 * load / limit:.0f}% of its limit", n)
            self._monitor()

    def _check_health(self, n: int, full: bool) -> bool:
        """Positions and velocities finite, no speed at the solver's cap, nothing flung away.
        Tracked bodies (design parts, the task's key objects) every `health_every` steps, every
        body (particles too) and their spins every 6th time and at the end."""
        h = self.health
        h.checks += 1
        isfinite = math.isfinite
        peak = h.peak_speed * h.peak_speed
        for body, name in (self._all_dynamic if full else self.tracked):
            p = body.position
            v = body.linearVelocity
            x, y, vx, vy = p.x, p.y, v.x, v.y
            if not (isfinite(x) and isfinite(y) and isfinite(vx) and isfinite(vy)):
                return self._numerical(n, f"non-finite state (NaN/Inf) in {name}: position ({x}, {y}), "
                                          f"velocity ({vx}, {vy})")
            s2 = vx * vx + vy * vy
            if s2 > peak:
                peak = s2
                sp = math.sqrt(s2)
                h.peak_speed, h.peak_speed_body, h.peak_speed_step = sp, name, n
                if sp >= BLOWUP_SPEED:
                    return self._numerical(n, f"speed blow-up: {name} moves at {sp:.1f} m/s (the solver caps "
                                              f"bodies at {SOLVER_SPEED_CAP:.0f} m/s)")
            if abs(x) > BLOWUP_DISTANCE or abs(y) > BLOWUP_DISTANCE:
                return self._numerical(n, f"position blow-up: {name} at ({x:.3g}, {y:.3g}) m")
            if full:
                w, a = body.angularVelocity, body.angle
                if not (isfinite(w) and isfinite(a)):
                    return self._numerical(n, f"non-finite state (NaN/Inf) in {name}: angle {a}, spin {w}")
                aw = abs(w)
                if aw > h.peak_spin:
                    h.peak_spin = aw
                if aw >= 0.95 * SPIN_CAP:
                    h.spin_cap_steps += 1
        return True

    def _numerical(self, n: int, problem: str) -> bool:
        h = self.health
        if h.status == "ok":
            h.status, h.problem, h.problem_step = "failed", problem, n
            self.event("numerical", problem, n)
        return False

    # --- reports

    def joint_summaries(self) -> list[dict[str, Any]]:
        return [rec.summary() for rec in self.joints.values() if rec.breakable]

    def broken_joints(self) -> list[JointLoad]:
        return sorted((r for r in self.joints.values() if r.broken_step is not None), key=lambda r: r.broken_step)


@dataclass
class Timings:
    """Where an evaluation's wall time went (never part of its metrics: it varies run to run)."""

    total_s: float = 0.0
    engine_s: float = 0.0  # inside b2World.Step
    program_s: float = 0.0  # waiting for the sandboxed program: start, build, controller replies
    harness_s: float = 0.0  # everything else: validation, world building, per-step checks, evaluation, feedback
    steps: int = 0
    requests: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"total_s": round(self.total_s, 5), "engine_s": round(self.engine_s, 5),
                "program_s": round(self.program_s, 5), "harness_s": round(self.harness_s, 5), "steps": self.steps,
                "requests": self.requests, **{k: round(v, 5) for k, v in self.extra.items()}}
