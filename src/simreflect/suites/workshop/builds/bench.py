"""The upright slatted bench (a spec; no reference controller yet): 11 boards, 14 joints, 42 screws.

Per side (x = -+SIDE_X) a leg frame: a foot runner standing on its edge along y on the table, two
upright legs outside it (standing on their ends, their faces on the runner's outer face near its
ends) and a seat support on its edge between the legs' tops; then three seat slats lying flat across
both supports. The screws go in horizontally through each leg into the runner and into the seat
support (8 joints), and down through each slat into the supports' top edges (6 joints). The seat
is 430 mm above the table top, 560 mm long and 340 mm deep.

Sizes (length x width x thickness, mm), chosen for the table (1440 x 720 mm) and the racks
(racks.py: 80-90 mm boards at 160-170 mm pitch on the left rack's five slots, 60 mm boards at 140 mm
pitch on the right rack's six, all within reach):
    runners  RL, RR   450 x 90 x 30   left rack, slots 0, 1
    slats    S1-S3    560 x 80 x 30   left rack, slots 2-4
    legs     L*       400 x 60 x 30   right rack, slots 6-9
    supports TL, TR   420 x 60 x 30   right rack, slots 10, 11
"""

from __future__ import annotations

import math

from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, Budgets, BuildTemplate, JointSpec

RUNNER = (0.45, 0.09, 0.03)
SLAT = (0.56, 0.08, 0.03)
LEG = (0.40, 0.06, 0.03)
SUPPORT = (0.42, 0.06, 0.03)

SIDE_X = 0.20  # the mid-planes of the runners and seat supports
LEG_X = SIDE_X + RUNNER[2] / 2 + LEG[2] / 2  # the legs' mid-planes, outside the runners
LEG_Y = 0.15  # the legs' centres, front and back
SEAT_TOP = TABLE_TOP + LEG[0]  # the legs' tops and the supports' top edges
SLAT_Y = (-0.13, 0.0, 0.13)

#: On its edge along y: length along +y, width up (+z), thickness along x.
ON_EDGE_ALONG_Y = (math.pi / 2, 0.0, math.pi / 2)
#: Standing on its end: length up (+z), width along y, thickness along x.
UPRIGHT = (0.0, -math.pi / 2, 0.0)


def _on_edge(x: float, z: float) -> tuple[float, ...]:
    return (x, 0.0, z, *ON_EDGE_ALONG_Y)


def _boards() -> tuple[BoardSpec, ...]:
    boards = []
    for side, sx, runner_slot, support_slot, leg_slots in (("L", -1, 0, 10, (6, 7)), ("R", 1, 1, 11, (8, 9))):
        boards.append(BoardSpec(f"R{side}", RUNNER, runner_slot, _on_edge(sx * SIDE_X, TABLE_TOP + RUNNER[1] / 2)))
        for end, sy, slot in (("F", -1, leg_slots[0]), ("B", 1, leg_slots[1])):
            boards.append(BoardSpec(f"L{side}{end}", LEG, slot,
                                    (sx * LEG_X, sy * LEG_Y, TABLE_TOP + LEG[0] / 2, *UPRIGHT)))
        boards.append(BoardSpec(f"T{side}", SUPPORT, support_slot, _on_edge(sx * SIDE_X, SEAT_TOP - SUPPORT[1] / 2)))
    for k, y in enumerate(SLAT_Y):
        boards.append(BoardSpec(f"S{k + 1}", SLAT, 2 + k, (0.0, y, SEAT_TOP + SLAT[2] / 2, 0.0)))
    return tuple(boards)


def _joints() -> tuple[JointSpec, ...]:
    joints = []
    for side in ("L", "R"):
        for end in ("F", "B"):
            joints.append(JointSpec(f"L{side}{end}-R{side}", top=f"L{side}{end}", bottom=f"R{side}"))
            joints.append(JointSpec(f"L{side}{end}-T{side}", top=f"L{side}{end}", bottom=f"T{side}"))
    for k in range(len(SLAT_Y)):
        for side in ("L", "R"):
            joints.append(JointSpec(f"S{k + 1}-T{side}", top=f"S{k + 1}", bottom=f"T{side}"))
    return tuple(joints)


BUILD = BuildTemplate(
    name="bench",
    title="An upright slatted bench",
    boards=_boards(),
    joints=_joints(),
    screws=44,  # 42 for the 14 joints, two spares
    drills=2,
    budgets=Budgets(actions=40000, sim_seconds=9000.0, wall_seconds=7200.0),
    description="Build the bench: on each side stand the foot runner on its edge, the two legs upright against its "
                "outer face and the seat support on its edge between the legs' tops, each into its outline; lay the "
                "three seat slats across both supports; fix each of the 14 overlaps with three non-collinear screws "
                "through the top board (the leg, or the slat) into the other; withdraw the drills and let go of "
                "everything. Unsupported pieces need holding or bracing while they are fixed.",
    origin=(0.0, 0.02),
)
