"""The workshop as MuJoCo MJCF, generated from a build spec: robot, table, stock, comb, drills, screws.

Units are metres, kilograms, seconds, radians. World z is up; the robot stands on the -y side of the
table and faces +y.

The robot: two identical arms ("left" at -x, "right" at +x). Each base slides across the floor in x
and y and carries a column with a shoulder 1.0 m up; seven hinges follow (shoulder yaw and pitch,
upper-arm roll, elbow, forearm roll, wrist pitch, wrist roll) and then the hand. In the zero pose the
arm hangs straight down and every body frame is aligned with the world.

The hand (in its own frame; the wrist flange is the origin, the fingers point to -z, the palm faces
+x): a palm 120 x 90 x 24 mm; four fingers on its far edge (index, middle, ring, little at
y = +31.5, +10.5, -10.5, -31.5 mm), each with three flexion hinges (`_1` at the palm, `_2`, `_3`)
that curl the finger towards the palm side, and a spread hinge (not the middle finger) that fans it
sideways; a thumb on the near edge with an opposition hinge (0 = facing the fingers across the
palm, 1.6 = swung out sideways) and three flexion hinges that curl it towards the fingers. Finger
and thumb links are capsules; collisions within one arm are off, between the two arms on.

Grip is by contact only: there is no attachment constraint anywhere between a hand and an object.
The only equality constraints are the screw ones, all declared inactive: per screw a weld that
seats it in the board it is driven into (activated when a drill engages it) and a connect that
joins that board to the board below (activated when the screw is fully driven); the engine writes
their bodies and anchors from the current poses when it activates them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simreflect.suites.workshop import racks, supply
from simreflect.suites.workshop.builds.pose import is_flat, target_rotation
from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, BuildSpec

HZ = 180
TIMESTEP = 1.0 / HZ
NOSLIP_ITERATIONS = 10
GRAVITY = 9.81
SIDES = ("left", "right")
BASE_HOME = {"left": (-0.32, -0.78), "right": (0.32, -0.78)}
SHOULDER_OFFSET = (0.0, 0.14, 1.0)  # from the base origin (on the floor)
UPPER_ARM = 0.36
FOREARM = 0.32
WRIST_TO_HAND = 0.03

# collision bits: contype / conaffinity
LEFT_BIT, OBJECT_BIT, STATIC_BIT, RIGHT_BIT, FLOOR_BIT, HEAD_BIT = 1, 2, 4, 8, 16, 32
COLLIDE = {
    "left": (LEFT_BIT, OBJECT_BIT | STATIC_BIT | RIGHT_BIT),
    "right": (RIGHT_BIT, OBJECT_BIT | STATIC_BIT | LEFT_BIT),
    "object": (OBJECT_BIT, LEFT_BIT | OBJECT_BIT | STATIC_BIT | RIGHT_BIT | FLOOR_BIT),
    # drills also meet the heads of seated screws
    "drill": (OBJECT_BIT | HEAD_BIT, LEFT_BIT | OBJECT_BIT | STATIC_BIT | RIGHT_BIT | FLOOR_BIT | HEAD_BIT),
    "static": (STATIC_BIT, LEFT_BIT | OBJECT_BIT | RIGHT_BIT),
    "floor": (FLOOR_BIT, OBJECT_BIT),
}
#: The head of a seated screw is part of its board: it no longer collides with boards (that contact
#: would fight the seat weld), only with hands, drills and other seated heads.
SEATED_HEAD = (HEAD_BIT, LEFT_BIT | RIGHT_BIT | HEAD_BIT)

ARM_JOINTS = ("shoulder_yaw", "shoulder_pitch", "upper_roll", "elbow", "forearm_roll", "wrist_pitch", "wrist_roll")
BASE_JOINTS = ("base_x", "base_y")
FINGERS = ("index", "middle", "ring", "little")
SPREAD_FINGERS = ("index", "ring", "little")
FINGER_Y = {"index": 0.0315, "middle": 0.0105, "ring": -0.0105, "little": -0.0315}
FINGER_LENGTHS = {"index": (0.036, 0.026, 0.022), "middle": (0.038, 0.028, 0.022),
                  "ring": (0.036, 0.026, 0.022), "little": (0.030, 0.022, 0.020)}
THUMB_LENGTHS = (0.034, 0.028, 0.024)
FINGER_RADIUS = 0.0085
PALM_HALF = (0.012, 0.045, 0.06)  # thickness (x), width (y), length (z)
PALM_CENTER_Z = -0.065
FINGER_BASE_Z = -0.125
THUMB_BASE = (0.004, 0.0, -0.005)


def hand_joints() -> tuple[str, ...]:
    names = []
    for f in FINGERS:
        if f in SPREAD_FINGERS:
            names.append(f"{f}_spread")
        names += [f"{f}_1", f"{f}_2", f"{f}_3"]
    names += ["thumb_opposition", "thumb_1", "thumb_2", "thumb_3"]
    return tuple(names)


HAND_JOINTS = hand_joints()
SIDE_JOINTS = BASE_JOINTS + ARM_JOINTS + HAND_JOINTS


@dataclass(frozen=True)
class JointClass:
    """Actuation of one joint: position servo gains, force limit, rate limit, and how far the servo
    target may run ahead of the joint (beyond that, a blocked joint stops instead of winding up)."""

    kp: float
    kv: float
    force: float
    max_velocity: float
    max_lag: float
    armature: float
    damping: float = 0.0


JOINT_CLASSES = {
    "base": JointClass(kp=6000.0, kv=1500.0, force=500.0, max_velocity=0.35, max_lag=0.02, armature=0.0),
    "shoulder": JointClass(kp=500.0, kv=50.0, force=150.0, max_velocity=1.0, max_lag=0.1, armature=0.25),
    "upper": JointClass(kp=300.0, kv=30.0, force=90.0, max_velocity=1.2, max_lag=0.1, armature=0.12),
    "elbow": JointClass(kp=350.0, kv=35.0, force=90.0, max_velocity=1.2, max_lag=0.1, armature=0.12),
    "forearm": JointClass(kp=150.0, kv=15.0, force=40.0, max_velocity=1.6, max_lag=0.1, armature=0.05),
    "wrist": JointClass(kp=120.0, kv=10.0, force=30.0, max_velocity=1.8, max_lag=0.1, armature=0.03),
    "finger": JointClass(kp=3.0, kv=0.08, force=0.6, max_velocity=2.5, max_lag=0.45, armature=0.002),
    "spread": JointClass(kp=3.0, kv=0.08, force=0.6, max_velocity=1.5, max_lag=0.3, armature=0.002),
    "thumb": JointClass(kp=8.0, kv=0.2, force=2.5, max_velocity=2.5, max_lag=0.45, armature=0.004),
}


def joint_class(short: str) -> str:
    if short in BASE_JOINTS:
        return "base"
    if short in ("shoulder_yaw", "shoulder_pitch"):
        return "shoulder"
    if short == "upper_roll":
        return "upper"
    if short == "elbow":
        return "elbow"
    if short == "forearm_roll":
        return "forearm"
    if short.startswith("wrist"):
        return "wrist"
    if short.endswith("_spread"):
        return "spread"
    if short.startswith("thumb"):
        return "thumb"
    return "finger"


JOINT_RANGES = {
    "base_x": (-0.95, 0.95), "base_y": (-0.25, 0.45),
    "shoulder_yaw": (-2.9, 2.9), "shoulder_pitch": (-1.0, 2.9), "upper_roll": (-2.9, 2.9),
    "elbow": (-2.8, 2.8), "forearm_roll": (-2.9, 2.9), "wrist_pitch": (-2.2, 2.2), "wrist_roll": (-2.9, 2.9),
    "thumb_opposition": (0.0, 1.6), "thumb_1": (-1.5, 1.7), "thumb_2": (0.0, 1.8), "thumb_3": (0.0, 1.5),
}
for _f in FINGERS:
    JOINT_RANGES[f"{_f}_spread"] = (-0.35, 0.35)
    JOINT_RANGES[f"{_f}_1"] = (-0.3, 1.75)
    JOINT_RANGES[f"{_f}_2"] = (0.0, 1.9)
    JOINT_RANGES[f"{_f}_3"] = (0.0, 1.6)

#: The pose both arms start in: palm down over the front of the table, fingers pointing to +y,
#: fingers straight, thumb swung out (found once with the engine's own IK; see tests).
HOME = {
    "shoulder_yaw": 0.0, "shoulder_pitch": 2.1525, "upper_roll": 0.0, "elbow": -1.8537, "forearm_roll": 0.0,
    "wrist_pitch": 1.2719, "wrist_roll": 0.0, "thumb_opposition": 1.5, "thumb_1": -0.6,
}

# ----- scene layout --------------------------------------------------------------------------------

TABLE_CENTER = (0.0, 0.0)
TABLE_HALF = (0.72, 0.36)
COMB_Y0, COMB_PITCH = supply.COMB_Y0, supply.COMB_PITCH  # the screw combs (supply.py)
COMB_RAIL_H = 0.03
COMB_GAP = 0.0095

SCREW_HEAD_HALF = (0.007, 0.007, 0.005)
SCREW_LENGTH = 0.060  # under the head
SCREW_RADIUS = 0.003
SCREW_HEAD_MASS, SCREW_SHAFT_MASS = 0.008, 0.004
DRILL_GRIP_HALF = (0.05, 0.045, 0.02)  # along the bit, depth (between fingers and thumb), thickness
DRILL_CHUCK = (0.05, 0.065, 0.012)  # from x, to x, radius
DRILL_BIT = (0.065, 0.112, 0.003)
DRILL_TIP_X = 0.115
DRILL_MASS = 0.8
#: Screw constraints: the stiffest the 180 Hz step allows (time constant >= 2 steps), impedance 0.99.
EQ_SOLREF = "0.012 1"
EQ_SOLIMP = "0.99 0.99 0.001"
#: Metal on metal (bit on screw head): MuJoCo takes the larger friction of a pair, so fingers still
#: grip heads with their own friction while a bit slides over a head easily.
METAL_FRICTION = "0.15 0.005 0.0001"


def _n(v) -> str:
    return " ".join(repr(round(float(x), 9)) for x in np.ravel(v))


def _ct(kind: str) -> str:
    t, a = COLLIDE[kind]
    return f'contype="{t}" conaffinity="{a}"'


def quat_from_mat(r: np.ndarray) -> np.ndarray:
    import mujoco

    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(r, float).ravel())
    return q


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def look_at(eye, target) -> str:
    """MJCF xyaxes of a camera at `eye` looking at `target` with world z up."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    f = target - eye
    f /= np.linalg.norm(f)
    x = np.cross(f, [0.0, 0.0, 1.0])
    x /= np.linalg.norm(x)
    y = np.cross(x, f)
    return _n(np.concatenate([x, y]))


