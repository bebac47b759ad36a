"""Scissor lift: a platform (the task's own plank) with a crate on it, set by the design on top of
its linkage, to be raised to a height and held there. The motors may be worn: each gives only a
fraction of the torque declared."""

from __future__ import annotations

from simreflect.suites.pace.design import TOLERANCE
from simreflect.suites.pace.task import PaceWorld

PLATFORM_W, PLATFORM_T, PLATFORM_MASS = 3.2, 0.1, 20.0
CRATE_W, CRATE_H = 0.8, 0.6


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        L, H = env["zone_length"], env["zone_height"]
        rect = [(-L / 2, 0.0), (L / 2, 0.0), (L / 2, H), (-L / 2, H)]
        ground = [(-L / 2, -0.05), (L / 2, -0.05), (L / 2, 0.05), (-L / 2, 0.05)]
        place = [(-0.5, 0.05), (0.5, 0.05), (0.5, H + 0.5), (-0.5, H + 0.5)]
        hinge = [(-L / 2, 0.0), (L / 2, 0.0), (L / 2, H + 0.5), (-L / 2, H + 0.5)]
        return {"build": [rect], "anchors": [ground], "placements": {"platform": [place], "hinge": [hinge]}}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 30.0, 1.0, friction=0.8)
        self.platform = None
        self.crate = None

    def place(self, design) -> None:
        env, sim = self.env, self.sim
        x, y = design.placement("platform") or (0.0, env["zone_height"] + PLATFORM_T / 2)
        self.platform = sim.dynamic_box((x, y), PLATFORM_W, PLATFORM_T, PLATFORM_MASS / (PLATFORM_W * PLATFORM_T),
                                        friction=0.8, role="payload", name="platform")
        cy = y + PLATFORM_T / 2 + CRATE_H / 2
        self.crate = sim.dynamic_box((x, cy), CRATE_W, CRATE_H, env["load_mass"] / (CRATE_W * CRATE_H),
                                     friction=0.6, role="payload", name="crate")
        self.hinge = None
        self.hinge_part = ""
        hinge = design.placement("hinge")
        if hinge is not None:
            hx, hy = hinge
            plank = (x - PLATFORM_W / 2 - TOLERANCE <= hx <= x + PLATFORM_W / 2 + TOLERANCE
                     and abs(hy - y) <= PLATFORM_T / 2 + 2 * TOLERANCE)
            part = next((p for p in design.parts if p.distance_to(hx, hy) <= TOLERANCE), None)
            if plank and part is not None:
                self.hinge = sim.world.CreateRevoluteJoint(bodyA=sim.parts[part.id], bodyB=self.platform,
                                                           anchor=(hx, hy), collideConnected=False)
                self.hinge_part = part.id
                sim.event("setup", f"the platform's hinge pins it to {part.id} at ({hx:.2f}, {hy:.2f})", 0)
            else:
                why = "the platform" if not plank else "any part of the lift"
                sim.event("setup", f"the hinge at ({hx:.2f}, {hy:.2f}) is not on {why}: the platform is not "
                                   "pinned", 0)
        # worn motors: each gives only a fraction of the torque it was declared with
        health = env["motor_health"]
        if health != 1.0:
            for spec in design.joints:
                if spec.motor_speed is not None:
                    declared = max(0.0, min(env["max_motor_torque"], spec.max_torque or 0.0))
                    sim.joints[spec.id].joint.maxMotorTorque = declared * health
