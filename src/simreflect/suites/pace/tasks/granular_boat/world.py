"""Cargo boat: a river reach with a current, waves and wind; the designer's raft carries a cargo
crate from the dock to a landing downstream.

The water is a force field, not particles. Its surface is a travelling wave
eta(x, t) = A sin(k x - w t) (deep-water dispersion w^2 = g k), its velocity the current plus the
wave's orbital velocity (decaying as e^{k y} below the mean level y = 0). Before every step each
fixture of every floating body is cut into vertical strips (at most 0.25 m wide), each clipped by
the local surface (the wave's tangent line at the strip's middle), and each submerged piece gets
  * buoyancy rho g A_sub, upward, at the centroid of its submerged area (Archimedes in 2D),
  * linear drag from the water, -rho A_sub k_lin v_rel at the same point, with v_rel the velocity
    of that point relative to the water there;
each fixture's whole submerged part also gets form drag -0.5 Cd rho D |v_rel| v_rel at its
centroid (D: its width across v_rel) and a rotational damping, and
  * wind on its part above the water: 0.5 Cw rho_air H |w - v_x| (w - v_x), horizontal, with H
    the height of that part.
"""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld
from simreflect.suites.pace.water import Water

ZONE = (-2.0, 2.0, -2.0, 1.5)  # x0, x1, y0, y1 of the build zone (the water's mean level is y = 0)
CARGO_ZONE = (-2.0, 2.0, -1.0, 3.5)
WATER_X = (-8.0, 40.0)
DEPTH = 5.0
GOAL_X = 14.0
K_LIN = 0.1  # 1/s, linear drag rate of the water on a submerged area
CD = 1.0  # quadratic (form) drag coefficient in the water
CW = 1.2  # drag coefficient of the wind on what stands above the water


#: Pieces the water may cut and weigh in one run (water.py; the card's api doc states it): about ten
#: times the 30,258 its most demanding reference needs.
WATER_WORK = 300_000

class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, x1, y0, y1 = ZONE
        c0, c1, d0, d1 = CARGO_ZONE
        return {"build": [[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]], "anchors": [],
                "placements": {"cargo": [[(c0, d0), (c1, d0), (c1, d1), (c0, d1)]]}}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        w0, w1 = WATER_X
        sim.static_box(((w0 + w1) / 2, -DEPTH - 0.5), w1 - w0 + 2.0, 1.0, friction=0.6)  # the river bed
        sim.static_box((w0 - 0.5, -DEPTH / 2 + 0.5), 1.0, DEPTH + 1.0, friction=0.6)  # the dock wall behind
        self.water = Water(rho=env["water_density"], g=env["gravity"], x_range=WATER_X, wave_height=env["wave_height"],
                           wave_length=env["wave_length"], current=env["current"], wind=env["wind"],
                           gust=env.get("gust", 0.0), k_lin=K_LIN, cd=CD, cw=CW, max_work=WATER_WORK)
        self.cargo = None

    def place(self, design) -> None:
        env = self.env
        w, h = env["cargo_width"], env["cargo_height"]
        pos = design.placement("cargo") or (0.0, 1.0 + h / 2)
        density = env["cargo_mass"] / (w * h)
        self.cargo = self.sim.dynamic_box(pos, w, h, density, friction=env["cargo_friction"], restitution=0.0,
                                          role="payload", name="cargo")
        self.floating = [self.sim.parts[pid] for pid in self.sim.parts] + [self.cargo]
        self.cargo_sub = 0.0
        self.cargo_area = w * h

    def before_step(self, step: int) -> None:
        water = self.water
        water.t = step / 60.0
        for body in self.floating:
            sub = water.act(body)
            if body is self.cargo:
                self.cargo_sub = sub
