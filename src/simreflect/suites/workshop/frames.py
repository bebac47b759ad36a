"""Small math of the workshop state: rounding for the JSON observation, rotations, box corners."""

from __future__ import annotations

import math

import mujoco
import numpy as np


def _r(x: float, nd: int = 7) -> float:
    return round(float(x), nd)


def _rl(v, nd: int = 7) -> list[float]:
    # tolist() gives the same Python floats as float(x) of each element, without a numpy scalar each
    return [round(x, nd) for x in np.asarray(v, dtype=float).ravel().tolist()]


def _rows(r) -> list[list[float]]:
    return [_rl(row) for row in np.asarray(r).reshape(3, 3)]


def quat_to_mat(q) -> np.ndarray:
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float))
    return m.reshape(3, 3)


def mat_to_quat(r) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(r, float).ravel())
    return q


_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)


def box_corners(pos, rot, size) -> np.ndarray:
    """The eight corners (8, 3) of a box of full `size` at `pos` with rotation `rot`."""
    half = np.asarray(size, float) / 2
    return np.asarray(pos, float) + (_SIGNS * half) @ np.asarray(rot, float).T


def yaw_of(rot) -> float:
    rot = np.asarray(rot)
    return math.atan2(rot[1, 0], rot[0, 0])
