"""A board's target pose: the outline's centre and its full rotation.

A target is a flat tuple of floats, as a spec serialises it:
- (x, y, z, yaw): a board lying flat, turned `yaw` about the vertical (the form of every build
  before targets had a full rotation; older records carry only this one);
- (x, y, z, yaw, pitch, roll): the rotation R = Rz(yaw) Ry(pitch) Rx(roll) (radians; Tait-Bryan
  z-y'-x'', the board's own axes: x its length, y its width, z its thickness). An upright leg,
  standing on its end with its width along the world y, is pitch = -pi/2 (its length along +z).
The yaw-only form is the six-element form's first four numbers, and a layout's rotation about the
vertical adds to the yaw whichever form it is (Rz(a) Rz(yaw) Ry Rx = Rz(a + yaw) Ry Rx).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

FLAT_LEN, FULL_LEN = 4, 6


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def validate_target(target: Sequence[float]) -> tuple[float, ...]:
    """The target as a tuple of floats; ValueError unless it has 4 or 6 finite numbers."""
    try:
        values = tuple(float(v) for v in target)
    except (TypeError, ValueError):
        raise ValueError("a target is a list of numbers: x, y, z, yaw[, pitch, roll]") from None
    if len(values) not in (FLAT_LEN, FULL_LEN):
        raise ValueError(f"a target has 4 numbers (x, y, z, yaw) or 6 (x, y, z, yaw, pitch, roll), not {len(values)}")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("a target's numbers must be finite")
    return values


def target_position(target: Sequence[float]) -> np.ndarray:
    return np.asarray(target[:3], float)


def target_rotation(target: Sequence[float]) -> np.ndarray:
    """The target's rotation matrix (columns: the outline's length, width and thickness axes)."""
    if len(target) == FLAT_LEN:
        return rot_z(target[3])  # exactly the matrix of the yaw-only form, as it always was
    _, _, _, yaw, pitch, roll = target
    return rot_z(yaw) @ rot_y(pitch) @ rot_x(roll)


def is_flat(target: Sequence[float]) -> bool:
    """Whether the target is the yaw-only form (a board lying flat on a face)."""
    return len(target) == FLAT_LEN


#: The rotations that map a box onto itself: identity and half turns about its own three axes.
BOX_SYMMETRIES = (np.eye(3), np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0]))


def box_rotation_error_deg(rot: np.ndarray, target_rot: np.ndarray) -> float:
    """The smallest angle (deg) turning a box at `rot` onto the target's rotation, a box being the
    same after a half turn about any of its own axes."""
    rel = np.asarray(target_rot, float).T @ np.asarray(rot, float).reshape(3, 3)
    best = math.pi
    for sym in BOX_SYMMETRIES:
        c = (float(np.trace(rel @ sym)) - 1.0) / 2.0
        best = min(best, math.acos(max(-1.0, min(1.0, c))))
    return math.degrees(best)
