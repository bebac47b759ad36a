"""The robot must leave the maze through its exit within the time limit, never striking a wall
harder than the bump limit and not rubbing along the walls for too long."""

from __future__ import annotations

import math
from collections import deque

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import CELL, COLS, MAZE, RADIUS, ROWS

EXIT_X = COLS * CELL + RADIUS + 0.1  # the robot is out when its centre passes this x


def cell_distances() -> dict[tuple[int, int], int]:
    """Moves from every cell to the exit cell (the top-right one) through the maze's openings."""
    def open_between(a, b) -> bool:
        (x0, y0), (x1, y1) = a, b
        if y0 == y1:  # a vertical wall between columns min(x)+1
            r = 2 * (ROWS - 1 - y0) + 1
            return MAZE[r][3 * max(x0, x1)] == " "
        r = 2 * (ROWS - max(y0, y1))
        return MAZE[r][1 + 3 * x0] == " "

    goal = (COLS - 1, ROWS - 1)
    dist = {goal: 1}  # one more move leaves through the exit
    q = deque([goal])
    while q:
        c = q.popleft()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (c[0] + dx, c[1] + dy)
            if 0 <= n[0] < COLS and 0 <= n[1] < ROWS and n not in dist and open_between(c, n):
                dist[n] = dist[c] + 1
                q.append(n)
    return dist


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.bump_max = env["max_bump_speed"]
        self.contact_max = env["max_contact_time"]
        self.dist = cell_distances()
        self.d0 = self.dist[(0, 0)]
        self.best = self.d0
        self.goal_step = None
        self.contact_steps = 0
        self.contact_step = None
        self.bump_step = None
        self.bumps_seen = 0
        self.cells: list[tuple[int, int]] = []
        self.still_since = 0
        self.stall_logged = False
        self.last_pos = (world.body.position.x, world.body.position.y)

    def cell(self) -> tuple[int, int]:
        p = self.world.body.position
        return (min(COLS - 1, max(0, int(p.x // CELL))), min(ROWS - 1, max(0, int(p.y // CELL))))

    def tick(self, step: int) -> bool:
        w = self.world
        b = w.body
        p = b.position
        ev = self.sim.event
        for st, speed in w.bumps[self.bumps_seen:]:
            if speed > self.bump_max and self.bump_step is None:
                self.bump_step = st
                ev("failure", f"the robot struck a wall at {speed:.2f} m/s in cell {self.cell()}", st)
            elif speed > self.bump_max:
                ev("contact", f"the robot struck a wall at {speed:.2f} m/s in cell {self.cell()}", st)
            elif speed > 0.3 * self.bump_max:
                ev("contact", f"the robot touched a wall at {speed:.2f} m/s in cell {self.cell()}", st)
        self.bumps_seen = len(w.bumps)
        if w.was_touching:
            self.contact_steps += self.sim.settings.tick_every
            if self.contact_steps > self.contact_max * 60 and self.contact_step is None:
                self.contact_step = step
                ev("failure", f"the robot has rubbed along the walls for more than {self.contact_max:g} s", step)
        c = self.cell()
        if not self.cells or self.cells[-1] != c:
            self.cells.append(c)
            d = self.dist.get(c, self.d0)
            if d < self.best:
                self.best = d
        if math.hypot(p.x - self.last_pos[0], p.y - self.last_pos[1]) > 0.05:
            self.last_pos = (p.x, p.y)
            self.still_since = step
            self.stall_logged = False
        elif step - self.still_since >= 300 and not self.stall_logged:
            self.stall_logged = True
            ev("phase", f"the robot has not moved for 5 s (in cell {c})", step)
        hold = self.success
        reached = p.x > EXIT_X
        if reached and hold.first_step is None and step <= self.limit_steps:
            ev("phase", "the robot leaves the maze through the exit", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            ev("goal", f"the robot has stayed out of the maze for {hold.rule.seconds:g} s", step)
        if self.goal_step is not None or self.bump_step is not None or self.contact_step is not None:
            return True
        return step >= self.limit_steps and not hold.running

    def finish(self) -> Outcome:
        w = self.world
        b = w.body
        p, v = b.position, b.linearVelocity
        worst = max((s for _, s in w.bumps), default=0.0)
        constraints = [
            Constraint("gentle_bumps", f"never strikes a wall faster than {self.bump_max:g} m/s",
                       passed=self.bump_step is None, value=round(worst, 3), limit=self.bump_max, unit="m/s",
                       step=self.bump_step),
            Constraint("little_rubbing", f"in contact with the walls for at most {self.contact_max:g} s in all",
                       passed=self.contact_step is None, value=round(self.contact_steps / 60, 3),
                       limit=self.contact_max, unit="s", step=self.contact_step),
        ]
        goal_met = self.goal_step is not None
        failure = None
        cands = [(s, why) for s, why in ((self.bump_step, "the robot struck a wall too hard"),
                                         (self.contact_step, "the robot rubbed along the walls too long"))
                 if s is not None]
        if cands:
            failure = min(cands)
        elif not goal_met:
            failure = (self.sim.steps, self.success.not_held("the way out")
                       or f"time ran out in cell {self.cell()}, {self.dist.get(self.cell(), 0)} moves from the way out")
        progress = 1.0 if goal_met else max(0.0, (self.d0 - self.best) / self.d0)
        route = self.cells[-12:]
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"robot in cell {self.cell()} at ({p.x:.2f}, {p.y:.2f}) m; the exit is the east side "
                            f"of cell ({COLS - 1}, {ROWS - 1}), {self.dist.get(self.cell(), 0)} moves away",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(p.x, 3), "y": round(p.y, 3), "speed": round(math.hypot(v.x, v.y), 3),
                                 "heading_deg": round(math.degrees(math.remainder(b.angle, 2 * math.pi)), 1),
                                 "cells_visited": len(self.cells), "route": [list(c) for c in route],
                                 "bumps": len(w.bumps), "worst_bump": round(worst, 3),
                                 "contact_time": round(self.contact_steps / 60, 2),
                                 "odometer": round(w.odometer, 2), "slip_time": round(w.slip_steps / 60, 2),
                                 "moves_left": self.dist.get(self.cell(), 0)})
