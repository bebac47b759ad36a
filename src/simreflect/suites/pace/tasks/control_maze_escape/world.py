"""Maze escape: a round wheeled robot (seen from above) in a walled maze of 2 m cells, with five
range finders. Floor grip, floor tilt, a sensor fault and late readings are applied here,
every step."""

from __future__ import annotations

import math

from Box2D import b2CircleShape, b2FixtureDef, b2RayCastCallback

from simreflect.suites.pace.task import PaceWorld

CELL = 2.0
WALL = 0.1
COLS, ROWS = 5, 4
RADIUS = 0.3
G = 9.81
DT = 1.0 / 60.0
#: The maze (row 3 at the top). "S": the entrance (closed behind the robot); ">": the exit.
MAZE = (
    "+--+--+--+--+--+",
    "|           |  >",
    "+  +--+  +  +  +",
    "|  |  |  |     |",
    "+  +  +  +--+  +",
    "|     |     |  |",
    "+--+--+--+  +  +",
    "S           |  |",
    "+--+--+--+--+--+",
)
RAYS = (("front", 0.0), ("front_left", math.pi / 4), ("left", math.pi / 2), ("front_right", -math.pi / 4),
        ("right", -math.pi / 2))
ROLLING = 0.4  # 1/s: rolling resistance per unit speed
SPIN_DAMP = 2.0  # 1/s
TURN_ARM = 0.2  # m: the grip limits the turning torque to mu m g x this arm


def wall_segments() -> list[tuple[float, float, float, float]]:
    """Axis-aligned wall segments (x0, y0, x1, y1) from the drawing; the maze's lower-left
    corner is at (0, 0)."""
    segs = []
    for r, line in enumerate(MAZE):
        if r % 2 == 0:  # a horizontal wall line
            y = (len(MAZE) // 2 - r // 2) * CELL
            for c in range(COLS):
                if line[1 + 3 * c] == "-":
                    segs.append((c * CELL, y, (c + 1) * CELL, y))
        else:  # cells and vertical walls
            y0 = (len(MAZE) // 2 - 1 - r // 2) * CELL
            for c in range(COLS + 1):
                ch = line[3 * c]
                if ch in "|S":  # the entrance is closed behind the robot
                    segs.append((c * CELL, y0, c * CELL, y0 + CELL))
    return segs


class _Ray(b2RayCastCallback):
    def __init__(self):
        super().__init__()
        self.fraction = 1.0

    def ReportFixture(self, fixture, point, normal, fraction):
        if fixture.body.type != 0:  # only the static walls
            return -1.0
        self.fraction = fraction
        return fraction


class World(PaceWorld):
    forces = True
    commands = {"drive": (-1.0, 1.0), "turn": (-1.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, 0.0)
        self.walls = []  # (xmin, ymin, xmax, ymax) of every wall block
        for x0, y0, x1, y1 in wall_segments():
            if y0 == y1:
                sim.static_box(((x0 + x1) / 2, y0), (x1 - x0) + WALL, WALL, friction=0.3)
            else:
                sim.static_box((x0, (y0 + y1) / 2), WALL, (y1 - y0) + WALL, friction=0.3)
            self.walls.append((x0 - WALL / 2, y0 - WALL / 2, x1 + WALL / 2, y1 + WALL / 2))
        body = sim.world.CreateDynamicBody(position=(CELL / 2, CELL / 2), angle=0.0)
        body.CreateFixture(b2FixtureDef(shape=b2CircleShape(radius=RADIUS),
                                        density=env["robot_mass"] / (math.pi * RADIUS ** 2), friction=0.3))
        sim.register(body, "vehicle", "robot")
        self.body = body
        self.cmd = {"drive": 0.0, "turn": 0.0}
        self.history: list[dict] = []
        self.was_touching = False
        self.v_prev = (0.0, 0.0)
        self.bumps: list[tuple[int, float]] = []  # (step, speed into the wall)
        self.slip_steps = 0
        self.odometer = 0.0

    def apply(self, cmd, step: int) -> None:
        self.cmd = dict(cmd)

    def _contact_normal(self):
        """The unit normal from the nearest wall to the robot's centre, when it touches one."""
        if not any(edge.contact.touching for edge in self.body.contacts):
            return None
        p = self.body.position
        best = None
        for x0, y0, x1, y1 in self.walls:
            qx, qy = min(max(p.x, x0), x1), min(max(p.y, y0), y1)
            d = math.hypot(p.x - qx, p.y - qy)
            if best is None or d < best[0]:
                best = (d, qx, qy)
        d, qx, qy = best
        if d < 1e-9:
            return (1.0, 0.0)
        return ((p.x - qx) / d, (p.y - qy) / d)

    def before_step(self, step: int) -> None:
        env, b = self.env, self.body
        n = self._contact_normal()
        if n is not None and not self.was_touching:
            speed = abs(self.v_prev[0] * n[0] + self.v_prev[1] * n[1])
            self.bumps.append((step, speed))
        self.was_touching = n is not None
        v = b.linearVelocity
        self.v_prev = (v.x, v.y)
        self.odometer += math.hypot(v.x, v.y) * DT
        m = b.mass
        a = b.angle
        f = (math.cos(a), math.sin(a))
        s = (-f[1], f[0])
        u = v.x * f[0] + v.y * f[1]
        w = v.x * s[0] + v.y * s[1]
        grip = env["floor_grip"] * m * G
        drive = self.cmd["drive"] * env["max_force"] - ROLLING * m * u
        if abs(drive) > grip:  # the wheels spin or lock: only the grip's worth reaches the floor
            drive = math.copysign(grip, drive)
            self.slip_steps += 1
        side = -m * w / DT * 0.5
        if abs(side) > grip:  # the robot skids sideways
            side = math.copysign(grip, side)
        tilt = env["floor_tilt"] * m * G  # the floor slopes down towards -y
        b.ApplyForceToCenter((drive * f[0] + side * s[0], drive * f[1] + side * s[1] - tilt), True)
        torque = self.cmd["turn"] * env["max_torque"]
        torque = max(-grip * TURN_ARM, min(grip * TURN_ARM, torque))
        b.ApplyTorque(torque - SPIN_DAMP * b.inertia * b.angularVelocity, True)

    def ranges(self) -> dict:
        b = self.body
        p = b.position
        reach = self.env["sensor_range"]
        out = {}
        for name, rel in RAYS:
            ang = b.angle + rel
            end = (p.x + reach * math.cos(ang), p.y + reach * math.sin(ang))
            cb = _Ray()
            self.sim.world.RayCast(cb, (p.x, p.y), end)
            out[name] = reach * cb.fraction
        out["right"] += self.env["right_sensor_bias"]
        return out

    def sensors(self, step: int) -> dict:
        b = self.body
        v = b.linearVelocity
        a = b.angle
        now = {"heading": math.remainder(a, 2 * math.pi), "speed": v.x * math.cos(a) + v.y * math.sin(a),
               "spin": b.angularVelocity, **self.ranges()}
        self.history.append(now)
        delay = int(self.env["sensor_delay"])
        shown = self.history[max(0, len(self.history) - 1 - delay)]
        if len(self.history) > 64:
            del self.history[:-64]
        return {**shown, "t": round(step / 60.0, 4)}
