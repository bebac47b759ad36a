"""Phase-locked gates: a ball rolls down a ramp the design builds and along a flat track through
sliding gates that open and close on fixed periodic schedules."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

ZONE_X = (-8.0, 0.0)
BALL_R = 0.25
DOOR_W, DOOR_H = 0.2, 1.5
LIFT = 1.0  # how far a door rises when open
MOVE_S = 0.25  # time a door takes to rise or to fall


def door_lift(t: float, phase: float, period: float, open_time: float) -> float:
    """How far a gate's door is raised at time t (0: closed, LIFT: fully open). Each cycle starts
    at phase + n period: the door rises for MOVE_S, stays fully open for open_time, falls for MOVE_S."""
    u = (t - phase) % period
    if u < MOVE_S:
        return LIFT * u / MOVE_S
    if u < MOVE_S + open_time:
        return LIFT
    if u < 2 * MOVE_S + open_time:
        return LIFT * (1.0 - (u - MOVE_S - open_time) / MOVE_S)
    return 0.0


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, x1 = ZONE_X
        H = env["zone_height"]
        rect = [(x0, 0.0), (x1, 0.0), (x1, H), (x0, H)]
        return {"build": [rect], "anchors": [rect], "placements": {"ball": [rect]}}

    def gates(self):
        """[(x, phase)] of the gates in this environment (their common period and open time are
        env values)."""
        env = self.env
        n = int(env["gate_count"])
        return [(env["gate1_x"] + k * env["gate_spacing"], env["gate1_phase"] + k * env["phase_step"])
                for k in range(n)]

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        self.floor = sim.static_box((10.0, -0.5), 40.0, 1.0, friction=0.8)
        self.doors = []
        for x, phase in self.gates():
            body = sim.world.CreateKinematicBody(position=(x, DOOR_H / 2 + door_lift(0.0, phase, env["gate_period"],
                                                                                   env["open_time"])))
            body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(DOOR_W / 2, DOOR_H / 2)), friction=0.5))
            sim.register(body, "terrain", f"gate at x = {x:g} m", track=False)
            self.doors.append((body, phase))
        self.ball = None

    def place(self, design) -> None:
        env = self.env
        pos = design.placement("ball") or (ZONE_X[0] + 0.5, BALL_R)
        density = env["ball_mass"] / (math.pi * BALL_R ** 2)
        self.ball = self.sim.dynamic_circle(pos, BALL_R, density, friction=0.9, restitution=0.0, role="projectile",
                                            name="ball")
        self._roll = env["rolling_resistance"] * env["ball_mass"] * env["gravity"]

    def before_step(self, step: int) -> None:
        env = self.env
        t1 = (step + 1) / 60.0
        for body, phase in self.doors:
            y1 = DOOR_H / 2 + door_lift(t1, phase, env["gate_period"], env["open_time"])
            body.linearVelocity = (0.0, (y1 - body.position.y) * 60.0)
        if self._roll:
            b = self.ball
            p, v = b.position, b.linearVelocity
            if p.x > ZONE_X[1] and p.y < BALL_R + 0.02 and abs(v.x) > 0.02:
                # rolling resistance on the track: a force against the motion, proportional to the weight
                b.ApplyForceToCenter((-math.copysign(self._roll, v.x), 0.0), True)
