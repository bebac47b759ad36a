"""The robot generator: random proportions and a random gait from a seed, as a keyed, skinned rig.

The robot is made of boxes (13 parts, 164 vertices) on a 10-bone armature and faces +Y, with an
orange face plate and chest plate on its front. Its walk is built from foot trajectories: a stance
foot stays planted while the hips travel forward at constant speed, a swing foot lifts and lands one
stride ahead, and two-link inverse kinematics of each leg gives the thigh and knee keys, so the hips
are where the stance leg puts them and the planted foot does not slide. The swing knee bends most
mid-swing because the swing foot passes under the hips while lifted.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from simreflect.suites.gait.rig import Bone, Part, Rig

FRAMES = 60
FPS = 24
BONE_NAMES = ("hips", "torso", "arm.L", "arm.R", "thigh.L", "shin.L", "foot.L", "thigh.R", "shin.R", "foot.R")
ORANGE = (255, 122, 0)
LEGS = ("L", "R")


@dataclass(frozen=True)
class RobotParams:
    thigh: float
    shin: float
    ankle_height: float
    heel: float
    toe: float
    foot_width: float
    hip_half_width: float
    leg_width: float
    pelvis_height: float
    torso_length: float
    torso_width: float
    torso_depth: float
    head_size: float
    arm_length: float
    arm_width: float


@dataclass(frozen=True)
class GaitParams:
    period: int  # frames per full cycle (a left and a right step)
    duty: float  # share of the cycle a foot is on the ground
    stride: float  # metres the robot travels per cycle
    swing_flex_deg: float  # extra knee flexion at mid-swing that lifts the foot
    stance_knee_deg: float  # knee flexion of the stance leg that sets the hip height
    phase: float  # cycle phase of the left leg at frame 0
    arm_ratio: float  # arm swing relative to the opposite thigh
    lean_deg: float  # constant forward lean of the upper body
    twist_deg: float  # upper-body counter-rotation amplitude


def sample_robot(rng: np.random.Generator) -> RobotParams:
    u = rng.uniform
    return RobotParams(
        thigh=u(0.34, 0.42),
        shin=u(0.32, 0.40),
        ankle_height=u(0.05, 0.07),
        heel=u(0.05, 0.07),
        toe=u(0.14, 0.18),
        foot_width=u(0.10, 0.12),
        hip_half_width=u(0.075, 0.09),
        leg_width=u(0.08, 0.10),
        pelvis_height=u(0.10, 0.14),
        torso_length=u(0.40, 0.50),
        torso_width=u(0.28, 0.34),
        torso_depth=u(0.16, 0.20),
        head_size=u(0.18, 0.22),
        arm_length=u(0.50, 0.60),
        arm_width=u(0.06, 0.08),
    )


def sample_gait(rng: np.random.Generator, robot: RobotParams) -> GaitParams:
    leg = robot.thigh + robot.shin
    return GaitParams(
        period=int(rng.integers(24, 31)),
        duty=rng.uniform(0.56, 0.62),
        stride=leg * rng.uniform(0.62, 0.76),
        swing_flex_deg=rng.uniform(35.0, 50.0),
        stance_knee_deg=rng.uniform(8.0, 16.0),
        phase=rng.uniform(0.0, 1.0),
        arm_ratio=rng.uniform(0.5, 0.8),
        lean_deg=rng.uniform(2.0, 5.0),
        twist_deg=rng.uniform(1.0, 3.0),
    )


# ----- mesh --------------------------------------------------------------------------------------

def _box(origin, length_axis, a_axis, b_axis, length, half_a, half_b, segments):
    """Vertices (ring by ring) and quad faces of a box swept `length` along `length_axis`."""
    origin, u, a, b = (np.asarray(x, float) for x in (origin, length_axis, a_axis, b_axis))
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    verts = [origin + u * length * (k / segments) + a * ca * half_a + b * cb * half_b
             for k in range(segments + 1) for ca, cb in corners]
    faces = []
    for k in range(segments):
        r0, r1 = 4 * k, 4 * (k + 1)
        for c in range(4):
            faces.append([r0 + c, r0 + (c + 1) % 4, r1 + (c + 1) % 4, r1 + c])
    faces.append([3, 2, 1, 0])
    last = 4 * segments
    faces.append([last, last + 1, last + 2, last + 3])
    return np.array(verts), np.array(faces)


X, Y, Z = np.eye(3)
HIP_BOB_SHARE = 0.8  # hip bob as a share of what the stance legs allow


def build_rest(robot: RobotParams) -> tuple[list[Bone], np.ndarray, np.ndarray, list[Part]]:
    """Bones, rest vertices, faces and parts of a robot standing straight with arms down."""
    r = robot
    knee_z = r.ankle_height + r.shin
    hip_z = knee_z + r.thigh
    torso_base = hip_z + r.pelvis_height
    torso_top = torso_base + r.torso_length
    shoulder_x = r.torso_width / 2 + r.arm_width / 2 + 0.01
    shoulder_z = torso_top - 0.03
    side = {"L": -1.0, "R": 1.0}  # the robot faces +Y, so its left is -X

    bones = [
        Bone("hips", None, (0.0, 0.0, hip_z), (0.0, 0.12, hip_z)),
        Bone("torso", "hips", (0.0, 0.0, torso_base), (0.0, 0.0, torso_top)),
    ]
    for leg in LEGS:
        bones.append(Bone(f"arm.{leg}", "torso", (side[leg] * shoulder_x, 0.0, shoulder_z),
                          (side[leg] * shoulder_x, 0.0, shoulder_z - r.arm_length)))
    for leg in LEGS:
        x = side[leg] * r.hip_half_width
        bones += [
            Bone(f"thigh.{leg}", "hips", (x, 0.0, hip_z), (x, 0.0, knee_z)),
            Bone(f"shin.{leg}", f"thigh.{leg}", (x, 0.0, knee_z), (x, 0.0, r.ankle_height)),
            Bone(f"foot.{leg}", f"shin.{leg}", (x, 0.0, r.ankle_height), (x, r.toe, r.ankle_height)),
        ]
    assert tuple(b.name for b in bones) == BONE_NAMES

    grey, dark, light = (150, 158, 170), (95, 102, 115), (200, 205, 212)
    specs = []  # (part, bone, box args, density kg/m^3, colour)
    hw = r.hip_half_width
    specs.append(("pelvis", "hips", ((0, 0, hip_z - 0.03), Z, X, Y, r.pelvis_height + 0.03, hw + r.leg_width / 2, 0.08, 1), 900, dark))
    specs.append(("torso", "torso", ((0, 0, torso_base), Z, X, Y, r.torso_length, r.torso_width / 2, r.torso_depth / 2, 4), 700, grey))
    specs.append(("head", "torso", ((0, 0, torso_top), Z, X, Y, r.head_size, r.head_size / 2, r.head_size / 2, 1), 600, light))
    plate_front = r.head_size / 2
    specs.append(("face_plate", "torso", ((0, plate_front, torso_top + r.head_size * 0.45), Y, X, Z, 0.015, r.head_size * 0.36, r.head_size * 0.22, 1), 300, ORANGE))
    specs.append(("chest_plate", "torso", ((0, r.torso_depth / 2, torso_top - r.torso_length * 0.35), Y, X, Z, 0.015, r.torso_width * 0.3, r.torso_length * 0.18, 1), 300, ORANGE))
    for leg in LEGS:
        specs.append((f"arm.{leg}", f"arm.{leg}", ((side[leg] * shoulder_x, 0, shoulder_z), -Z, X, Y, r.arm_length, r.arm_width / 2, r.arm_width / 2, 3), 800, light))
    for leg in LEGS:
        x = side[leg] * hw
        specs.append((f"thigh.{leg}", f"thigh.{leg}", ((x, 0, hip_z), -Z, X, Y, r.thigh, r.leg_width / 2, r.leg_width / 2, 3), 1000, grey))
        specs.append((f"shin.{leg}", f"shin.{leg}", ((x, 0, knee_z), -Z, X, Y, r.shin - 0.005, r.leg_width * 0.42, r.leg_width * 0.42, 3), 1000, light))
        foot_len = r.heel + r.toe
        specs.append((f"foot.{leg}", f"foot.{leg}", ((x, -r.heel, 0.0), Y, X, Z, foot_len, r.foot_width / 2, r.ankle_height / 2, 1), 1000, dark))

    verts, faces, parts = [], [], []
    count = 0
    for name, bone, (origin, u, a, b, length, half_a, half_b, seg), density, colour in specs:
        if name.startswith("foot"):  # a foot box sits on the floor: its b axis runs from z=0 up to the ankle
            origin = np.asarray(origin, float) + Z * half_b
        v, f = _box(origin, u, a, b, length, half_a, half_b, seg)
        verts.append(v)
        faces.append(f + count)
        mass = density * length * 2 * half_a * 2 * half_b
        parts.append(Part(name, bone, count, count + len(v), round(mass, 6), colour))
        count += len(v)
    return bones, np.concatenate(verts), np.concatenate(faces), parts


# ----- walk --------------------------------------------------------------------------------------

def leg_ik(dy: np.ndarray, dz: np.ndarray, l1: float, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """Sagittal two-link IK. Returns thigh angle (forward positive) and knee angle (flexion negative)."""
    d = np.minimum(np.hypot(dy, dz), (l1 + l2) * 0.9999)
    cos_inner = np.clip((l1**2 + l2**2 - d**2) / (2 * l1 * l2), -1.0, 1.0)
    flex = math.pi - np.arccos(cos_inner)
    gamma = np.arctan2(dy, -dz)
    thigh = gamma + np.arctan2(l2 * np.sin(flex), l1 + l2 * np.cos(flex))
    return thigh, -flex


def _hermite(p0, m0, p1, m1, s):
    h00 = 2 * s**3 - 3 * s**2 + 1
    h10 = s**3 - 2 * s**2 + s
    h01 = -2 * s**3 + 3 * s**2
    h11 = s**3 - s**2
    return h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1


def hip_height_curve(robot: RobotParams, gait: GaitParams, phi_left: np.ndarray) -> np.ndarray:
    """Hip-joint height above the ankles at each left-leg phase, computed from the stance legs.

    A planted foot is `stride * (duty/2 - phase)` ahead of the hips and must be reached with the
    knee flexed at least stance_knee_deg. The hips follow a smooth two-bumps-per-cycle curve (high
    at mid-stance, low in double support, as an inverted pendulum does) placed as high as every
    stance foot of the cycle allows.
    """
    q = math.radians(gait.stance_knee_deg)
    reach = math.sqrt(robot.thigh**2 + robot.shin**2 + 2 * robot.thigh * robot.shin * math.cos(q))
    grid = np.linspace(0.0, 1.0, 720, endpoint=False)
    cap = np.full(grid.shape, np.inf)
    for offset in (0.0, 0.5):
        phi = (grid + offset) % 1.0
        ahead = gait.stride * (gait.duty / 2 - phi)
        cap = np.where(phi <= gait.duty, np.minimum(cap, np.sqrt(reach**2 - ahead**2)), cap)
    wave = np.cos(4 * math.pi * (grid - gait.duty / 2))
    amplitude = HIP_BOB_SHARE * (cap.max() - cap.min())
    base = np.min(cap - amplitude * wave)
    return base + amplitude * np.cos(4 * math.pi * (phi_left - gait.duty / 2))


def leg_angles(phi: np.ndarray, offset: float, robot: RobotParams, gait: GaitParams):
    """Thigh and knee angles of one leg at its own cycle phases, and its swing mask.

    Stance: inverse kinematics of the planted foot from the hips. Swing: the thigh and knee move
    from their lift-off values to their landing values (cubic Hermite, matching the stance
    angles and angular velocities at both ends) while the knee adds a flexion bump, largest
    mid-swing, that lifts the foot clear of the floor.
    """
    beta = gait.duty

    def stance(ph):
        hip = hip_height_curve(robot, gait, (np.asarray(ph, float) - offset) % 1.0)
        return leg_ik(gait.stride * (beta / 2 - np.asarray(ph, float)), -hip, robot.thigh, robot.shin)

    eps = 1e-6
    th_off, kn_off = stance(beta)
    th_on, kn_on = stance(0.0)
    dth_off = (th_off - stance(beta - eps)[0]) / eps * (1 - beta)
    dkn_off = (kn_off - stance(beta - eps)[1]) / eps * (1 - beta)
    dth_on = (stance(eps)[0] - th_on) / eps * (1 - beta)
    dkn_on = (stance(eps)[1] - kn_on) / eps * (1 - beta)
    swing = phi > beta
    thigh, knee = stance(np.minimum(phi, beta))
    s = np.clip((phi - beta) / (1 - beta), 0.0, 1.0)
    bump = math.radians(gait.swing_flex_deg) * 16 * s**2 * (1 - s) ** 2
    thigh = np.where(swing, _hermite(th_off, dth_off, th_on, dth_on, s), thigh)
    knee = np.where(swing, _hermite(kn_off, dkn_off, kn_on, dkn_on, s) - bump, knee)
    return thigh, knee, swing


def build_walk(robot: RobotParams, gait: GaitParams, bones: list[Bone]) -> tuple[np.ndarray, np.ndarray, dict]:
    """Location and rotation keys (frames, bones, 3) of the normal walk, and facts about it."""
    n = FRAMES
    f = np.arange(n, dtype=float)
    idx = {b.name: i for i, b in enumerate(bones)}
    loc = np.zeros((n, len(bones), 3))
    rot = np.zeros((n, len(bones), 3))
    hip_rest_z = bones[idx["hips"]].head[2]
    phi_left = (f / gait.period + gait.phase) % 1.0
    hip_y = f * gait.stride / gait.period
    hip_z = robot.ankle_height + hip_height_curve(robot, gait, phi_left)
    loc[:, idx["hips"], 1] = hip_y
    loc[:, idx["hips"], 2] = hip_z - hip_rest_z

    swing_frames = {}
    thigh_angles = {}
    for leg, offset in (("L", 0.0), ("R", 0.5)):
        thigh, knee, swing = leg_angles((phi_left + offset) % 1.0, offset, robot, gait)
        rot[:, idx[f"thigh.{leg}"], 0] = thigh
        rot[:, idx[f"shin.{leg}"], 0] = knee
        rot[:, idx[f"foot.{leg}"], 0] = -(thigh + knee)
        swing_frames[leg] = swing
        thigh_angles[leg] = thigh
    for leg, other in (("L", "R"), ("R", "L")):
        # each arm swings with the opposite leg
        th = thigh_angles[other]
        rot[:, idx[f"arm.{leg}"], 0] = gait.arm_ratio * (th - th.mean())
    rot[:, idx["torso"], 0] = -math.radians(gait.lean_deg)
    rot[:, idx["torso"], 1] = math.radians(gait.twist_deg) * np.sin(2 * math.pi * phi_left)
    facts = {
        "swing": {leg: swing_frames[leg].tolist() for leg in LEGS},
        "thigh_swing": {leg: float(np.ptp(thigh_angles[leg])) for leg in LEGS},
        "travel": float(hip_y[-1] - hip_y[0]),
    }
    return loc, rot, facts


def normalize_weights(parts: list[Part], n_vertices: int) -> np.ndarray:
    """Rigid skinning: each part's vertices weighted 1.0 to the part's bone."""
    w = np.zeros((n_vertices, len(BONE_NAMES)))
    for p in parts:
        w[p.start:p.stop, BONE_NAMES.index(p.bone)] = 1.0
    return w


def build_robot(rng: np.random.Generator) -> tuple[Rig, RobotParams, GaitParams, dict]:
    """A normal (defect-free) walking robot."""
    robot = sample_robot(rng)
    gait = sample_gait(rng, robot)
    bones, verts, faces, parts = build_rest(robot)
    loc, rot, facts = build_walk(robot, gait, bones)
    rig = Rig(bones, verts, faces, parts, normalize_weights(parts, len(verts)), loc, rot, FPS)
    return rig, robot, gait, facts


def params_dict(robot: RobotParams, gait: GaitParams) -> dict:
    return {"robot": asdict(robot), "gait": asdict(gait)}
