"""Reach by the link lengths (world.py): whether an arm's wrist can get to a point, and by how much.

A wrist centre is reachable when some base position within the base's travel puts it between
REACH_MIN and REACH_MAX (upper arm plus forearm) from the shoulder, with the base clear of the
table and its column clear of every stock board. The margin is the distance to the nearer of the
two bounds at the best such base (negative: out of reach). It is a necessary condition for a grasp,
not a sufficient one (joint limits of the wrist and collisions of the links are not looked at);
the tests read it for every stock slot and screw cell, where the wrist of the grasp the
reference controllers use (hook grasp over a board, scissor pick of a screw) would be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simreflect.suites.workshop import racks, world
from simreflect.suites.workshop.builds.spec import BuildSpec

REACH_MAX = world.UPPER_ARM + world.FOREARM
#: The elbow's range (+-2.8 rad) leaves the forearm at least this far from the shoulder.
REACH_MIN = math.sqrt(world.UPPER_ARM ** 2 + world.FOREARM ** 2
                      - 2 * world.UPPER_ARM * world.FOREARM * math.cos(math.pi - world.JOINT_RANGES["elbow"][1]))
BASE_HALF = 0.17  # the base box's half width
COLUMN_RADIUS = 0.06
CLEARANCE = 0.01
GRID = 0.01  # base positions searched, metres apart
#: Where the wrist centre is from the palm site, in the hand frame (x = palm normal, z = wrist).
PALM_TO_WRIST = np.array([-world.PALM_HALF[0], 0.0, world.WRIST_TO_HAND - world.PALM_CENTER_Z])
#: ... and from the pinch site.
PINCH_TO_WRIST = np.array([0.0, -(world.FINGER_Y["middle"] + world.FINGER_RADIUS + world.SCREW_RADIUS),
                           world.WRIST_TO_HAND - (world.FINGER_BASE_Z - 0.045)])
HOOK_HOVER = 0.020  # palm face above a board's top face in the hook grasp


@dataclass(frozen=True)
class Reach:
    side: str
    margin: float  # metres; negative when out of reach
    base: tuple[float, float]  # the best base position (world x, y)


def _base_grid(side: str) -> np.ndarray:
    hx, hy = world.BASE_HOME[side]
    (lx, ux), (ly, uy) = world.JOINT_RANGES["base_x"], world.JOINT_RANGES["base_y"]
    xs = np.arange(hx + lx, hx + ux + 1e-9, GRID)
    ys = np.arange(hy + ly, hy + uy + 1e-9, GRID)
    return np.array(np.meshgrid(xs, ys)).reshape(2, -1).T


def _obstacles(spec: BuildSpec | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Floor-plan boxes (lo, hi) the base must keep clear of: the table (the whole base box) and
    the stock boards (its column)."""
    tx, ty = world.TABLE_CENTER
    hx, hy = world.TABLE_HALF
    out = [(np.array([tx - hx - BASE_HALF, ty - hy - BASE_HALF]), np.array([tx + hx + BASE_HALF, ty + hy + BASE_HALF]))]
    if spec is not None:
        sites = racks.slot_sites(spec)
        for b in spec.boards:
            pos, rot = racks.stock_pose(b, sites[b.stock_slot])
            c = world_corners(pos, rot, b.size)[:, :2]
            pad = COLUMN_RADIUS
            out.append((c.min(axis=0) - pad, c.max(axis=0) + pad))
    return out


def world_corners(pos, rot, size) -> np.ndarray:
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return np.asarray(pos, float) + (signs * np.asarray(size, float) / 2) @ np.asarray(rot, float).T


def wrist_reach(side: str, wrist, spec: BuildSpec | None = None) -> Reach:
    """The best margin of `side`'s arm to a wrist centre, over the base positions it may take."""
    bases = _base_grid(side)
    ok = np.ones(len(bases), bool)
    for lo, hi in _obstacles(spec):
        inside = np.all((bases > lo - CLEARANCE) & (bases < hi + CLEARANCE), axis=1)
        ok &= ~inside
    bases = bases[ok]
    sx, sy, sz = world.SHOULDER_OFFSET
    shoulders = np.column_stack([bases[:, 0] + sx, bases[:, 1] + sy, np.full(len(bases), sz)])
    d = np.linalg.norm(shoulders - np.asarray(wrist, float), axis=1)
    margin = np.minimum(REACH_MAX - d, d - REACH_MIN)
    k = int(np.argmax(margin))
    return Reach(side, float(margin[k]), (float(bases[k, 0]), float(bases[k, 1])))


def hook_grasp_wrist(pos, rot, size) -> np.ndarray:
    """The wrist centre of a hook grasp at a board's centre, palm HOOK_HOVER above its upper face,
    fingers pointing across it up its tilt (the reference controllers' grasp)."""
    rot = np.asarray(rot, float)
    x, y, z = rot[:, 0], rot[:, 1], rot[:, 2]
    if z[2] < 0:
        z, y = -z, -y
    if y[1] < 0:
        y, x = -y, -x
    hand = np.column_stack([-z, x, -y])  # palm normal, finger row, wrist direction
    palm = np.asarray(pos, float) + z * (size[2] / 2 + HOOK_HOVER)
    return palm + hand @ PALM_TO_WRIST


def pinch_wrist(head) -> np.ndarray:
    """The wrist centre of the scissor pick of a screw whose head centre is `head` (fingers +y,
    palm down, the pinch point just under the head and 5 mm to -x of the shaft)."""
    hand = np.column_stack([[0, 0, -1.0], [1.0, 0, 0], [0, -1.0, 0]])
    pinch = np.asarray(head, float) + np.array([-0.005, 0.0, -0.005 - 0.0088])
    return pinch + hand @ PINCH_TO_WRIST


def slot_reach(spec: BuildSpec) -> dict[str, Reach]:
    """Per board, the reach of the arm on its rack's side to the hook grasp of it in its slot."""
    sites = racks.slot_sites(spec)
    out = {}
    for b in spec.boards:
        site = sites[b.stock_slot]
        pos, rot = racks.stock_pose(b, site)
        out[b.name] = wrist_reach(site.rack, hook_grasp_wrist(pos, rot, b.size), spec)
    return out