CAMERAS = {
    "front": ((0.0, -2.3, 1.9), (0.0, -0.1, 0.75)),
    "left": ((-2.4, -0.3, 1.7), (-0.3, 0.0, 0.75)),
    "right": ((2.2, -0.6, 1.7), (0.2, 0.0, 0.75)),
    "top": ((-0.15, -0.25, 3.2), (-0.15, -0.05, 0.72)),
}


# ----- stock (the slot layout is racks.py's) ------------------------------------------------------

def stock_pose(board: BoardSpec, spec: BuildSpec) -> tuple[np.ndarray, np.ndarray]:
    """Initial position and rotation matrix of a stock board on its rack slot (racks.stock_pose)."""
    return racks.stock_pose(board, racks.slot_sites(spec)[board.stock_slot])


def _rack_geoms(spec: BuildSpec) -> list[str]:
    sites = racks.slot_sites(spec)
    out = []
    for b in spec.boards:
        width = b.size[1]
        rot = rot_x(b.stock_tilt)
        q = quat_from_mat(rot)
        origin = sites[b.stock_slot].origin
        sdx = racks.support_dx(b)
        for k, dx in enumerate((-sdx, sdx)):
            sup = origin + rot @ np.array([dx, width / 2, -0.006])
            lip = origin + rot @ np.array([dx, -0.006, 0.008])
            out.append(f'<geom name="rack{b.stock_slot}_support{k}" type="box" size="0.025 {_n(width / 2 + 0.012)} 0.006" '
                       f'pos="{_n(sup)}" quat="{_n(q)}" material="steel" {_ct("static")}/>')
            out.append(f'<geom name="rack{b.stock_slot}_lip{k}" type="box" size="0.025 0.006 0.014" '
                       f'pos="{_n(lip)}" quat="{_n(q)}" material="steel" {_ct("static")}/>')
            post_top = min(sup[2], lip[2]) - 0.02
            out.append(f'<geom type="box" size="0.015 0.015 {_n(post_top / 2)}" pos="{_n([sup[0], sup[1], post_top / 2])}" '
                       f'material="steel" contype="0" conaffinity="0" group="1"/>')
    return out


