"""Seeker: a small self-propelled craft on open water (seen from above, no gravity in the plane)
hunts a moving beacon it knows only through its sonar (bearing and range). Water drag (along and
across the hull), a current, the beacon's weaving, actuator health and late readings are applied
here, every step."""

from __future__ import annotations

import math

from Box2D import b2CircleShape, b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

HULL_L, HULL_W = 1.6, 0.6
LATERAL = 8.0  # drag across the hull, relative to along it (a keel)
SPIN_DRAG = 3.0  # N m s per kg m^2 of the hull's moment of inertia
BEACON_R = 0.4
DT = 1.0 / 60.0
ARENA = (-15.0, -60.0, 75.0, 50.0)  # x0, y0, x1, y1


def beacon_start(env) -> tuple[float, float]:
    """Where the beacon starts in this run: (target_x, target_y) on the first track; on the second,
    that point moved track_shift to port of the beacon's heading (a parallel track)."""
    h, shift = env["target_heading"], env["track"] * env["track_shift"]
    return env["target_x"] - shift * math.sin(h), env["target_y"] + shift * math.cos(h)


class World(PaceWorld):
    forces = True
    commands = {"thrust": (0.0, 1.0), "turn": (-1.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, 0.0)
        x0, y0, x1, y1 = ARENA
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
            sim.static_edge(a, b, friction=0.3)
        craft = sim.world.CreateDynamicBody(position=(0.0, 0.0), angle=0.0)
        craft.CreateFixture(b2FixtureDef(shape=b2PolygonShape(vertices=[
            (-HULL_L / 2, -HULL_W / 2), (HULL_L / 2 - 0.3, -HULL_W / 2), (HULL_L / 2, 0.0),
            (HULL_L / 2 - 0.3, HULL_W / 2), (-HULL_L / 2, HULL_W / 2)]), density=1.0, friction=0.3))
        md = craft.massData
        scale = env["craft_mass"] / md.mass
        md.mass = env["craft_mass"]
        md.I = md.I * scale
        craft.massData = md
        sim.register(craft, "craft", "craft")
        self.craft = craft
        h = env["target_heading"]
        beacon = sim.world.CreateKinematicBody(position=beacon_start(env))
        beacon.CreateFixture(b2FixtureDef(shape=b2CircleShape(radius=BEACON_R), isSensor=True))
        sim.register(beacon, "target", "beacon")
        self.beacon = beacon
        self.beacon_heading = h
        self.cmd = {"thrust": 0.0, "turn": 0.0}
        self.history: list[dict] = []
        self._move_beacon(0)

    def _move_beacon(self, step: int) -> None:
        env = self.env
        t = step * DT
        h = env["target_heading"]
        if env["weave_amplitude"] > 0:
            h += env["weave_amplitude"] * math.sin(2 * math.pi * t / env["weave_period"])
        self.beacon_heading = h
        v = env["target_speed"]
        self.beacon.linearVelocity = (v * math.cos(h), v * math.sin(h))

    def apply(self, cmd, step: int) -> None:
        self.cmd = dict(cmd)

    def before_step(self, step: int) -> None:
        env = self.env
        self._move_beacon(step)
        c = self.craft
        a = c.angle
        fwd = (math.cos(a), math.sin(a))
        side = (-fwd[1], fwd[0])
        v = c.linearVelocity
        rx, ry = v.x - env["current"], v.y  # velocity through the water
        u = rx * fwd[0] + ry * fwd[1]
        w = rx * side[0] + ry * side[1]
        k = env["water_drag"]
        thrust = self.cmd["thrust"] * env["max_thrust"] * env["thrust_health"]
        fu = thrust - k * u
        fw = -LATERAL * k * w
        c.ApplyForceToCenter((fu * fwd[0] + fw * side[0], fu * fwd[1] + fw * side[1]), True)
        torque = self.cmd["turn"] * env["max_torque"] * env["rudder_health"] - SPIN_DRAG * c.inertia * c.angularVelocity
        c.ApplyTorque(torque, True)

    def relative(self) -> tuple[float, float]:
        """Range and bearing (relative to the bow) of the beacon, now."""
        c, b = self.craft.position, self.beacon.position
        dx, dy = b.x - c.x, b.y - c.y
        return math.hypot(dx, dy), math.remainder(math.atan2(dy, dx) - self.craft.angle, 2 * math.pi)

    def sensors(self, step: int) -> dict:
        c = self.craft
        rng, brg = self.relative()
        a = c.angle
        v = c.linearVelocity
        now = {"heading": math.remainder(a, 2 * math.pi), "speed": v.x * math.cos(a) + v.y * math.sin(a),
               "spin": c.angularVelocity, "bearing": brg, "range": rng}
        self.history.append(now)
        delay = int(self.env["sensor_delay"])
        shown = self.history[max(0, len(self.history) - 1 - delay)]
        if len(self.history) > 64:
            del self.history[:-64]
        return {**shown, "t": round(step / 60.0, 4)}
