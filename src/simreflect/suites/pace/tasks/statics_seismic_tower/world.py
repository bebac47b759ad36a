"""Seismic tower: a tank on a tower, the ground shaking sideways.

The run is simulated in the frame of the ground: a horizontal ground acceleration a(t) is, in that
frame, a uniform inertial field -a(t) on every body, so it enters as a horizontal component of
gravity. The quake builds up over its first second, shakes at full strength and then stops."""

from __future__ import annotations

import math

from simreflect.suites.pace.engine import DESIGN_GROUP
from simreflect.suites.pace.task import PaceWorld

ZONE_HALF = 3.0  # the build zone spans x from -3 to 3 m
TANK = 0.6  # the tank is a 0.6 m square pinned at its centre
HOOK_TOL = 0.05
QUAKE_START_S = 0.5
RAMP_S = 1.0
AFTER_S = 1.0  # the run goes on this long after the quake


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        H = env["height"]
        b = env["base_half"]
        build = [[(-ZONE_HALF, 0.0), (ZONE_HALF, 0.0), (ZONE_HALF, H + 1.0), (-ZONE_HALF, H + 1.0)]]
        anchors = [[(-b, -0.05), (b, -0.05), (b, 0.05), (-b, 0.05)]]
        return {"build": build, "anchors": anchors}

    def build(self) -> None:
        env, sim = self.env, self.sim
        self.g = env["gravity"]
        sim.set_gravity(0.0, -self.g)
        sim.static_box((0.0, -0.5), 30.0, 1.0, friction=0.8)
        self.mount = (0.0, env["height"])
        self.tank = sim.dynamic_box(self.mount, TANK, TANK, env["payload_mass"] / (TANK * TANK), friction=0.6,
                                    role="payload", name="tank", group=DESIGN_GROUP)
        self.carrier = None
        self.omega = 2.0 * math.pi / env["quake_period"]
        self.t_end = QUAKE_START_S + env["shake_time"]
        self.ground_accel = 0.0

    def place(self, design) -> None:
        # the shaking enters as a changing gravity, which does not wake sleeping bodies: keep them awake
        # (the engine's `sleep = false` setting does not stop pybox2d's bodies from falling asleep)
        for body in self.sim.world.bodies:
            body.sleepingAllowed = False
        hx, hy = self.mount
        best = None
        for p in design.parts:
            d = p.distance_to(hx, hy)
            if d <= HOOK_TOL and (best is None or d < best[0]):
                best = (d, p.id)
        if best is not None:
            self.carrier = best[1]
            self.sim.world.CreateRevoluteJoint(bodyA=self.sim.parts[best[1]], bodyB=self.tank, anchor=(hx, hy),
                                               collideConnected=False)

    def accel(self, step: int) -> float:
        """The ground's horizontal acceleration at this step (m/s^2)."""
        t = step / 60.0
        if t < QUAKE_START_S or t > self.t_end:
            return 0.0
        s = t - QUAKE_START_S
        ramp = min(1.0, s / RAMP_S, (self.t_end - t) / RAMP_S)
        # ground displacement A sin(w t): its acceleration is -A w^2 sin(w t)
        return -self.env["quake_amplitude"] * self.omega ** 2 * ramp * math.sin(self.omega * s)

    def before_step(self, step: int) -> None:
        a = self.accel(step)
        self.ground_accel = a
        self.sim.world.gravity = (-a, -self.g - self.env["vertical_ratio"] * a)