# ----- comb and screws ----------------------------------------------------------------------------

def comb_cell(k: int, screws: int) -> tuple[float, float]:
    """Centre (x, y) of screw cell k (supply.py)."""
    c = supply.cell(k, screws)
    return c.x, c.y


def _comb_geoms(n: int) -> list[str]:
    if n == 0:
        return []
    if supply.uses_stands(n):
        return [g for side, count in supply.stand_counts(n).items() for g in _stand(side, count, n)]
    return _comb(n)


def _comb(n: int) -> list[str]:
    rows = (n + 1) // 2
    out = []
    y0 = COMB_Y0 - COMB_PITCH / 2
    y1 = COMB_Y0 + COMB_PITCH * (rows - 1) + COMB_PITCH / 2
    half_len = (y1 - y0) / 2
    cy = (y0 + y1) / 2
    z = TABLE_TOP + COMB_RAIL_H / 2
    t = 0.003  # half thickness of rails and teeth
    for c, x in enumerate(supply.COMB_X):
        for side in (-1, 1):
            out.append(f'<geom name="comb{c}_rail{side:+d}" type="box" size="{t} {_n(half_len)} {_n(COMB_RAIL_H / 2)}" '
                       f'pos="{_n([x + side * (COMB_GAP / 2 + t), cy, z])}" material="steel" {_ct("static")}/>')
        for r in range(rows):
            cy_r = COMB_Y0 + COMB_PITCH * r
            for side in (-1, 1):  # two teeth close each cell front and back: a square socket
                out.append(f'<geom type="box" size="{_n(COMB_GAP / 2)} {t} {_n(COMB_RAIL_H / 2)}" '
                           f'pos="{_n([x, cy_r + side * (COMB_GAP / 2 + t), z])}" material="steel" {_ct("static")}/>')
    return out


