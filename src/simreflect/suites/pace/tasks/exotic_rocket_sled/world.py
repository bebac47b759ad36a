"""Rocket sled on a rail: a cold-gas thruster (forward and retro nozzles) whose thrust is paid for
in ejected mass, so the sled gets lighter as it burns; a stretch of dust that the sled sweeps up
(gaining mass, and the momentum to bring that dust to speed: a drag lambda v^2); a rail that may
slope; sensors that may lag."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

SLED_W, SLED_H = 2.0, 0.6
BUFFER_GAP = 3.0  # the buffer stop stands this far past the dock mark
DT = 1.0 / 60.0


class World(PaceWorld):
    forces = True
    commands = {"throttle": (-1.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        g = env["gravity"]
        sim.set_gravity(0.0, -g)
        D = env["dock_x"]
        sim.static_box((D / 2, -0.5), D + 40.0, 1.0, friction=0.0)
        self.buffer_x = D + BUFFER_GAP + SLED_W / 2
        self.buffer = sim.static_box((self.buffer_x + 0.25, 1.0), 0.5, 2.0, friction=0.0)
        body = sim.world.CreateDynamicBody(position=(0.0, SLED_H / 2), fixedRotation=True)
        self.area = SLED_W * SLED_H
        self.dry = env["dry_mass"]
        self.fuel = env["fuel"]
        self.dust = 0.0
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(SLED_W / 2, SLED_H / 2)),
                                        density=(self.dry + self.fuel) / self.area, friction=0.0, restitution=0.0))
        sim.register(body, "vehicle", "sled")
        self.body = body
        self.thrust = 0.0
        self.cmd = 0.0
        self.burned = 0.0
        self.history: list[dict] = []
        self.prev_v = 0.0
        self.accel = 0.0  # dv/dt over the last step (the accelerometer)

    @property
    def mass(self) -> float:
        return self.dry + self.fuel + self.dust

    def apply(self, cmd, step: int) -> None:
        self.cmd = float(cmd["throttle"])

    def before_step(self, step: int) -> None:
        env = self.env
        b = self.body
        v = b.linearVelocity.x
        self.accel = (v - self.prev_v) / DT
        self.prev_v = v
        lag = env["thrust_lag"]
        target = self.cmd * env["max_thrust"] if self.fuel > 0 else 0.0
        self.thrust += (target - self.thrust) * (1.0 if lag <= 0 else min(1.0, DT / lag))
        burn = abs(self.thrust) / env["exhaust_speed"] * DT  # thrust = exhaust speed x mass flow
        if burn > self.fuel:
            self.thrust *= self.fuel / burn
            burn = self.fuel
        self.fuel -= burn
        self.burned += burn
        fx = self.thrust
        x = b.position.x
        lam = env["dust_density"]
        if lam and env["dust_start"] <= x <= env["dust_end"]:
            self.dust += lam * abs(v) * DT  # swept-up dust at rest: gains mass and must be brought to speed
            fx -= lam * v * abs(v)
        m = self.mass
        fx -= m * env["gravity"] * math.sin(math.radians(env["rail_slope"]))
        fixture = b.fixtures[0]
        fixture.density = m / self.area
        b.ResetMassData()
        b.ApplyForceToCenter((fx, 0.0), True)

    def sensors(self, step: int) -> dict:
        b = self.body
        now = {"t": round(step / 60.0, 4), "x": b.position.x, "v": b.linearVelocity.x, "accel": self.accel,
               "fuel": self.fuel}
        self.history.append(now)
        delay = int(self.env["sensor_delay"])
        shown = self.history[max(0, len(self.history) - 1 - delay)]
        if len(self.history) > 64:
            del self.history[:-64]
        return {**shown, "t": now["t"], "dock_x": self.env["dock_x"]}
