"""The boat must reach the upper pool: never touching the bed, never striking a gate or the
canal's end hard, and never exposed to a violent surge under a gate lifted against a head."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator


GOAL_X = 22.0
NAMES = ("the lower pool", "chamber 1", "chamber 2", "the upper pool")


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.q_max = env["max_gate_flow"]
        self.v_max = env["max_strike_speed"]
        self.x0 = world.boat.position.x
        self.best_x = self.x0
        self.ground_step = None
        self.strike_step = None
        self.surge_step = None
        self.peak_flow = 0.0
        self.peak_strike = 0.0
        self.min_clear = world.keel_clearance()
        self.goal_step = None
        self.touching = set()
        self.reported_stall = [False, False, False]
        self.gate_open_logged = [False, False, False]
        self.body_index = world.water_index(self.x0)
        self.vx_prev = 0.0

    def tick(self, step: int) -> bool:
        w = self.world
        b = w.boat
        ev = self.sim.event
        x = b.position.x
        self.best_x = max(self.best_x, x)
        clear = w.keel_clearance()
        self.min_clear = min(self.min_clear, clear)
        now = set()
        for edge in b.contacts:
            c = edge.contact
            if not c.touching:
                continue
            other = c.fixtureB if c.fixtureA.body == b else c.fixtureA
            # the fixture itself is the key: pybox2d hands out a new proxy on every access, whose
            # hash and == are the C++ object's (an id() of a proxy is reused at random)
            now.add(other)
            if other in self.touching:
                continue
            if other in w.bed_fixtures:
                if self.ground_step is None:
                    self.ground_step = step
                    ev("failure", f"the boat grounded on the bed at x = {x:.2f} m", step)
            else:
                speed = abs(self.vx_prev)
                self.peak_strike = max(self.peak_strike, speed)
                what = next((f"gate {k + 1}" for k, g in enumerate(w.gates) if other.body == g), "the canal's end")
                if speed > self.v_max and self.strike_step is None:
                    self.strike_step = step
                    ev("failure", f"the boat struck {what} at {speed:.2f} m/s", step)
                else:
                    ev("contact", f"the boat touched {what} at {speed:.2f} m/s", step)
        self.touching = now
        self.vx_prev = b.linearVelocity.x
        for k in range(3):
            q = abs(w.gate_flow[k])
            self.peak_flow = max(self.peak_flow, q)
            if q > self.q_max and self.surge_step is None:
                self.surge_step = step
                ev("failure", f"water surged under gate {k + 1} at {q:.1f} m^3/s", step)
            if w.stalled[k] and not self.reported_stall[k]:
                self.reported_stall[k] = True
                ev("phase", f"gate {k + 1}'s motor stalls: the gate will not rise (levels {w.levels[k + 1]:.2f} m "
                            f"above, {w.levels[k]:.2f} m below it)", step)
            if w.lift[k] > 0.5 and not self.gate_open_logged[k]:
                self.gate_open_logged[k] = True
                ev("phase", f"gate {k + 1} rises (levels {w.levels[k + 1]:.2f} m upstream, {w.levels[k]:.2f} m "
                            f"downstream)", step)
        i = w.water_index(x)
        if i != self.body_index:
            self.body_index = i
            ev("phase", f"the boat enters {NAMES[i]}", step)
        hold = self.success
        reached = x > GOAL_X
        if reached and hold.first_step is None and step <= self.limit_steps:
            ev("phase", "the boat reaches the upper pool", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            ev("goal", f"the boat has stayed in the upper pool for {hold.rule.seconds:g} s", step)
        if self.goal_step is not None or self.ground_step is not None or self.strike_step is not None \
                or self.surge_step is not None:
            return True
        return step >= self.limit_steps and not hold.running

    def finish(self) -> Outcome:
        w = self.world
        b = w.boat
        x = b.position.x
        constraints = [
            Constraint("no_grounding", "the boat never touches the canal bed", passed=self.ground_step is None,
                       value=round(self.min_clear, 3), limit=0.0, unit="m", sense=">=", step=self.ground_step),
            Constraint("gentle_berthing", f"never strikes a gate or the canal's end faster than {self.v_max:g} m/s",
                       passed=self.strike_step is None, value=round(self.peak_strike, 3), limit=self.v_max,
                       unit="m/s", step=self.strike_step),
            Constraint("no_surge", f"flow under a lifted gate at most {self.q_max:g} m^3/s",
                       passed=self.surge_step is None, value=round(self.peak_flow, 3), limit=self.q_max,
                       unit="m^3/s", step=self.surge_step),
        ]
        goal_met = self.goal_step is not None
        failure = None
        cands = [(s, why) for s, why in ((self.ground_step, "the boat grounded"),
                                         (self.strike_step, "the boat struck a gate too hard"),
                                         (self.surge_step, "a gate was lifted against a head of water"))
                 if s is not None]
        if cands:
            failure = min(cands)
        elif not goal_met:
            failure = (self.sim.steps, self.success.not_held("the upper pool")
                       or f"time ran out with the boat in {NAMES[w.water_index(x)]} at x = {x:.2f} m")
        progress = 1.0 if goal_met else max(0.0, min(1.0, (self.best_x - self.x0) / (GOAL_X - self.x0)))
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"boat at x = {x:.2f} m in {NAMES[w.water_index(x)]}; the upper pool is reached past "
                            f"x = {GOAL_X:g} m",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "vx": round(b.linearVelocity.x, 3),
                                 "levels": [round(v, 3) for v in w.levels], "lifts": [round(z, 3) for z in w.lift],
                                 "valves": [round(v, 3) for v in w.valves], "min_clear": round(self.min_clear, 3),
                                 "peak_flow": round(self.peak_flow, 3), "peak_strike": round(self.peak_strike, 3),
                                 "stalled": [bool(s) for s in self.reported_stall]})
