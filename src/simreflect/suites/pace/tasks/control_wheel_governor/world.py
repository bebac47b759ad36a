"""Wheel governor: a flywheel on a fixed axle, driven by a motor and slowed by a friction brake,
turns a line shaft whose machines engage and disengage on a schedule. Load torques, bearing
friction, the motor's lag and health and the brake's heating and fade are applied here, every
step."""

from __future__ import annotations

import math

from Box2D import b2CircleShape, b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

DT = 1.0 / 60.0
RADIUS = 0.6
SWITCH_ON, SWITCH_OFF = 6.0, 13.0  # s: the second machine engages and disengages
LATE = 10.0  # s: the set speed changes to set_speed_late from here on
HOIST = 15.0  # s: the hoist starts lowering its load (it drives the shaft) from here on
BRAKE_HEAT = 0.003  # K per J: the brake disc holds about 333 J/K
BRAKE_COOL = 0.05  # 1/s: cooling rate towards the ambient 20 C


class World(PaceWorld):
    forces = True
    commands = {"torque": (0.0, 1.0), "brake": (0.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, 0.0)
        sim.static_box((0.0, -RADIUS - 0.3), 0.6, 0.4)
        wheel = sim.world.CreateDynamicBody(position=(0.0, 0.0))
        wheel.CreateFixture(b2FixtureDef(shape=b2CircleShape(radius=RADIUS), density=1.0, friction=0.0))
        wheel.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(RADIUS * 0.9, 0.04)), density=0.01))
        md = wheel.massData
        md.mass = max(1.0, 2.0 * env["inertia"] / RADIUS ** 2)
        md.I = env["inertia"]
        md.center = (0.0, 0.0)
        wheel.massData = md
        wheel.angularDamping = 0.0
        sim.world.CreateRevoluteJoint(bodyA=sim.ground, bodyB=wheel, anchor=(0.0, 0.0), collideConnected=False)
        wheel.angularVelocity = env["set_speed"]
        sim.register(wheel, "payload", "flywheel")
        self.wheel = wheel
        self.cmd = {"torque": 0.0, "brake": 0.0}
        self.motor = 0.0  # the torque the motor actually gives (N m)
        self.brake_temp = 20.0  # C
        self.brake_energy = 0.0

    def set_speed(self, t: float) -> float:
        return self.env["set_speed_late"] if t >= LATE else self.env["set_speed"]

    def load(self, t: float) -> float:
        """The machines' torque on the shaft (positive: resisting the rotation)."""
        env = self.env
        load = env["base_load"]
        if SWITCH_ON <= t < SWITCH_OFF:
            load += env["step_load"]
        if t >= HOIST:
            load -= env["hoist_load"]
        return load

    def apply(self, cmd, step: int) -> None:
        self.cmd = dict(cmd)

    def brake_capacity(self) -> float:
        """Share of its rated torque the hot brake still gives (fade above 80 C)."""
        fade = self.env["brake_fade"]
        return max(0.2, 1.0 - fade * max(0.0, self.brake_temp - 80.0))

    def before_step(self, step: int) -> None:
        env = self.env
        t = step * DT
        w = self.wheel.angularVelocity
        target = self.cmd["torque"] * env["max_torque"] * env["motor_health"]
        lag = env["motor_lag"]
        self.motor += (target - self.motor) * (1.0 if lag <= 0 else min(1.0, DT / lag))
        brake = self.cmd["brake"] * env["max_brake"] * self.brake_capacity()
        # a friction brake opposes the rotation; near standstill it cannot reverse it
        brake_t = -math.copysign(min(brake, abs(w) * self.wheel.inertia / DT), w) if w != 0 else 0.0
        power = abs(brake_t * w)
        self.brake_energy += power * DT
        self.brake_temp += (power * BRAKE_HEAT - BRAKE_COOL * (self.brake_temp - 20.0)) * DT
        friction = -env["bearing_friction"] * w
        self.wheel.ApplyTorque(self.motor + brake_t + friction - self.load(t), True)

    def sensors(self, step: int) -> dict:
        t = step * DT
        return {"t": round(t, 4), "speed": self.wheel.angularVelocity, "set_speed": self.set_speed(t),
                "brake_temp": self.brake_temp}
