"""Build 4, ell (issue 20 item 2): an L joint with horizontal screws.

Board A stands on its long edge along x (its faces towards -y, the robot's side, and +y); the runner
B lies flat along y behind it with its end against A's +y face, raised on the spacer J (a jig, flat
along y on the table: on the table alone B's end would meet only A's lowest 40 mm, where neither the
screw hand nor the drill can work above the table top). Three horizontal screws go along +y through
A's thickness into B's end. The geometry is that of measure.jig_ell, whose screws were tested
through the engine.

Relative to the layout origin (x, y in metres; B's end 2 mm off A's face):
    A   450 x 90 x 40   slot 0   on its edge:  (0, 0, table + 45 mm), roll pi/2
    J   400 x 90 x 40   slot 2   flat along y: (0, 0.27, table + 20 mm)
    B   450 x 90 x 40   slot 1   flat along y on J: (0, 0.247, table + 60 mm)
"""

from __future__ import annotations

import math

from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, Budgets, BuildTemplate, JointSpec

SIZE = (0.45, 0.09, 0.04)
JIG = (0.40, 0.09, 0.04)
#: A on its long edge (yaw, pitch, roll): its length along x, its width up (+z), its thickness along -y.
ON_EDGE_ALONG_X = (0.0, 0.0, math.pi / 2)
BACK = SIZE[2] / 2  # A's +y face, from A's centre
JIG_Y = BACK + 0.05 + JIG[0] / 2
RUNNER_Y = BACK + 0.002 + SIZE[0] / 2
RUNNER_Z = TABLE_TOP + JIG[2] + SIZE[2] / 2

BUILD = BuildTemplate(
    name="ell",
    title="An ell joint with horizontal screws",
    boards=(
        BoardSpec("A", SIZE, stock_slot=0, target=(0.0, 0.0, TABLE_TOP + SIZE[1] / 2, *ON_EDGE_ALONG_X)),
        BoardSpec("B", SIZE, stock_slot=1, target=(0.0, RUNNER_Y, RUNNER_Z, math.pi / 2)),
        BoardSpec("J", JIG, stock_slot=2, target=(0.0, JIG_Y, TABLE_TOP + JIG[2] / 2, math.pi / 2)),
    ),
    joints=(JointSpec("A-B", top="A", bottom="B"),),
    screws=5,
    drills=1,
    budgets=Budgets(actions=3000, sim_seconds=900.0, wall_seconds=1800.0),  # the reference: 1130 actions, 288 s (seeds 0, 1)
    description="Stand A on its long edge in its outline (its faces to the front and the back), lay the jig J flat "
                "behind it and the runner B flat on J with its end against A's back face (each into its outline), "
                "then fix the joint with three non-collinear screws driven horizontally through A's front face "
                "into B's end; withdraw the drill and let go of everything.",
    origin=(0.1, -0.15),
)
