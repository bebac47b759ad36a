"""Every ball must be caught by the cart and none may touch the floor until the time limit."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import BALL_R


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.end = self.limit_steps + self.success.rule.steps  # the balls held at the limit must stay in the cart
        self.n = int(env["ball_count"])
        self.floor = world.floor
        self.design = list(sim.parts.values())
        self.caught: dict[int, float] = {}  # ball index -> time first touching the cart
        self.floored: dict[int, int] = {}  # ball index -> step it touched the floor
        self.first_floor = None
        self.max_tilt = 0.0
        self.prev: dict[int, tuple[float, float]] = {}

    def _cart_x(self) -> float | None:
        if not self.design:
            return None
        total = sum(b.mass for b in self.design)
        return sum(b.mass * b.worldCenter.x for b in self.design) / total if total > 0 else None

    def _in_cart(self, balls) -> bool:
        """Every ball inside the box around the cart's parts (up to a ball's height above their top):
        held in the cart, even when it rolls or bounces there, not flung out of it."""
        boxes = [f.GetAABB(0) for b in self.design for f in b.fixtures]
        if not boxes:
            return False
        x0, x1 = min(a.lowerBound.x for a in boxes), max(a.upperBound.x for a in boxes)
        y0, y1 = min(a.lowerBound.y for a in boxes), max(a.upperBound.y for a in boxes) + 2 * BALL_R
        return all(x0 <= p.x <= x1 and y0 <= p.y <= y1 for p in (ball.position for ball in balls))

    def tick(self, step: int) -> bool:
        for i, ball in enumerate(self.world.balls):
            if i in self.floored:
                continue
            p = ball.position
            for edge in ball.contacts:
                if not edge.contact.touching:
                    continue
                other = edge.other
                caught_ball = any(other == self.world.balls[j] for j in self.caught if j != i)
                if (other in self.design or caught_ball) and i not in self.caught:
                    self.caught[i] = step / 60.0
                    self.sim.event("contact", f"ball {i + 1} first touches the cart at x = {p.x:.2f} m"
                                   + (" (on another ball)" if caught_ball else ""), step)
                c = edge.contact
                if self.floor in (c.fixtureA, c.fixtureB):
                    self.floored[i] = step
                    cx = self._cart_x()
                    where = "" if cx is None else f"; the cart's centre of mass is at x = {cx:.2f} m"
                    what = "after bouncing out of the cart" if i in self.caught else "missing the cart"
                    self.sim.event("failure", f"ball {i + 1} hits the floor at x = {p.x:.2f} m, {what}{where}", step)
                    if self.first_floor is None:
                        self.first_floor = step
                    break
        if step >= self.limit_steps:
            balls = self.world.balls
            self.success.update(step, len(balls) == self.n and not self.floored and len(self.caught) == self.n
                                and self._in_cart(balls))
        if len(self.floored) == self.n:
            return True
        return step >= self.end

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        held = [i for i in range(self.n) if i in self.caught and i not in self.floored]
        released = len(self.world.balls)
        constraints = [
            Constraint("no_ball_dropped", "no ball touches the floor", passed=not self.floored,
                       value=float(len(self.floored)), limit=0.0, unit="balls", step=self.first_floor,
                       detail="; ".join(f"ball {i + 1} at step {s}" for i, s in sorted(self.floored.items()))),
            Constraint("cart_intact", "no joint of the cart breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None),
        ]
        goal_met = self.success.conclude(sim.steps >= self.end) and len(held) == self.n and not self.floored
        failure = None
        if self.floored:
            i, s = min(self.floored.items(), key=lambda kv: kv[1])
            failure = (s, f"ball {i + 1} hit the floor")
        if broken and (failure is None or broken[0].broken_step < failure[0]):
            failure = (broken[0].broken_step, f"joint {broken[0].id} of the cart broke")
        if not goal_met and failure is None:
            failure = (sim.steps, f"only {len(held)} of {self.n} balls are held in the cart" if len(held) < self.n
                       else f"not every ball rested in the cart for {self.success.rule.seconds:g} s after "
                            f"t = {self.limit_steps / 60:g} s ({self.success.describe()})")
        cx = self._cart_x()
        return Outcome(goal_met=goal_met, progress=len(held) / self.n,
                       goal=f"{len(held)} of {self.n} balls held in the cart at t = {sim.steps / 60:.2f} s",
                       constraints=constraints, failure=failure,
                       terminal={"held": len(held), "balls": self.n, "released": released,
                                 "catch_times": {str(i + 1): round(t, 3) for i, t in sorted(self.caught.items())},
                                 "floored": [i + 1 for i in sorted(self.floored)],
                                 "ball_x": [round(b.position.x, 3) for b in self.world.balls],
                                 "cart_x": None if cx is None else round(cx, 3),
                                 "cart_speed": round(self.design[0].linearVelocity.x, 3) if self.design else None})
