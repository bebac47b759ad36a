"""Cart-pole: a cart on a straight track (a prismatic joint) with a pole pinned on top of it; a
motor pushes the cart. Track friction, wind on the cart, the actuator's lag and health and late
readings are applied here, every step."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

CART_W, CART_H = 0.6, 0.3
POLE_W = 0.06
AXLE_Y = 0.5  # height of the cart's centre above the ground line
GROUP = -4
DT = 1.0 / 60.0


class World(PaceWorld):
    forces = True
    commands = {"force": (-1.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        g = env["gravity"]
        sim.set_gravity(0.0, -g)
        half = env["track_half"]
        # the rail and its end stops (drawn; the cart runs on a prismatic joint above the rail)
        sim.static_box((0.0, AXLE_Y - CART_H / 2 - 0.1), 2 * half + 1.0, 0.08)
        for side in (-1, 1):
            sim.static_box((side * (half + 0.05), AXLE_Y), 0.1, 0.5)
        L = env["pole_length"]
        cart = sim.world.CreateDynamicBody(position=(0.0, AXLE_Y))
        cart.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(CART_W / 2, CART_H / 2)),
                                        density=env["cart_mass"] / (CART_W * CART_H), friction=0.0,
                                        groupIndex=GROUP))
        cart.angularDamping = 0.0
        cart.linearDamping = 0.0
        sim.register(cart, "vehicle", "cart")
        pivot = (0.0, AXLE_Y + CART_H / 2)
        a0 = env["start_angle"]
        centre = (pivot[0] - 0.5 * L * math.sin(a0), pivot[1] + 0.5 * L * math.cos(a0))
        pole = sim.world.CreateDynamicBody(position=centre, angle=a0)
        pole.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(POLE_W / 2, L / 2)),
                                        density=env["pole_mass"] / (POLE_W * L), friction=0.3, groupIndex=GROUP))
        pole.angularDamping = 0.0
        pole.linearDamping = 0.0
        sim.register(pole, "payload", "pole")
        sim.world.CreatePrismaticJoint(bodyA=sim.ground, bodyB=cart, anchor=(0.0, AXLE_Y), axis=(1.0, 0.0),
                                       collideConnected=False)
        sim.world.CreateRevoluteJoint(bodyA=cart, bodyB=pole, anchor=pivot, collideConnected=False)
        self.cart, self.pole = cart, pole
        self.pivot_dy = CART_H / 2
        self.force = 0.0  # the force the actuator actually gives (N)
        self.cmd = {"force": 0.0}
        self.history: list[dict] = []
        self.weight = (cart.mass + pole.mass) * g
        self.saturated = 0
        self.requests = 0

    def apply(self, cmd, step: int) -> None:
        self.cmd = dict(cmd)
        self.requests += 1
        if abs(self.cmd["force"]) >= 0.999:
            self.saturated += 1

    def before_step(self, step: int) -> None:
        env = self.env
        target = self.cmd["force"] * env["max_force"] * env["force_health"]
        lag = env["motor_lag"]
        self.force += (target - self.force) * (1.0 if lag <= 0 else min(1.0, DT / lag))
        v = self.cart.linearVelocity.x
        # dry friction: up to mu N against the motion, never more than would stop the cart this step
        fric = 0.0
        if env["track_friction"] > 0 and v != 0.0:
            fric = -math.copysign(min(env["track_friction"] * self.weight, abs(v) * self.cart.mass / DT), v)
        self.cart.ApplyForceToCenter((self.force + fric + env["wind"], 0.0), True)

    def tilt(self) -> float:
        return math.remainder(self.pole.angle, 2 * math.pi)

    def sensors(self, step: int) -> dict:
        c, p = self.cart, self.pole
        now = {"x": c.position.x, "v": c.linearVelocity.x, "angle": self.tilt(), "spin": p.angularVelocity}
        self.history.append(now)
        delay = int(self.env["sensor_delay"])
        shown = self.history[max(0, len(self.history) - 1 - delay)]
        if len(self.history) > 64:
            del self.history[:-64]
        return {**shown, "t": round(step / 60.0, 4)}
