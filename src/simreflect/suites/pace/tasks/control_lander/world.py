"""Lander: a hull with two legs, a main engine along its axis and an attitude thruster, over a pad."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

HULL_W, HULL_H = 1.6, 0.8
LEG_DX, LEG_DY = 1.0, 0.7  # leg foot position relative to the hull centre
LANDER_GROUP = -3
HULL = 2  # the hull fixture's userData (the legs': 0 and 1)


class World(PaceWorld):
    forces = True
    commands = {"throttle": (0.0, 1.0), "torque": (-1.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 120.0, 1.0, friction=0.8)
        pad_x, pad_w = env["pad_x"], env["pad_width"]
        self.pad = (pad_x - pad_w / 2, pad_x + pad_w / 2)
        x0, y0 = env["start_x"], env["start_altitude"]
        area = HULL_W * HULL_H
        body = sim.world.CreateDynamicBody(position=(x0, y0), angle=0.0)
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(HULL_W / 2, HULL_H / 2)),
                                        density=env["lander_mass"] / area, friction=0.6, groupIndex=LANDER_GROUP,
                                        userData=HULL))
        self.legs = []
        for side in (-1, 1):
            foot = (side * LEG_DX, -LEG_DY)
            hip = (side * 0.6, -HULL_H / 2 + 0.05)
            leg = body.CreateFixture(b2FixtureDef(
                shape=b2PolygonShape(vertices=[hip, (hip[0] + 0.08 * side, hip[1]), (foot[0] + 0.06 * side, foot[1]),
                                               (foot[0] - 0.06 * side, foot[1])]),
                density=0.001, friction=0.9, groupIndex=LANDER_GROUP, userData=len(self.legs)))
            self.legs.append(leg)
        self._contacts_at = (-1, (False, False, False))
        body.linearVelocity = (env["start_vx"], env["start_vy"])
        body.angularDamping = 0.1
        sim.register(body, "craft", "lander", True)
        self.body = body
        self.mass = body.mass
        self.fuel = env["fuel"]
        self.thrust = 0.0  # actual main-engine thrust (N), lags the command
        self.cmd = {"throttle": 0.0, "torque": 0.0}
        self.history: list[dict] = []
        self.burned = 0.0

    # --- actuators

    def apply(self, cmd, step: int) -> None:
        self.cmd = dict(cmd)

    def before_step(self, step: int) -> None:
        env = self.env
        dt = 1.0 / 60.0
        throttle = self.cmd["throttle"] if self.fuel > 0 else 0.0
        target = throttle * env["max_thrust"] * env["engine_health"]
        lag = env["engine_lag"]
        self.thrust += (target - self.thrust) * (1.0 if lag <= 0 else min(1.0, dt / lag))
        burn = self.thrust / env["max_thrust"] * env["burn_rate"] * dt if env["max_thrust"] > 0 else 0.0
        self.fuel = max(0.0, self.fuel - burn)
        self.burned += burn
        b = self.body
        a = b.angle
        fx, fy = -math.sin(a) * self.thrust, math.cos(a) * self.thrust
        b.ApplyForceToCenter((fx + env["wind"], fy), True)
        b.ApplyTorque(self.cmd["torque"] * env["max_torque"] * env["torque_health"], True)

    # --- sensors

    def _touching(self) -> tuple[bool, bool, bool]:
        """(left leg, right leg, hull) touching anything, once per step (fixtures tell by their
        userData: 0 and 1 the legs, HULL the hull; the ground's fixtures have none)."""
        step = self.sim.steps
        if self._contacts_at[0] != step:
            touching = [False, False, False]
            for edge in self.body.contacts:
                c = edge.contact
                if c.touching:
                    for tag in (c.fixtureA.userData, c.fixtureB.userData):
                        if tag is not None:
                            touching[tag] = True
            self._contacts_at = (step, tuple(touching))
        return self._contacts_at[1]

    def leg_contacts(self) -> list[bool]:
        left, right, _ = self._touching()
        return [left, right]

    def feet(self) -> list[float]:
        """x (m) of the left and right foot, now."""
        return [self.body.GetWorldPoint((side * LEG_DX, -LEG_DY)).x for side in (-1, 1)]

    def hull_contact(self) -> bool:
        return self._touching()[2]

    def sensors(self, step: int) -> dict:
        b = self.body
        p, v = b.position, b.linearVelocity
        left, right = self.leg_contacts()
        now = {"t": round(step / 60.0, 4), "x": p.x, "altitude": p.y - LEG_DY + self.env["altimeter_bias"],
               "vx": v.x, "vy": v.y, "angle": b.angle, "spin": b.angularVelocity,
               "fuel": self.fuel, "left_leg": left, "right_leg": right}
        self.history.append(now)
        delay = int(self.env["sensor_delay"])
        shown = self.history[max(0, len(self.history) - 1 - delay)]
        if len(self.history) > 64:
            del self.history[:-64]
        return {**shown, "t": now["t"], "pad_x": self.env["pad_x"]}
