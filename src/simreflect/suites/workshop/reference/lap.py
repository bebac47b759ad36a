"""Reference controller of the `lap` build, over HTTP only: place A, place B across it, take the
drill, drive three screws through B into A, put the drill down, let go of everything, finish.

    python -m simreflect.suites.workshop.reference.lap http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

from simreflect.suites.workshop.client import WorkshopClient
from simreflect.suites.workshop.reference.common import Workshop, service_url


def run(client: WorkshopClient) -> dict:
    w = Workshop(client)
    boards = {b["name"]: b for b in w.spec["build"]["boards"]}
    for name in ("A", "B"):
        w.place_board("left", name, boards[name]["target"])
    w.note("A and B placed")
    w.pick_drill("right", "drill0")
    for k, point in enumerate(w.joint_points("B", "A")):
        w.fix_screw(f"screw{k}", "B", point)
        w.note(f"screw{k} driven through B into A")
    w.finish_up("drill0")
    return client.finish("lap joint: A and B placed, three screws through B into A, drill put down")


def main(argv: list[str]) -> None:
    print(run(WorkshopClient(service_url(argv))))


if __name__ == "__main__":
    main(sys.argv)
