"""Where the screws and drills start: the screw combs and the drill slots, from a build's counts.

A comb is two columns of square sockets on the table (COMB_PITCH apart, front to back from
COMB_Y0), each holding one screw standing on its tip. A build of up to COMB_CELLS screws has one
comb, the left arm's, at the table's left end (the first builds' layout, cell k in column k % 2,
row k // 2), and the drills lie at DRILL_SLOTS on the right; a build of more has a second comb,
the right arm's, mirrored at the right end (cells COMB_CELLS onwards), and its drills lie at the
table's front, DRILL_SLOTS_TWO_COMBS. Every cell is on the table (the back row 30 mm inside its
back edge) and within reach (reach.py; see the tests).

Honest limit: a comb is a column of screws picked from the front (-y). The reference's scissor
pick sweeps its palm, at the height of the heads, through the 255 mm in front of the screw it
takes, so a screw is picked cleanly only when the cells in front of it in its column are empty
(take a column's screws front to back).
"""

from __future__ import annotations

COMB_SIDES = ("left", "right")
COMB_X = {"left": (-0.56, -0.42), "right": (0.42, 0.56)}  # the two columns of each comb
COMB_Y0, COMB_PITCH = -0.27, 0.06
COMB_ROWS = 11  # rows y = -0.27 .. 0.33 (the table's back edge is at 0.36)
COMB_CELLS = 2 * COMB_ROWS
MAX_SCREWS = len(COMB_SIDES) * COMB_CELLS
DRILL_SLOTS = ((0.50, -0.22), (0.50, 0.02))  # with one comb
DRILL_SLOTS_TWO_COMBS = ((-0.16, -0.30), (0.16, -0.30))  # with two: in front, between the combs


def check_counts(screws: int, drills: int) -> None:
    if not 0 <= screws <= MAX_SCREWS:
        raise ValueError(f"a build has 0 to {MAX_SCREWS} screws (two combs of {COMB_CELLS}), not {screws}")
    if not 0 <= drills <= len(DRILL_SLOTS):
        raise ValueError(f"a build has 0 to {len(DRILL_SLOTS)} drills, not {drills}")


def comb_counts(screws: int) -> dict[str, int]:
    """Screws per comb (a comb with none is left out)."""
    left = min(screws, COMB_CELLS)
    out = {"left": left, "right": screws - left}
    return {side: n for side, n in out.items() if n > 0}


def screw_cell(k: int) -> tuple[str, float, float]:
    """The comb and centre (x, y) of screw cell k: two columns, front to back; cells COMB_CELLS
    onwards are the right comb's."""
    side = COMB_SIDES[k // COMB_CELLS]
    j = k % COMB_CELLS
    col, row = j % 2, j // 2
    return side, COMB_X[side][col], COMB_Y0 + COMB_PITCH * row


def drill_slot(k: int, screws: int) -> tuple[float, float]:
    slots = DRILL_SLOTS if screws <= COMB_CELLS else DRILL_SLOTS_TWO_COMBS
    return slots[k]


def describe(screws: int, drills: int) -> dict:
    """The supply as /spec gives it."""
    return {"screw_cells": [{"screw": f"screw{k}", "comb": screw_cell(k)[0], "xy": list(screw_cell(k)[1:])}
                            for k in range(screws)],
            "combs": {side: {"columns_x": list(COMB_X[side]), "first_row_y": COMB_Y0, "pitch": COMB_PITCH,
                             "screws": n} for side, n in comb_counts(screws).items()},
            "drill_slots": [list(drill_slot(k, screws)) for k in range(drills)]}
