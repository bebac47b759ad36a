"""Lock flight: a boat is raised from a lower pool to an upper pool through two lock chambers and
three lift gates (side view, the canal runs along x). Water levels are integrated here from the
flows through the valves (Torricelli's law) and under lifted gates; a gate can be
lifted only when its motor beats the gate's weight plus the friction that the water's push
presses into its seals, so a gate holding back a head of water stays shut. The boat floats on
the level of the water body it is in."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

RHO = 1000.0
DT = 1.0 / 60.0
WIDTH = 2.0  # m: width of the canal (into the page)
GATES_X = (0.0, 8.0, 16.0)
#: canal bed (floor top) of the lower pool, chamber 1, chamber 2 and the upper pool; gate k stands
#: on the step up to the bed upstream of it (its sill: BEDS[k + 1])
BEDS = (0.0, 0.5, 1.5, 2.5)
SPANS = ((-15.0, 0.0), (0.0, 8.0), (8.0, 16.0), (16.0, 30.0))
CHAMBER_AREA = 8.0 * WIDTH  # m^2 of water surface in each chamber
BOAT_L, BOAT_H, BOAT_BEAM = 4.0, 0.8, 1.5
GATE_T = 0.2  # m: gate thickness
GATE_H = 4.5  # m: gate height
MAX_LIFT = 3.0  # m
SEAL = 0.05  # m: below this lift the gate still seals (the water presses it on its seals)
GATE_SPEED = 1.0  # m/s at full command
VALVE_RATE = 0.5  # opening per second
CD = 0.6  # discharge coefficient of the gate openings
DRAG = 1500.0  # N s/m: water drag on the boat lengthways
HEAVE_DAMP = 20000.0  # N s/m: damping of the boat's heave
G = 9.81


class World(PaceWorld):
    forces = True
    commands = {"thrust": (-1.0, 1.0), "gate1": (-1.0, 1.0), "gate2": (-1.0, 1.0), "gate3": (-1.0, 1.0),
                "valve1": (0.0, 1.0), "valve2": (0.0, 1.0), "valve3": (0.0, 1.0)}

    @classmethod
    def zones(cls, env):
        return {"build": [], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        g = G
        sim.set_gravity(0.0, -g)
        self.bed_fixtures = []
        for (x0, x1), bed in zip(SPANS, BEDS):
            self.bed_fixtures.append(sim.static_box(((x0 + x1) / 2, bed - 0.5), x1 - x0, 1.0, friction=0.5))
        self.end_fixtures = [sim.static_box((SPANS[0][0] - 0.25, 3.0), 0.5, 6.0),
                             sim.static_box((SPANS[-1][1] + 0.25, 4.5), 0.5, 5.0)]
        self.levels = [env["lower_level"], env["lower_level"], env["chamber2_level"], env["upper_level"]]
        self.gates = []
        self.lift = [0.0, 0.0, 0.0]
        for k, gx in enumerate(GATES_X):
            sill = BEDS[k + 1]
            body = sim.world.CreateKinematicBody(position=(gx, sill + GATE_H / 2))
            body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(GATE_T / 2, GATE_H / 2)), friction=0.5))
            sim.register(body, "terrain", f"gate{k + 1}", track=False)
            self.gates.append(body)
        self.boat_mass = env["boat_mass"]
        x0 = env["boat_x"]
        draft = self.boat_mass / (RHO * BOAT_L * BOAT_BEAM)
        y0 = self.levels[0] - draft + BOAT_H / 2
        boat = sim.world.CreateDynamicBody(position=(x0, y0), fixedRotation=True)
        boat.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(BOAT_L / 2, BOAT_H / 2)),
                                        density=self.boat_mass / (BOAT_L * BOAT_H), friction=0.3))
        sim.register(boat, "craft", "boat")
        self.boat = boat
        self.draft = draft
        self.cmd = {k: 0.0 for k in self.commands}
        self.valves = [0.0, 0.0, 0.0]
        self.gate_flow = [0.0, 0.0, 0.0]  # m^3/s under each gate (positive downstream, towards -x)
        self.stalled = [False, False, False]
        self.history: list[dict] = []

    # --- water

    def water_index(self, x: float) -> int:
        for i, (x0, x1) in enumerate(SPANS):
            if x < x1:
                return i
        return len(SPANS) - 1

    def _flows(self) -> list[float]:
        """Flow (m^3/s) from body k+1 down to body k across each gate line (negative: upwards)."""
        env = self.env
        lv = self.levels
        out = []
        for k in range(3):
            up, down = lv[k + 1], lv[k]
            dh = up - down
            s = math.copysign(math.sqrt(2 * G * abs(dh)), dh)
            valve = env["valve_area"] * env["culvert_health"] * self.valves[k] * CD * s
            sill = BEDS[k + 1]
            z = self.lift[k]
            # under a lifted gate: the opening up to the lower of the two surfaces
            open_h = max(0.0, min(z, min(up, down) - sill)) if z > SEAL else 0.0
            under = CD * WIDTH * open_h * s
            self.gate_flow[k] = under
            out.append(valve + under)
        return out

    def _step_water(self) -> None:
        q = self._flows()
        lv = self.levels
        # chambers 1 and 2 change; the pools are large
        dv = [0.0, q[1] - q[0], q[2] - q[1], 0.0]
        for i in (1, 2):
            dh = dv[i] * DT / CHAMBER_AREA
            lv[i] += dh
        if self.env["upper_swell"] > 0:
            t = self.sim.steps * DT
            lv[3] = self.env["upper_level"] + self.env["upper_swell"] * math.sin(2 * math.pi * t / 20.0)

    # --- gates

    def _step_gates(self) -> None:
        env = self.env
        for k, body in enumerate(self.gates):
            c = self.cmd[f"gate{k + 1}"]
            sill = BEDS[k + 1]
            z = self.lift[k]
            weight = env["gate_mass"] * G
            force = c * env["gate_force"] * env["gate_health"]
            self.stalled[k] = False
            if c > 0:
                load = weight
                if z <= SEAL:
                    d_up = max(0.0, self.levels[k + 1] - sill)
                    d_dn = max(0.0, self.levels[k] - sill)
                    push = 0.5 * RHO * G * WIDTH * abs(d_up ** 2 - d_dn ** 2)
                    load += env["seal_friction"] * push
                if force > load:
                    z = min(MAX_LIFT, z + GATE_SPEED * c * DT)
                else:
                    self.stalled[k] = True
            elif c < 0:
                z = max(0.0, z + GATE_SPEED * c * DT)
            self.lift[k] = z
            body.position = (GATES_X[k], sill + z + GATE_H / 2)

    # --- boat

    def _step_boat(self) -> None:
        env = self.env
        b = self.boat
        i = self.water_index(b.position.x)
        level = self.levels[i]
        bottom = b.position.y - BOAT_H / 2
        d = max(0.0, min(BOAT_H, level - bottom))
        v = b.linearVelocity
        fy = RHO * G * BOAT_L * BOAT_BEAM * d - HEAVE_DAMP * v.y
        fx = self.cmd["thrust"] * env["max_thrust"] * env["thrust_health"] - DRAG * v.x + env["wind"]
        b.ApplyForceToCenter((fx, fy), True)

    def apply(self, cmd, step: int) -> None:
        self.cmd = dict(cmd)

    def before_step(self, step: int) -> None:
        for k in range(3):
            u = self.cmd[f"valve{k + 1}"]
            self.valves[k] += max(-VALVE_RATE * DT, min(VALVE_RATE * DT, u - self.valves[k]))
        self._step_gates()
        self._step_water()
        self._step_boat()

    # --- sensors

    def keel_clearance(self) -> float:
        b = self.boat
        i = self.water_index(b.position.x)
        return b.position.y - BOAT_H / 2 - BEDS[i]

    def sensors(self, step: int) -> dict:
        b = self.boat
        lv = self.levels
        bias = self.env["level_bias"]
        now = {"x": b.position.x, "vx": b.linearVelocity.x, "keel_clearance": self.keel_clearance(),
               "level0": lv[0], "level1": lv[1] + bias, "level2": lv[2] + bias, "level3": lv[3],
               "lift1": self.lift[0], "lift2": self.lift[1], "lift3": self.lift[2],
               "valve1": self.valves[0], "valve2": self.valves[1], "valve3": self.valves[2]}
        self.history.append(now)
        delay = int(self.env["sensor_delay"])
        shown = self.history[max(0, len(self.history) - 1 - delay)]
        if len(self.history) > 64:
            del self.history[:-64]
        return {**shown, "t": round(step / 60.0, 4)}