def _stand(side: str, count: int, screws: int) -> list[str]:
    """A stepped stand: per row a step (a block whose top is the row's floor) and per cell a square
    socket of four low walls."""
    first = 0 if side == "left" else supply.STAND_CELLS
    cells = [supply.cell(first + j, screws) for j in range(count)]
    xs = supply.STAND_X[side]
    half_x = (max(xs) - min(xs)) / 2 + 0.04
    cx = (max(xs) + min(xs)) / 2
    t, h = 0.003, supply.STAND_SOCKET_H
    out = []
    for r in sorted({c.row for c in cells}):
        floor = TABLE_TOP + supply.STAND_STEP * r
        y = supply.STAND_Y0 + supply.STAND_DY * r
        if r > 0:
            out.append(f'<geom name="stand_{side}_step{r}" type="box" size="{_n(half_x)} {_n(supply.STAND_DY / 2)} '
                       f'{_n((floor - TABLE_TOP) / 2)}" pos="{_n([cx, y, (floor + TABLE_TOP) / 2])}" material="steel" '
                       f'{_ct("static")}/>')
    for c in cells:
        z = c.floor_z + h / 2
        for s in (-1, 1):
            out.append(f'<geom type="box" size="{t} {_n(COMB_GAP / 2 + 2 * t)} {_n(h / 2)}" '
                       f'pos="{_n([c.x + s * (COMB_GAP / 2 + t), c.y, z])}" material="steel" {_ct("static")}/>')
            out.append(f'<geom type="box" size="{_n(COMB_GAP / 2)} {t} {_n(h / 2)}" '
                       f'pos="{_n([c.x, c.y + s * (COMB_GAP / 2 + t), z])}" material="steel" {_ct("static")}/>')
    return out


