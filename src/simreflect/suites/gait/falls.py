"""What happens if the walk stops: the pose at one frame, frozen, falling as a rigid body in MuJoCo.

The pose at `frame` is frozen into ONE free rigid body with a convex mesh geom per part (MuJoCo takes
the convex hull of the part's deformed vertices), each with the part's mass. The body starts with its
lowest vertex on a ground plane at z=0 and the walk's CoM velocity at that frame, and is simulated
under gravity with friction. The frozen vertices are moved rigidly by the body's pose and sampled at
the rig's fps. Nothing is random and MuJoCo runs single-threaded, so the same rig and frame always
give the same bytes.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from simreflect.suites.gait.rig import Rig

TIMESTEP = 1.0 / 360.0
GRAVITY = 9.81
FRICTION = (1.0, 0.005, 0.0001)  # sliding, torsional, rolling
SOLREF = (0.006, 1.0)  # stiffer than the default 0.02 s: the robot lands with ~1 cm, not 2 cm, in the floor


def part_com(rig: Rig, verts: np.ndarray) -> np.ndarray:
    """Mass-weighted mean of the part centroids, as the verifier computes it: (..., V, 3) -> (..., 3)."""
    masses = np.array([p.mass for p in rig.parts])
    centroids = np.stack([verts[..., p.start:p.stop, :].mean(axis=-2) for p in rig.parts], axis=-2)
    return np.einsum("p,...pi->...i", masses, centroids) / masses.sum()


def _num(values: np.ndarray) -> str:
    return " ".join(repr(float(x)) for x in np.asarray(values, float).ravel())


def _solid(points: np.ndarray, thickness: float = 1e-3) -> np.ndarray:
    """The points, with copies pushed +-thickness/2 along their thinnest direction if they are (nearly)
    coplanar, so MuJoCo can build a convex hull with a volume (an edited rig may flatten a part)."""
    centered = points - points.mean(axis=0)
    _, sv, vt = np.linalg.svd(centered, full_matrices=False)
    if len(points) >= 4 and sv[-1] > thickness * math.sqrt(len(points)) * 0.1:
        return points
    normal = vt[-1] * (thickness / 2)
    return np.concatenate([points + normal, points - normal])


def fall_model_xml(rig: Rig, local: np.ndarray, start: np.ndarray) -> str:
    """MJCF of the frozen robot: `local` (V, 3) are the vertices in the body frame, `start` its position."""
    assets, geoms = [], []
    for i, p in enumerate(rig.parts):
        assets.append(f'<mesh name="m{i}" vertex="{_num(_solid(local[p.start:p.stop]))}"/>')
        rgba = " ".join(f"{c / 255:.4f}" for c in p.color) + " 1"
        geoms.append(f'<geom name="{p.name}" type="mesh" mesh="m{i}" mass="{p.mass!r}" rgba="{rgba}"/>')
    return f"""<mujoco model="fall">
  <option timestep="{TIMESTEP!r}" gravity="0 0 {-GRAVITY!r}" integrator="implicitfast"/>
  <default><geom friction="{_num(FRICTION)}" condim="3" solref="{_num(SOLREF)}"/></default>
  <asset>{''.join(assets)}</asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" friction="{_num(FRICTION)}"/>
    <body name="robot" pos="{_num(start)}">
      <freejoint name="root"/>
      {''.join(geoms)}
    </body>
  </worldbody>
</mujoco>"""


def simulate_fall(rig: Rig, frame: int, seconds: float = 1.5, fps: int | None = None) -> np.ndarray:
    """Vertex positions (n, V, 3) of the pose at `frame` falling for `seconds`, sampled at `fps`.

    Output frame k is the state (k + 1) / fps seconds after `frame` (n = round(seconds * fps)), so
    `concatenate([walk[:frame + 1], simulate_fall(rig, frame)])` plays on without a repeated frame.
    The body starts with its lowest vertex at z = 0 (the whole pose is shifted vertically by the
    rig's small gap or penetration, if any) and the CoM velocity of the walk between frame-1 and
    frame (frame 0 uses frames 0 and 1); it starts with no angular velocity.
    """
    fps = int(fps or rig.fps)
    f = int(frame)
    if not 0 <= f < rig.frame_count:
        raise IndexError(f"frame {frame} out of range 0..{rig.frame_count - 1}")
    a, b = (f - 1, f) if f > 0 else (0, min(1, rig.frame_count - 1))
    pose = rig.pose_matrices()
    verts = rig.skin(pose[[a, b, f]])
    frozen = verts[2]
    com = part_com(rig, verts)
    velocity = (com[1] - com[0]) * rig.fps

    start = com[2].copy()
    start[2] -= frozen[:, 2].min()  # feet on the floor
    local = frozen - com[2]
    model = mujoco.MjModel.from_xml_string(fall_model_xml(rig, local, start))
    data = mujoco.MjData(model)
    data.qvel[:3] = velocity

    n_out = max(1, int(round(seconds * fps)))
    out = np.empty((n_out, len(frozen), 3))
    step = 0
    for k in range(n_out):
        target = int(math.floor((k + 1) / (fps * TIMESTEP) + 1e-9))
        while step < target:
            mujoco.mj_step(model, data)
            step += 1
        rot = data.xmat[1].reshape(3, 3)
        out[k] = local @ rot.T + data.xpos[1]
    return out
