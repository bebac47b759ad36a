"""The stock racks: where every stock slot is, computed from the boards of a build (one place for it).

Two racks stand off the table's ends, one per arm: the left one at x = -RACK_X (slots 0 to 5), the
right one at x = +RACK_X (slots 6 to 11). Each is a row of slots from the front (-y) to the back;
a slot is a pair of supports tilted about x by its board's stock tilt (the +y edge up) with a lip
at the low edge. A slot's lip lies RACK_GAP behind the previous board's far edge, so a rack of
90 mm boards has the 170 mm pitch of the first builds and narrower boards pack closer. The left
rack's first lip is at y = RACK_Y0["left"] (as the first builds had it); the right one starts 40 mm
further forward, so six 60 mm boards end within the right arm's reach. A slot takes a board of
length MIN_LENGTH..MAX_LENGTH, width up to MAX_WIDTH and thickness up to MAX_THICKNESS; its two
supports sit at +-RACK_SUPPORT_DX along the board (closer in for boards shorter than 400 mm).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simreflect.suites.workshop.builds.pose import rot_x
from simreflect.suites.workshop.builds.spec import BoardSpec, BuildSpec

RACK_SIDES = ("left", "right")
SLOTS_PER_RACK = 6
N_SLOTS = SLOTS_PER_RACK * len(RACK_SIDES)
RACK_X = {"left": -1.05, "right": 1.05}  # rack centre x
RACK_Y0 = {"left": -0.16, "right": -0.20}  # the first slot's lip
RACK_GAP = 0.08  # from a board's far edge to the next slot's lip (room for the fingers and the lip)
RACK_BOTTOM_Z = 0.76  # height of a stock board's bottom edge (the slot frame's origin)
RACK_SUPPORT_DX = 0.16  # supports at the rack centre +- this along the board
DEFAULT_WIDTH = 0.09  # the width an empty slot is laid out for
MIN_LENGTH, MAX_LENGTH, MAX_WIDTH, MAX_THICKNESS = 0.30, 0.60, 0.10, 0.05


@dataclass(frozen=True)
class SlotSite:
    """One stock slot: its rack and the origin of its frame (on the support plane at the lip)."""

    slot: int
    rack: str
    x: float
    y: float
    z: float

    @property
    def origin(self) -> np.ndarray:
        return np.array([self.x, self.y, self.z])


def rack_of(slot: int) -> str:
    if not 0 <= slot < N_SLOTS:
        raise ValueError(f"stock slot {slot} does not exist: slots are 0-{SLOTS_PER_RACK - 1} (left rack) and "
                         f"{SLOTS_PER_RACK}-{N_SLOTS - 1} (right rack)")
    return RACK_SIDES[slot // SLOTS_PER_RACK]


def check_boards(spec: BuildSpec) -> None:
    """ValueError unless every board fits its slot and no two boards share one."""
    seen: dict[int, str] = {}
    for b in spec.boards:
        rack_of(b.stock_slot)
        if b.stock_slot in seen:
            raise ValueError(f"boards {seen[b.stock_slot]} and {b.name} share stock slot {b.stock_slot}")
        seen[b.stock_slot] = b.name
        length, width, thick = b.size
        if not (MIN_LENGTH <= length <= MAX_LENGTH and width <= MAX_WIDTH and thick <= MAX_THICKNESS):
            raise ValueError(f"board {b.name} ({length} x {width} x {thick} m) does not fit a stock slot: length "
                             f"{MIN_LENGTH}-{MAX_LENGTH} m, width up to {MAX_WIDTH} m, thickness up to {MAX_THICKNESS} m")


def slot_sites(spec: BuildSpec) -> dict[int, SlotSite]:
    """Every slot of both racks, laid out for the boards of `spec` (empty slots as if 90 mm wide)."""
    width = {b.stock_slot: b.size[1] for b in spec.boards}
    sites = {}
    for r, side in enumerate(RACK_SIDES):
        y = RACK_Y0[side]
        for i in range(SLOTS_PER_RACK):
            slot = r * SLOTS_PER_RACK + i
            sites[slot] = SlotSite(slot, side, RACK_X[side], y, RACK_BOTTOM_Z)
            y += width.get(slot, DEFAULT_WIDTH) + RACK_GAP
    return sites


def support_dx(board: BoardSpec) -> float:
    """Where the slot's two supports sit along the board, from its centre."""
    return min(RACK_SUPPORT_DX, board.size[0] / 2 - 0.04)


def stock_pose(board: BoardSpec, site: SlotSite) -> tuple[np.ndarray, np.ndarray]:
    """Initial position and rotation matrix of a stock board on its slot: long axis along x,
    tilted about x by the slot's tilt (its +y edge up), resting on the slot's supports and lip."""
    _, width, thick = board.size
    rot = rot_x(board.stock_tilt)
    pos = site.origin + rot @ np.array([board.stock_shift, width / 2 + 0.0005, thick / 2 + 0.0005])
    return pos, rot


def describe(spec: BuildSpec) -> list[dict]:
    """The racks as /spec gives them: per board, its slot, rack, slot frame and resting pose."""
    sites = slot_sites(spec)
    out = []
    for b in sorted(spec.boards, key=lambda b: b.stock_slot):
        site = sites[b.stock_slot]
        pos, rot = stock_pose(b, site)
        out.append({"slot": b.stock_slot, "rack": site.rack, "board": b.name, "size": list(b.size),
                    "lip": [round(float(v), 6) for v in site.origin], "tilt": b.stock_tilt,
                    "support_dx": round(support_dx(b), 6),
                    "pos": [round(float(v), 6) for v in pos], "rot": [[round(float(v), 6) for v in row] for row in rot]})
    return out