def screw_start(k: int, screws: int) -> np.ndarray:
    """Initial position of screw k's body origin (head centre): standing on its tip in its cell."""
    c = supply.cell(k, screws)
    return np.array([c.x, c.y, c.floor_z + SCREW_LENGTH + SCREW_HEAD_HALF[2] + 0.0005])


def _screw_body(k: int, screws: int) -> str:
    hx, hy, hz = SCREW_HEAD_HALF
    pos = screw_start(k, screws)
    return f"""<body name="screw{k}" pos="{_n(pos)}">
      <freejoint name="screw{k}"/>
      <geom name="screw{k}/head" type="box" size="{_n([hx, hy, hz])}" mass="{SCREW_HEAD_MASS}" material="zinc" {_ct("object")} friction="{METAL_FRICTION}"/>
      <geom name="screw{k}/shaft" type="capsule" fromto="0 0 {-hz} 0 0 {_n(-hz - SCREW_LENGTH + SCREW_RADIUS)}" size="{SCREW_RADIUS}" mass="{SCREW_SHAFT_MASS}" material="zinc" {_ct("object")} friction="0.8 0.02 0.001"/>
      <site name="screw{k}/top" pos="0 0 {hz}" size="0.002"/>
      <site name="screw{k}/tip" pos="0 0 {_n(-hz - SCREW_LENGTH)}" size="0.002"/>
    </body>"""


# ----- drills -------------------------------------------------------------------------------------

def drill_start(k: int, screws: int = 0) -> np.ndarray:
    x, y = supply.drill_slot(k, screws)
    return np.array([x, y, TABLE_TOP + DRILL_GRIP_HALF[2] + 0.0005])


def _drill_body(k: int, screws: int) -> str:
    gx, gy, gz = DRILL_GRIP_HALF
    return f"""<body name="drill{k}" pos="{_n(drill_start(k, screws))}">
      <freejoint name="drill{k}"/>
      <geom name="drill{k}/grip" type="box" size="{_n([gx, gy, gz])}" mass="{DRILL_MASS - 0.12}" material="drill" {_ct("drill")} friction="0.9 0.02 0.001"/>
      <geom name="drill{k}/chuck" type="capsule" fromto="{DRILL_CHUCK[0]} 0 0 {DRILL_CHUCK[1]} 0 0" size="{DRILL_CHUCK[2]}" mass="0.1" material="steel" {_ct("drill")}/>
      <geom name="drill{k}/bit" type="capsule" fromto="{DRILL_BIT[0]} 0 0 {DRILL_BIT[1]} 0 0" size="{DRILL_BIT[2]}" mass="0.02" material="steel" {_ct("drill")} friction="{METAL_FRICTION}"/>
      <site name="drill{k}/tip" pos="{DRILL_TIP_X} 0 0" size="0.002"/>
    </body>"""


# ----- boards and targets -------------------------------------------------------------------------

