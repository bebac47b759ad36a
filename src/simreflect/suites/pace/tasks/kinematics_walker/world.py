"""Walker over a ledge and a trench: flat start, a ledge up to a plateau, a trench across the plateau.
Only the feet (the ends of beams) may touch the ground; a steady headwind pushes on every kilogram."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

ZONE_HALF = 2.0
STEP_X = 4.0
TRENCH_X = 7.0
TRENCH_DEPTH = 2.0
GOAL_X = 11.0
END_X = 20.0


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        H = env["zone_height"]
        return {"build": [[(-ZONE_HALF, 0.0), (ZONE_HALF, 0.0), (ZONE_HALF, H), (-ZONE_HALF, H)]], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["ground_friction"]
        h = env["step_height"]
        gap = env["trench_width"]
        sim.static_box(((-10.0 + STEP_X) / 2, -0.5), STEP_X + 10.0, 1.0, friction=mu)
        sim.static_box(((STEP_X + TRENCH_X) / 2, (h - 1.0) / 2), TRENCH_X - STEP_X, h + 1.0, friction=mu)
        far = TRENCH_X + gap
        sim.static_box(((far + END_X) / 2, (h - 1.0) / 2), END_X - far, h + 1.0, friction=mu)
        if gap > 0:
            sim.static_box(((TRENCH_X + far) / 2, -TRENCH_DEPTH - 0.5), gap + 0.2, 1.0, friction=mu)
        self.forces = env["headwind"] != 0.0
        self.parts = []

    def place(self, design) -> None:
        self.parts = [self.sim.parts[p.id] for p in design.parts]

    def before_step(self, step: int) -> None:
        a = -self.env["headwind"]
        for b in self.parts:
            b.ApplyForceToCenter((a * b.mass, 0.0), True)
