"""Where the screws and drills start: the screw supply and the drill slots, from a build's counts.

Up to COMB_CELLS screws (the first builds): one comb, the left arm's, at the table's left end: two
columns of square sockets on the table, COMB_PITCH apart front to back from COMB_Y0 (cell k in
column k % 2, row k // 2); the drills lie at DRILL_SLOTS on the right. A comb's column is picked
from the front: the scissor pick sweeps its palm, at the height of the heads, through the 255 mm in
front of the screw it takes (take a column front to back).

More screws (up to MAX_SCREWS): two stepped stands, the left arm's at the table's left end and the
right arm's at its right end, STAND_COLUMNS x STAND_ROWS cells each (cells 0.. the left stand's,
front to back, column by column within a row). Each row stands STAND_STEP higher than the row in
front of it, so a hand picking a screw passes over the heads of the rows in front (its palm 7 mm
above them) and its fingertips pass over the step behind (5 mm above it), and the columns are
STAND_DX apart, wider than the hand: any screw can be picked first and nothing else moves (tested
with the reference's pick on the farthest one). The sockets are STAND_SOCKET_H high. The drills
then lie at the table's front, DRILL_SLOTS_STANDS.
"""

from __future__ import annotations

from dataclasses import dataclass

SIDES = ("left", "right")
TABLE_TOP = 0.72
# the comb of the first builds
COMB_X = (-0.56, -0.42)
COMB_Y0, COMB_PITCH = -0.27, 0.06
COMB_CELLS = 22  # rows y = -0.27 .. 0.33 (the table's back edge is at 0.36)
DRILL_SLOTS = ((0.50, -0.22), (0.50, 0.02))
# the stepped stands
STAND_COLUMNS, STAND_ROWS = 4, 6
STAND_X = {"left": (-0.64, -0.555, -0.47, -0.385), "right": (0.385, 0.47, 0.555, 0.64)}
STAND_Y0, STAND_DY = -0.27, 0.08
STAND_STEP = 0.038
STAND_SOCKET_H = 0.012
STAND_CELLS = STAND_COLUMNS * STAND_ROWS
MAX_SCREWS = len(SIDES) * STAND_CELLS
DRILL_SLOTS_STANDS = ((-0.16, -0.30), (0.16, -0.30))


@dataclass(frozen=True)
class Cell:
    """One screw's cell: the arm whose side it is on, its centre and the height of its floor."""

    side: str
    x: float
    y: float
    floor_z: float
    row: int


def uses_stands(screws: int) -> bool:
    return screws > COMB_CELLS


def check_counts(screws: int, drills: int) -> None:
    if not 0 <= screws <= MAX_SCREWS:
        raise ValueError(f"a build has 0 to {MAX_SCREWS} screws (two stands of {STAND_CELLS}), not {screws}")
    if not 0 <= drills <= len(DRILL_SLOTS):
        raise ValueError(f"a build has 0 to {len(DRILL_SLOTS)} drills, not {drills}")


def cell(k: int, screws: int) -> Cell:
    """Screw k's cell in the supply of a build with `screws` screws."""
    if not uses_stands(screws):
        col, row = k % 2, k // 2
        return Cell("left", COMB_X[col], COMB_Y0 + COMB_PITCH * row, TABLE_TOP, row)
    side = SIDES[k // STAND_CELLS]
    j = k % STAND_CELLS
    col, row = j % STAND_COLUMNS, j // STAND_COLUMNS
    return Cell(side, STAND_X[side][col], STAND_Y0 + STAND_DY * row, TABLE_TOP + STAND_STEP * row, row)


def stand_counts(screws: int) -> dict[str, int]:
    """Screws per stand (a stand with none is left out)."""
    left = min(screws, STAND_CELLS)
    return {side: n for side, n in (("left", left), ("right", screws - left)) if n > 0}


def drill_slot(k: int, screws: int) -> tuple[float, float]:
    return (DRILL_SLOTS_STANDS if uses_stands(screws) else DRILL_SLOTS)[k]


def describe(screws: int, drills: int) -> dict:
    """The supply as /spec gives it."""
    cells = [cell(k, screws) for k in range(screws)]
    out = {"kind": "stands" if uses_stands(screws) else "comb",
           "screw_cells": [{"screw": f"screw{k}", "side": c.side, "xy": [c.x, c.y], "floor_z": round(c.floor_z, 6),
                            "row": c.row} for k, c in enumerate(cells)],
           "drill_slots": [list(drill_slot(k, screws)) for k in range(drills)]}
    if uses_stands(screws):
        out["stands"] = {"columns_x": {s: list(STAND_X[s]) for s in stand_counts(screws)}, "first_row_y": STAND_Y0,
                         "row_pitch": STAND_DY, "step": STAND_STEP, "socket_height": STAND_SOCKET_H}
    else:
        out["comb"] = {"columns_x": list(COMB_X), "first_row_y": COMB_Y0, "pitch": COMB_PITCH}
    return out
