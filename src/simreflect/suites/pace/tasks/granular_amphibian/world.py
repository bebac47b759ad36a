"""Amphibian: a vehicle drives across flat land, down a bank into a river, across it and up the
far bank.

The river is a force field, not particles: its surface is level (y = -0.3 m), its water flows
towards -x (against the crossing) at the current's speed. Before every step each fixture of the
vehicle is clipped by the surface and its submerged part gets
  * buoyancy rho g A_sub, upward, at the centroid of the submerged area (Archimedes in 2D),
  * linear drag -rho A_sub k_lin v_rel at that centroid and form drag -0.5 Cd rho D |v_rel| v_rel
    (D: the submerged part's width across v_rel), with v_rel the velocity of the part relative to
    the water: for blocks and beams the velocity of the centroid itself (a turning paddle pushes
    water), for wheels the velocity of the wheel's centre (a smooth rim slides past the water),
  * a rotational damping of the submerged area (blocks and beams).
"""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld
from simreflect.suites.pace.water import Water

LEVEL = -0.3  # the water's surface
PAYLOAD_W, PAYLOAD_H = 0.5, 0.3  # the payload block bolted on the chassis
SHELF = 0.5  # depth below the surface where the banks' slopes end (steep channel walls below)
GOAL_BEYOND = 3.0  # the goal line lies this far beyond the far bank's top edge
BANK_X = 4.0  # where the near bank starts to fall
K_LIN = 0.3  # 1/s, linear drag rate of the water on a submerged area
CD = 1.0  # form drag coefficient
CW = 1.2


#: Pieces the water may cut and weigh in one run (water.py; the card's api doc states it): about ten
#: times the 23,760 its most demanding reference needs.
WATER_WORK = 240_000

class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        L, H = env["zone_length"], env["zone_height"]
        return {"build": [[(-L / 2, 0.0), (L / 2, 0.0), (L / 2, H), (-L / 2, H)]], "anchors": []}

    @staticmethod
    def geometry(env):
        """x of: the near bank's top edge, where its slope meets the water, where the far bank's
        slope leaves the water, the far bank's top edge; and the river bed's y."""
        t = math.tan(math.radians(env["bank_slope"]))
        bed = LEVEL - env["water_depth"]
        x0 = BANK_X
        x1 = x0 + (0.0 - LEVEL) / t
        x2 = x1 + env["crossing_width"]
        x3 = x2 + (0.0 - LEVEL) / t
        return x0, x1, x2, x3, bed

    @staticmethod
    def shelf(env):
        """The banks slope down to this depth below the surface; deeper, the channel has steep
        walls down to the bed. Returns (the shelf's y, x of the near and far shelf edges)."""
        t = math.tan(math.radians(env["bank_slope"]))
        x0, x1, x2, x3, bed = World.geometry(env)
        y = LEVEL - min(SHELF, env["water_depth"])
        return y, x0 + (0.0 - y) / t, x3 - (0.0 - y) / t

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["ground_friction"]
        x0, x1, x2, x3, bed = self.geometry(env)
        ys, xs0, xs1 = self.shelf(env)
        floor = bed - 1.0
        sim.static_box(((x0 - 12.0) / 2, -0.5), x0 + 12.0, 1.0, friction=mu)  # the near land (top y = 0)
        sim.static_polygon([(x0, 0.0), (x0, floor), (xs0, floor), (xs0, ys)], friction=mu)  # near bank
        sim.static_box(((xs0 + xs1) / 2, bed - 0.5), xs1 - xs0, 1.0, friction=mu)  # the river bed
        sim.static_polygon([(xs1, ys), (xs1, floor), (x3, floor), (x3, 0.0)], friction=mu)  # far bank
        sim.static_box((x3 + 10.0, -0.5), 20.0, 1.0, friction=mu)  # the far land
        sim.static_box((x3 + 20.5, 2.0), 1.0, 6.0, friction=mu)  # end wall
        self.goal_x = x3 + GOAL_BEYOND
        self.water = Water(rho=env["water_density"], g=env["gravity"], x_range=(x0, x3), level=LEVEL,
                           current=-env["current"], k_lin=K_LIN, cd=CD, cw=CW, smooth_circles=True,
                           max_work=WATER_WORK)

    def place(self, design) -> None:
        self.floating = [self.sim.parts[pid] for pid in self.sim.parts]
        frame = [p for p in design.parts if p.kind != "wheel"] or list(design.parts)
        heaviest = max(frame, key=lambda p: p.mass, default=None)
        self.chassis_id = heaviest.id if heaviest is not None else ""
        self.chassis = self.sim.parts[heaviest.id] if heaviest is not None else None
        self.chassis_area = heaviest.area if heaviest is not None else 1.0
        self.chassis_sub = 0.0
        self.buoyancy = 0.0
        self.payload = None
        P = self.env["payload"]
        if P > 0 and heaviest is not None:  # a load bolted on top of the chassis, at its middle
            c, s = math.cos(heaviest.angle), math.sin(heaviest.angle)
            up = heaviest.height / 2 + PAYLOAD_H / 2
            pos = (heaviest.x - s * up, heaviest.y + c * up)
            self.payload = self.sim.dynamic_box(pos, PAYLOAD_W, PAYLOAD_H, P / (PAYLOAD_W * PAYLOAD_H), friction=0.5,
                                                angle=heaviest.angle, role="payload", name="payload", group=-1)
            self.sim.world.CreateWeldJoint(bodyA=self.chassis, bodyB=self.payload, anchor=pos, collideConnected=False)
            self.floating.append(self.payload)

    def before_step(self, step: int) -> None:
        water = self.water
        water.t = step / 60.0
        total = 0.0
        for body in self.floating:
            sub = water.act(body)
            total += sub
            if body is self.chassis:
                self.chassis_sub = sub
        self.buoyancy = water.rho * water.g * total  # N, on the vehicle and its load
