"""Build 2, lap: two boards crossing at their middles, B on A, fixed by three screws through B into A."""

from __future__ import annotations

import math

from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, Budgets, BuildTemplate, JointSpec

SIZE = (0.45, 0.09, 0.04)

BUILD = BuildTemplate(
    name="lap",
    title="A lap joint",
    boards=(
        BoardSpec("A", SIZE, stock_slot=0, target=(0.0, 0.0, TABLE_TOP + SIZE[2] / 2, 0.0)),
        BoardSpec("B", SIZE, stock_slot=1, target=(0.0, 0.0, TABLE_TOP + 1.5 * SIZE[2], math.pi / 2)),
    ),
    joints=(JointSpec("B-A", top="B", bottom="A"),),
    screws=5,
    drills=1,
    budgets=Budgets(actions=3000, sim_seconds=900.0, wall_seconds=1800.0),
    description="Place A on the table and B across it (both into their outlines), then fix the joint with "
                "three non-collinear screws driven through B into A, withdraw the drill and let go of everything.",
)