def _board_mesh(b: BoardSpec) -> str:
    """A board's collision shape: the box as an 8-vertex convex mesh. MuJoCo's dedicated box-box
    collider flickers between 4 contacts and 1 for two boards lying face on face with a tilt of a
    fraction of a milliradian (a board resting across two rails then rocks and walks); the convex
    mesh collider gives a steady contact patch."""
    length, width, thick = b.size
    verts = [[sx * length / 2, sy * width / 2, sz * thick / 2] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    return f'<mesh name="board/{b.name}" vertex="{_n(verts)}"/>'


def _board_body(b: BoardSpec, spec: BuildSpec) -> str:
    pos, rot = stock_pose(b, spec)
    return f"""<body name="{b.name}" pos="{_n(pos)}" quat="{_n(quat_from_mat(rot))}">
      <freejoint name="{b.name}"/>
      <geom name="{b.name}" type="mesh" mesh="board/{b.name}" mass="{_n(b.mass)}" material="wood" {_ct("object")} friction="0.6 0.01 0.0005"/>
    </body>"""


def _target_geom(b: BoardSpec) -> str:
    length, width, thick = b.size
    if not is_flat(b.target):  # an outline with a full rotation: the whole box, faint (visual only)
        q = quat_from_mat(target_rotation(b.target))
        return (f'<geom name="target/{b.name}" type="box" size="{_n([length / 2, width / 2, thick / 2])}" '
                f'pos="{_n(b.target[:3])}" quat="{_n(q)}" rgba="0.2 0.7 0.3 0.2" '
                f'contype="0" conaffinity="0" group="2"/>')
    x, y, z, yaw = b.target
    q = quat_from_mat(rot_z(yaw))
    # a flat outline marker at the target's bottom face (visual only)
    return (f'<geom name="target/{b.name}" type="box" size="{_n([length / 2, width / 2, 0.0004])}" '
            f'pos="{_n([x, y, z - thick / 2 + 0.0006])}" quat="{_n(q)}" rgba="0.2 0.7 0.3 0.35" '
            f'contype="0" conaffinity="0" group="2"/>')


# ----- robot --------------------------------------------------------------------------------------

def _joint(side: str, short: str, kind: str, axis) -> str:
    jc = JOINT_CLASSES[joint_class(short)]
    lo, hi = JOINT_RANGES[short]
    return (f'<joint name="{side}/{short}" type="{kind}" axis="{_n(axis)}" range="{_n([lo, hi])}" '
            f'armature="{jc.armature}" damping="{jc.damping}"/>')


def _finger(side: str, f: str) -> str:
    l1, l2, l3 = FINGER_LENGTHS[f]
    r = FINGER_RADIUS
    ct = _ct(side)
    spread = _joint(side, f"{f}_spread", "hinge", [1, 0, 0]) if f in SPREAD_FINGERS else ""
    return f"""<body name="{side}/{f}" pos="0 {FINGER_Y[f]} {FINGER_BASE_Z}">
          {spread}
          {_joint(side, f"{f}_1", "hinge", [0, -1, 0])}
          <geom name="{side}/{f}_1" type="capsule" fromto="0 0 0 0 0 {-l1}" size="{r}" mass="0.025" material="finger" {ct}/>
          <body name="{side}/{f}_m" pos="0 0 {-l1}">
            {_joint(side, f"{f}_2", "hinge", [0, -1, 0])}
            <geom name="{side}/{f}_2" type="capsule" fromto="0 0 0 0 0 {-l2}" size="{r}" mass="0.015" material="finger" {ct}/>
            <body name="{side}/{f}_d" pos="0 0 {-l2}">
              {_joint(side, f"{f}_3", "hinge", [0, -1, 0])}
              <geom name="{side}/{f}_3" type="capsule" fromto="0 0 0 0 0 {-l3}" size="{r - 0.0005}" mass="0.01" material="fingertip" {ct}/>
              <site name="{side}/{f}_tip" pos="0 0 {-l3}" size="0.003"/>
            </body>
          </body>
        </body>"""


def _thumb(side: str) -> str:
    l1, l2, l3 = THUMB_LENGTHS
    r = FINGER_RADIUS + 0.0005
    ct = _ct(side)
    return f"""<body name="{side}/thumb" pos="{_n(THUMB_BASE)}">
          {_joint(side, "thumb_opposition", "hinge", [0, 0, 1])}
          {_joint(side, "thumb_1", "hinge", [0, 1, 0])}
          <geom name="{side}/thumb_1" type="capsule" fromto="0 0 0 {l1} 0 0" size="{r}" mass="0.03" material="finger" {ct}/>
          <body name="{side}/thumb_m" pos="{l1} 0 0">
            {_joint(side, "thumb_2", "hinge", [0, 1, 0])}
            <geom name="{side}/thumb_2" type="capsule" fromto="0 0 0 {l2} 0 0" size="{r}" mass="0.02" material="finger" {ct}/>
            <body name="{side}/thumb_d" pos="{l2} 0 0">
              {_joint(side, "thumb_3", "hinge", [0, 1, 0])}
              <geom name="{side}/thumb_3" type="capsule" fromto="0 0 0 {l3} 0 0" size="{r - 0.0005}" mass="0.012" material="fingertip" {ct}/>
              <site name="{side}/thumb_tip" pos="{l3} 0 0" size="0.003"/>
            </body>
          </body>
        </body>"""


def _arm(side: str) -> str:
    bx, by = BASE_HOME[side]
    sx, sy, sz = SHOULDER_OFFSET
    ct = _ct(side)
    px, py, pz = PALM_HALF
    return f"""<body name="{side}/base" pos="{bx} {by} 0">
      {_joint(side, "base_x", "slide", [1, 0, 0])}
      {_joint(side, "base_y", "slide", [0, 1, 0])}
      <geom name="{side}/base" type="box" pos="0 0 0.06" size="0.17 0.17 0.05" mass="60" material="robot_dark" {ct}/>
      <geom name="{side}/column" type="capsule" fromto="0 0 0.12 0 0 {sz - 0.06}" size="0.06" mass="12" material="robot" {ct}/>
      <geom name="{side}/boom" type="box" pos="0 {sy / 2} {sz - 0.03}" size="0.05 {sy / 2 + 0.03} 0.035" mass="3" material="robot" {ct}/>
      <body name="{side}/shoulder" pos="{sx} {sy} {sz}" gravcomp="1">
        {_joint(side, "shoulder_yaw", "hinge", [0, 0, 1])}
        <geom name="{side}/shoulder" type="sphere" size="0.062" mass="2" material="robot" {ct}/>
        <body name="{side}/upper" gravcomp="1">
          {_joint(side, "shoulder_pitch", "hinge", [1, 0, 0])}
          {_joint(side, "upper_roll", "hinge", [0, 0, 1])}
          <geom name="{side}/upper" type="capsule" fromto="0 0 -0.02 0 0 {-UPPER_ARM + 0.03}" size="0.048" mass="2.4" material="robot" {ct}/>
          <body name="{side}/forearm" pos="0 0 {-UPPER_ARM}" gravcomp="1">
            {_joint(side, "elbow", "hinge", [1, 0, 0])}
            {_joint(side, "forearm_roll", "hinge", [0, 0, 1])}
            <geom name="{side}/elbow" type="sphere" size="0.045" mass="0.6" material="robot_dark" {ct}/>
            <geom name="{side}/forearm" type="capsule" fromto="0 0 -0.03 0 0 {-FOREARM + 0.035}" size="0.038" mass="1.6" material="robot" {ct}/>
            <body name="{side}/wrist" pos="0 0 {-FOREARM}" gravcomp="1">
              {_joint(side, "wrist_pitch", "hinge", [1, 0, 0])}
              {_joint(side, "wrist_roll", "hinge", [0, 0, 1])}
              <geom name="{side}/wrist" type="sphere" size="0.02" mass="0.4" material="robot_dark" {ct}/>
              <body name="{side}/hand" pos="0 0 {-WRIST_TO_HAND}" quat="0.7071067811865476 0 0 -0.7071067811865476" gravcomp="1">
                <geom name="{side}/palm" type="box" pos="0 0 {PALM_CENTER_Z}" size="{px} {py} {pz}" mass="0.35" material="palm" {ct} friction="1.0 0.02 0.001"/>
                <site name="{side}/palm" pos="{px} 0 {PALM_CENTER_Z}" size="0.004"/>
                <site name="{side}/pinch" pos="0 {FINGER_Y['middle'] + FINGER_RADIUS + SCREW_RADIUS} {FINGER_BASE_Z - 0.045}" size="0.003"/>
                {_finger(side, "index")}
                {_finger(side, "middle")}
                {_finger(side, "ring")}
                {_finger(side, "little")}
                {_thumb(side)}
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>"""


def _actuators() -> list[str]:
    out = []
    for side in SIDES:
        for short in SIDE_JOINTS:
            jc = JOINT_CLASSES[joint_class(short)]
            out.append(f'<position name="{side}/{short}" joint="{side}/{short}" kp="{jc.kp}" kv="{jc.kv}" '
                       f'forcerange="{-jc.force} {jc.force}" ctrlrange="{_n(JOINT_RANGES[short])}"/>')
    return out


def home_qpos(side: str, short: str) -> float:
    return float(HOME.get(short, 0.0))


# ----- the model ----------------------------------------------------------------------------------

def model_xml(spec: BuildSpec, noslip_iterations: int = NOSLIP_ITERATIONS) -> str:
    """The MJCF of a build (deterministic: the same spec gives the same string); ValueError for a
    build whose boards fit no stock slot or whose screws and drills the supply cannot hold."""
    racks.check_boards(spec)
    supply.check_counts(spec.screws, spec.drills)
    tx, ty = TABLE_CENTER
    hx, hy = TABLE_HALF
    cams = "\n    ".join(f'<camera name="{k}" pos="{_n(e)}" xyaxes="{look_at(e, t)}" fovy="45"/>'
                         for k, (e, t) in CAMERAS.items())
    screws = "\n    ".join(_screw_body(k, spec.screws) for k in range(spec.screws))
    drills = "\n    ".join(_drill_body(k, spec.screws) for k in range(spec.drills))
    boards = "\n    ".join(_board_body(b, spec) for b in spec.boards)
    targets = "\n    ".join(_target_geom(b) for b in spec.boards)
    eqs = []
    if spec.screws:
        b0 = spec.boards[0].name
        b1 = spec.boards[1].name if len(spec.boards) > 1 else b0
        for k in range(spec.screws):
            eqs.append(f'<weld name="screw{k}/seat" body1="screw{k}" body2="{b0}" active="false" solref="{EQ_SOLREF}" solimp="{EQ_SOLIMP}"/>')
            eqs.append(f'<connect name="screw{k}/joint" body1="{b0}" body2="{b1}" anchor="0 0 0" active="false" '
                       f'solref="{EQ_SOLREF}" solimp="{EQ_SOLIMP}"/>')
    return f"""<mujoco model="workshop-{spec.name}-{spec.seed}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{TIMESTEP!r}" integrator="implicitfast" solver="Newton" iterations="40" ls_iterations="20"
          noslip_iterations="{int(noslip_iterations)}" cone="elliptic" gravity="0 0 {-GRAVITY}">
    <flag sleep="enable"/>
  </option>
  <size memory="64M"/>
  <visual>
    <global offwidth="640" offheight="480"/>
    <quality shadowsize="0" offsamples="0"/>
    <headlight ambient="0.35 0.35 0.35" diffuse="0.5 0.5 0.5"/>
  </visual>
  <default>
    <geom condim="3" friction="0.8 0.01 0.0005" solref="0.02 1" solimp="0.9 0.95 0.001"/>
    <position inheritrange="0"/>
  </default>
  <asset>
    {"".join(_board_mesh(b) for b in spec.boards)}
    <texture name="grid" type="2d" builtin="checker" width="256" height="256" rgb1="0.82 0.82 0.8" rgb2="0.74 0.74 0.72"/>
    <material name="floor" texture="grid" texrepeat="8 8" reflectance="0"/>
    <material name="table" rgba="0.55 0.42 0.3 1" reflectance="0"/>
    <material name="steel" rgba="0.55 0.57 0.6 1" reflectance="0"/>
    <material name="zinc" rgba="0.8 0.8 0.75 1" reflectance="0"/>
    <material name="wood" rgba="0.86 0.7 0.47 1" reflectance="0"/>
    <material name="drill" rgba="0.15 0.35 0.75 1" reflectance="0"/>
    <material name="robot" rgba="0.9 0.9 0.92 1" reflectance="0"/>
    <material name="robot_dark" rgba="0.3 0.3 0.33 1" reflectance="0"/>
    <material name="palm" rgba="0.25 0.25 0.28 1" reflectance="0"/>
    <material name="finger" rgba="0.35 0.35 0.4 1" reflectance="0"/>
    <material name="fingertip" rgba="0.85 0.45 0.2 1" reflectance="0"/>
  </asset>
  <worldbody>
    <light name="sun" directional="true" pos="0 0 5" dir="0.2 0.3 -1" castshadow="false" diffuse="0.6 0.6 0.6"/>
    <geom name="floor" type="plane" size="4 4 0.1" material="floor" {_ct("floor")}/>
    <geom name="table" type="box" pos="{tx} {ty} {TABLE_TOP / 2}" size="{hx} {hy} {TABLE_TOP / 2}" material="table" {_ct("static")} friction="0.6 0.01 0.0005"/>
    {cams}
    {"".join(_rack_geoms(spec))}
    {"".join(_comb_geoms(spec.screws))}
    {targets}
    {_arm("left")}
    {_arm("right")}
    {boards}
    {drills}
    {screws}
  </worldbody>
  <equality>
    {"".join(eqs)}
  </equality>
  <actuator>
    {"".join(_actuators())}
  </actuator>
</mujoco>
"""
