"""Reference controller of the `place` build, over HTTP only: board A from the rack into its outline.

    python -m simreflect.suites.workshop.reference.place http://127.0.0.1:PORT
"""

from __future__ import annotations

import sys

from simreflect.suites.workshop.client import WorkshopClient
from simreflect.suites.workshop.reference.common import Workshop, service_url


def run(client: WorkshopClient) -> dict:
    w = Workshop(client)
    board = w.spec["build"]["boards"][0]
    w.place_board("left", board["name"], board["target"])
    w.note(f"{board['name']} placed")
    w.finish_up(None)
    return client.finish(f"{board['name']} placed in its outline and released")


def main(argv: list[str]) -> None:
    print(run(WorkshopClient(service_url(argv))))


if __name__ == "__main__":
    main(sys.argv)
