"""Grain filter: a feeder drops a mixed stream of small and large grains; a screen the designer
builds must let the small ones through into the fines bin below and keep the large ones out."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

OUTLET = (0.0, 5.5)  # centre of the feeder's outlet
OUTLET_W = 0.8
FEED_SPEED = 3.0  # m/s, downward, as a grain leaves the feeder
FINES = (-2.2, 3.8)  # inner faces of the fines bin's walls
REJECT_X = 6.5  # inner face of the reject bin's far wall
BIN_WALL = 1.0
WALL_T = 0.1
ZONE = (-2.0, 4.5, 1.1, 5.0)  # x0, x1, y0, y1 of the build zone
LARGE_EVERY = 3  # every third grain released is a large one


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, x1, y0, y1 = ZONE
        rect = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        return {"build": [rect], "anchors": [rect]}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((2.0, -0.5), 14.0, 1.0, friction=0.6)
        ox, oy = OUTLET
        h = OUTLET_W / 2
        for s in (-1.0, 1.0):  # the feeder's spout
            sim.static_box((ox + s * (h + 0.06), oy + 0.7), 0.12, 1.4, friction=0.3)
        sim.static_box((ox, oy + 1.46), OUTLET_W + 0.24, 0.12, friction=0.3)
        f0, f1 = FINES
        sim.static_box((f0 - WALL_T / 2, BIN_WALL / 2), WALL_T, BIN_WALL, friction=0.5)
        sim.static_box((f1 + WALL_T / 2, BIN_WALL / 2), WALL_T, BIN_WALL, friction=0.5)  # fines | reject
        sim.static_box((REJECT_X + WALL_T / 2, BIN_WALL / 2), WALL_T, BIN_WALL, friction=0.5)
        self.n_small = int(env["small_count"])
        self.n_large = int(env["large_count"])
        self.n = self.n_small + self.n_large
        self.every = max(1, int(round(60.0 / env["feed_rate"])))
        self.small, self.large = [], []
        self.released = 0

    def before_step(self, step: int) -> None:
        """The feeder: one grain every `every` steps, large and small in a fixed pattern, over
        three lanes of the outlet."""
        k = self.released
        if k >= self.n or step % self.every:
            return
        env = self.env
        large = (k % LARGE_EVERY == LARGE_EVERY - 1 and len(self.large) < self.n_large) or len(self.small) >= self.n_small
        r = env["large_radius"] if large else env["small_radius"]
        lane = (k + k // 3) % 3  # consecutive grains never share a lane
        x = OUTLET[0] + (lane - 1) * (OUTLET_W / 2 - env["large_radius"] - 0.02)
        body = self.sim.dynamic_circle((x, OUTLET[1] + 1.0), r, env["particle_density"],
                                       friction=env["particle_friction"], restitution=env["particle_restitution"],
                                       role="particle" if not large else "payload",
                                       name="large grain" if large else "small grain", track=False, bullet=True)
        body.linearVelocity = (0.0, -FEED_SPEED)
        (self.large if large else self.small).append(body)
        self.released += 1
