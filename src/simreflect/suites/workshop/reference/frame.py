"""Reference controller of the `frame` build, over HTTP only: the two rails, the two cross pieces
across them, the drill, three screws through each cross piece into each rail (twelve), the drill
put down, everything let go, finish.

    python -m simreflect.suites.workshop.reference.frame http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

from simreflect.suites.workshop.client import WorkshopClient
from simreflect.suites.workshop.reference.common import Workshop, service_url


def run(client: WorkshopClient) -> dict:
    w = Workshop(client)
    boards = {b["name"]: b for b in w.spec["build"]["boards"]}
    for name in ("R1", "R2", "C1", "C2"):
        w.place_board("left", name, boards[name]["target"])
    w.note("rails and cross pieces placed")
    w.pick_drill("right", "drill0")
    k = 0
    for joint in w.spec["build"]["joints"]:
        for point in w.joint_points(joint["top"], joint["bottom"]):
            w.fix_screw(f"screw{k}", joint["top"], point)
            k += 1
        w.note(f"{joint['name']}: three screws through {joint['top']} into {joint['bottom']}")
    w.finish_up("drill0")
    return client.finish("frame: four boards placed, twelve screws in four joints, drill put down")


def main(argv: list[str]) -> None:
    print(run(WorkshopClient(service_url(argv))))


if __name__ == "__main__":
    main(sys.argv)
