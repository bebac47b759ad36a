"""Build 3, frame: two rails on the table, two cross pieces on them; four joints, twelve screws."""

from __future__ import annotations

import math

from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, Budgets, BuildTemplate, JointSpec

SIZE = (0.45, 0.09, 0.04)
LOW = TABLE_TOP + SIZE[2] / 2
HIGH = TABLE_TOP + 1.5 * SIZE[2]

BUILD = BuildTemplate(
    name="frame",
    title="A small frame",
    boards=(
        BoardSpec("R1", SIZE, stock_slot=0, target=(0.0, -0.10, LOW, 0.0)),
        BoardSpec("R2", SIZE, stock_slot=1, target=(0.0, 0.12, LOW, 0.0)),
        BoardSpec("C1", SIZE, stock_slot=2, target=(-0.12, 0.01, HIGH, math.pi / 2)),
        BoardSpec("C2", SIZE, stock_slot=3, target=(0.12, 0.01, HIGH, math.pi / 2)),
    ),
    joints=(
        JointSpec("C1-R1", top="C1", bottom="R1"),
        JointSpec("C1-R2", top="C1", bottom="R2"),
        JointSpec("C2-R1", top="C2", bottom="R1"),
        JointSpec("C2-R2", top="C2", bottom="R2"),
    ),
    screws=14,
    drills=1,
    budgets=Budgets(actions=12000, sim_seconds=3000.0, wall_seconds=3600.0),
    description="Place the rails R1 and R2 on the table, the cross pieces C1 and C2 across both rails, and fix "
                "each of the four crossings with three non-collinear screws through the cross piece into the rail; "
                "withdraw the drill and let go of everything.",
)
