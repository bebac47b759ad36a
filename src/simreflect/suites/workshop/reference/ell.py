"""Reference controller of the `ell` build, over HTTP only: stand A on its long edge (hook grasp from
the rack, a quarter turn in the air, the hand-over to the other hand's top pinch, set down), lay the
jig J and the runner B on it against A's back face, take the drill, drive three horizontal screws
through A's front face into B's end, put the drill down, let go of everything, finish.

    python -m simreflect.suites.workshop.reference.ell http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

import numpy as np

from simreflect.suites.workshop.client import WorkshopClient
from simreflect.suites.workshop.reference.common import OnEdge, service_url

#: The arms' starting posture (world.HOME), joint by joint: after the quarter turn the arm's joints
#: are wound far from it, and the next reach into the rack fails from there.
ARM_HOME = {"shoulder_yaw": 0.0, "shoulder_pitch": 2.1525, "upper_roll": 0.0, "elbow": -1.8537, "forearm_roll": 0.0,
            "wrist_pitch": 1.2719, "wrist_roll": 0.0}

#: The screw points on A's front face, from A's centre: along A's length, and up from the runner's
#: mid-height (B's end is 40 mm tall: the triangle's height is 24 mm).
ELL_POINTS = ((-0.015, -0.012), (0.015, -0.012), (0.0, 0.012))


def ell_points(w: OnEdge) -> tuple[list[np.ndarray], np.ndarray]:
    """Three screw points on A's front face where they reach B's end, and the screw axis (A's
    thickness, towards B)."""
    pa, ra = w.pose("A")
    pb, _ = w.pose("B")
    axis = ra[:, 2] if np.dot(ra[:, 2], pb - pa) > 0 else -ra[:, 2]
    long = ra[:, 0]
    face = pa - axis * w.obj("A")["size"][2] / 2
    return [face + long * u + np.array([0.0, 0.0, pb[2] - pa[2] + v]) for u, v in ELL_POINTS], axis


def run(client: WorkshopClient) -> dict:
    w = OnEdge(client)
    boards = {b["name"]: b for b in w.spec["build"]["boards"]}
    w.stand_up("A", boards["A"]["target"])
    w.note("A stood on its edge")
    for side in ("right", "left"):  # out of the turned wrists' poses, before the next reach to the rack
        w.park(side)
        w.joints_to(side, ARM_HOME, speed=0.6)
    for name in ("J", "B"):
        w.place_board("left", name, boards[name]["target"])
    w.note("J and B placed")
    w.pick_drill("right", "drill0")
    points, axis = ell_points(w)
    for k, point in enumerate(points):
        w.fix_screw_along(f"screw{k}", "A", point, axis)
        w.note(f"screw{k} driven through A into B")
    w.finish_up("drill0")
    return client.finish("ell: A on its edge, B on the jig against it, three horizontal screws through A into B")


def main(argv: list[str]) -> None:
    print(run(WorkshopClient(service_url(argv))))


if __name__ == "__main__":
    main(sys.argv)
