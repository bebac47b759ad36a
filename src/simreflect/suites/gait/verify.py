"""The walk verifier: seven deterministic checks on a skinned, keyed rig.

All thresholds live in `LIMITS` (and the per-bone rotation limits in `ROTATION_LIMITS`). Every failed
check carries its measured value, the limit and where it failed (frames, bones, vertex indices), plus
level-tagged evidence for the report: level 2 adds vertex indices and bone distances, each involved
bone's deviation from the normal cycle at the worst frame (same phase one cycle earlier), bone axes in
world space and the frames of each motion jump; level 3 adds likely-leak-group verdicts.

The verifier reads the trusted episode (`WalkReference` and the rig as generated) and, from the
edited rig, only what a repair may change: keys and vertex weights. An edited rig whose structure
(bones, rest mesh, faces, parts, frame count) differs from the episode's is not verified at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from simreflect.core.verdict import Check, Detail, Verdict
from simreflect.suites.gait.rig import Rig

CHECK_NAMES = (
    "face_stretch",
    "weight_audit",
    "balance",
    "ground_penetration",
    "motion_continuity",
    "joint_limits",
    "walk_preserved",
)

LIMITS = {
    "face_stretch_max": 1.5,  # face area / rest area
    "face_stretch_min": 0.4,
    "balance_margin_m": 0.05,  # CoM ground projection this far outside the support polygon ...
    "balance_frames": 6,  # ... for this many consecutive frames is an error
    "upper_body_offset_m": 0.05,  # upper-body CoM this far (horizontally) from its joint on the hips, any frame
    "joint_separation_m": 0.01,  # any bone's head this far from its joint on its parent, any frame
    "contact_height_m": 0.01,  # vertices at or below this height touch the ground
    "penetration_m": 0.02,  # any vertex deeper than this below the floor
    "jump_rotation_deg": 15.0,  # second difference of a bone's own rotation channel
    "jump_location_m": 0.04,  # norm of the second difference of a bone's own location
    "upper_body_tilt_deg": 20.0,  # torso axis from the vertical
    "walk_swing_share": 0.5,  # thigh swing must keep half the original
    "walk_travel_share": 0.5,  # hips must keep half the original forward travel
    "toes_ahead_cos": 0.5,  # toe direction within 60 deg of forward on every frame
}

# Local Euler limits (degrees) per bone and axis, as a rig spec would put them on the bones.
# The reference's three: knee (shin X) -150..+5, thigh X -50..+60, upper-body tilt +-20 (world).
ROTATION_LIMITS: dict[str, dict[int, tuple[float, float]]] = {
    "thigh.L": {0: (-50.0, 60.0), 1: (-30.0, 30.0), 2: (-30.0, 30.0)},
    "thigh.R": {0: (-50.0, 60.0), 1: (-30.0, 30.0), 2: (-30.0, 30.0)},
    "shin.L": {0: (-150.0, 5.0), 1: (-10.0, 10.0), 2: (-10.0, 10.0)},
    "shin.R": {0: (-150.0, 5.0), 1: (-10.0, 10.0), 2: (-10.0, 10.0)},
    "foot.L": {0: (-60.0, 60.0), 1: (-20.0, 20.0), 2: (-20.0, 20.0)},
    "foot.R": {0: (-60.0, 60.0), 1: (-20.0, 20.0), 2: (-20.0, 20.0)},
    "arm.L": {0: (-80.0, 80.0), 1: (-45.0, 45.0), 2: (-45.0, 45.0)},
    "arm.R": {0: (-80.0, 80.0), 1: (-45.0, 45.0), 2: (-45.0, 45.0)},
}
AXES = "XYZ"


@dataclass(frozen=True)
class WalkReference:
    """Trusted facts about an episode's normal walk that the verifier compares against."""

    period: int
    thigh_swing: dict[str, float]  # radians, per leg, of the normal walk
    travel: float  # metres the hips travel forward in the normal walk

    def to_dict(self) -> dict[str, Any]:
        return {"period": self.period, "thigh_swing": self.thigh_swing, "travel": self.travel}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> WalkReference:
        return cls(int(d["period"]), {k: float(v) for k, v in d["thigh_swing"].items()}, float(d["travel"]))


# ----- shared evaluation ---------------------------------------------------------------------------

class Evaluation:
    """Everything the checks share, computed once per verification."""

    def __init__(self, rig: Rig, ref: WalkReference):
        self.rig = rig
        self.ref = ref
        self.pose = rig.pose_matrices()
        self.verts = rig.skin(self.pose)
        self.rot_deg = np.degrees(rig.rotation_euler)

    def com(self) -> np.ndarray:
        masses = np.array([p.mass for p in self.rig.parts])
        centroids = np.stack([self.verts[:, p.start:p.stop].mean(axis=1) for p in self.rig.parts], axis=1)
        return np.einsum("p,fpi->fi", masses, centroids) / masses.sum()

    def cycle_deviation(self, frame: int, bones: list[str]) -> str:
        """Each bone's channels at `frame` minus the same phase one cycle earlier (or later)."""
        p = self.ref.period
        other = frame - p if frame - p >= 0 else frame + p
        if not 0 <= other < self.rig.frame_count:
            return ""
        rows = [f"deviation from the same phase one cycle {'earlier' if other < frame else 'later'} "
                f"(frame {frame} vs {other}):"]
        travel = np.median(self.rig.location[p:, 0] - self.rig.location[:-p, 0], axis=0)
        for name in bones:
            i = self.rig.bone_index(name)
            drot = _wrap_deg(self.rot_deg[frame, i] - self.rot_deg[other, i])
            dloc = self.rig.location[frame, i] - self.rig.location[other, i]
            if i == 0:  # the root travels forward each cycle; compare it without that travel
                dloc = dloc - travel * np.sign(frame - other)
            rows.append(
                f"  {name}: rotation_euler d(X,Y,Z) = ({drot[0]:+.1f}, {drot[1]:+.1f}, {drot[2]:+.1f}) deg, "
                f"location d = ({dloc[0]:+.3f}, {dloc[1]:+.3f}, {dloc[2]:+.3f}) m"
            )
        return "\n".join(rows)

    def axes_text(self, frame: int, bones: list[str]) -> str:
        rows = [f"bone axes in world space at frame {frame} (local X, Y, Z):"]
        for name in bones:
            m = self.pose[frame, self.rig.bone_index(name), :3, :3]
            cols = ", ".join(f"{AXES[k]}=({m[0, k]:+.2f},{m[1, k]:+.2f},{m[2, k]:+.2f})" for k in range(3))
            rows.append(f"  {name}: {cols}")
        return "\n".join(rows)

    def context(self, frame: int, bones: list[str]) -> tuple[Detail, ...]:
        bones = list(dict.fromkeys(bones))
        out = []
        dev = self.cycle_deviation(frame, bones)
        if dev:
            out.append(Detail(2, dev))
        out.append(Detail(2, self.axes_text(frame, bones)))
        return tuple(out)


def _wrap_deg(a: np.ndarray) -> np.ndarray:
    return (np.asarray(a) + 180.0) % 360.0 - 180.0


def _frames_text(frames: list[int], limit: int = 20) -> str:
    frames = sorted(set(int(f) for f in frames))
    if not frames:
        return "-"
    runs, start, prev = [], frames[0], frames[0]
    for f in frames[1:] + [None]:
        if f is not None and f == prev + 1:
            prev = f
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if f is not None:
            start = prev = f
    text = ", ".join(runs[:limit])
    return text + (" ..." if len(runs) > limit else "")


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs of True as (first, last) frame pairs."""
    out, start = [], None
    for i, v in enumerate(list(mask) + [False]):
        if v and start is None:
            start = i
        elif not v and start is not None:
            out.append((start, i - 1))
            start = None
    return out


# ----- the seven checks ----------------------------------------------------------------------------

def face_areas(verts: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Area of each quad (as two triangles) for vertices (..., V, 3)."""
    a, b, c, d = (verts[..., faces[:, k], :] for k in range(4))
    t1 = np.linalg.norm(np.cross(b - a, c - a), axis=-1)
    t2 = np.linalg.norm(np.cross(c - a, d - a), axis=-1)
    return 0.5 * (t1 + t2)


def check_face_stretch(ev: Evaluation) -> Check:
    rest = face_areas(ev.rig.rest_vertices, ev.rig.faces)
    ratio = face_areas(ev.verts, ev.rig.faces) / rest
    hi, lo = LIMITS["face_stretch_max"], LIMITS["face_stretch_min"]
    bad = (ratio > hi) | (ratio < lo)
    limit = f"{lo:g}x..{hi:g}x of rest area"
    if not bad.any():
        worst = float(ratio.max())
        return Check("face_stretch", True, worst, limit, "x rest area")
    dev = np.where(ratio > 1, ratio, 1 / np.maximum(ratio, 1e-12))
    dev = np.where(bad, dev, 0)
    f, face = np.unravel_index(np.argmax(dev), dev.shape)
    faces = sorted(set(np.flatnonzero(bad.any(axis=0)).tolist()))
    frames = sorted(set(np.flatnonzero(bad.any(axis=1)).tolist()))
    verts = sorted(set(ev.rig.faces[faces].ravel().tolist()))
    parts = sorted({ev.rig.part_of_vertex(v).name for v in verts})
    worst = float(ratio[f, face])
    details = [Detail(2, f"stretched faces {faces[:24]}{' ...' if len(faces) > 24 else ''}; their vertices {verts[:40]}"
                         f"{' ...' if len(verts) > 40 else ''}")]
    bones = sorted({b for v in verts for b in _weighted_bones(ev.rig, v)})
    details += ev.context(int(f), bones)
    return Check(
        "face_stretch", False, worst, limit, "x rest area",
        f"{len(faces)} face(s) of part(s) {', '.join(parts)} stretched to {worst:.2f}x their rest area "
        f"(worst face {int(face)} at frame {int(f)}); frames {_frames_text(frames)}",
        {"faces": faces, "frames": frames, "vertices": verts, "parts": parts, "worst_frame": int(f)},
        tuple(details),
    )


def _weighted_bones(rig: Rig, v: int) -> list[str]:
    return [rig.bone_names[i] for i in np.flatnonzero(rig.weights[v] > 0)]


def _point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def check_weight_audit(ev: Evaluation) -> Check:
    rig = ev.rig
    flagged: list[dict[str, Any]] = []
    unweighted = np.flatnonzero(rig.weights.sum(axis=1) <= 0).tolist()
    for v in range(len(rig.rest_vertices)):
        bones = _weighted_bones(rig, v)
        for i, a in enumerate(bones):
            for b in bones[i + 1:]:
                if not rig.is_parent_or_child(a, b):
                    flagged.append({"vertex": v, "bones": [a, b]})
    limit = "weights only on one bone or on a parent/child pair; every vertex weighted"
    if not flagged and not unweighted:
        return Check("weight_audit", True, 0.0, limit, "vertices")
    verts = sorted({f["vertex"] for f in flagged})
    pairs = sorted({tuple(f["bones"]) for f in flagged})
    msg = []
    if verts:
        msg.append(f"{len(verts)} vertex(es) carry weight on bones that are not parent/child: "
                   + "; ".join(f"{a} + {b}" for a, b in pairs))
    if unweighted:
        msg.append(f"{len(unweighted)} vertex(es) have no weight at all")
    rows = []
    heads = {b.name: np.array(b.head) for b in rig.bones}
    tails = {b.name: np.array(b.tail) for b in rig.bones}
    for v in verts[:40]:
        p = rig.rest_vertices[v]
        parts = ", ".join(
            f"{b} w={rig.weights[v, rig.bone_index(b)]:.2f} at {_point_segment_distance(p, heads[b], tails[b]):.2f} m"
            for b in _weighted_bones(rig, v)
        )
        rows.append(f"vertex {v} (part {rig.part_of_vertex(v).name}): {parts}")
    details = []
    if rows:
        details.append(Detail(2, "flagged vertices, each bone's weight and the vertex's rest distance to that bone:\n"
                                 + "\n".join(rows) + ("\n..." if len(verts) > 40 else "")))
    if unweighted:
        details.append(Detail(2, f"unweighted vertices: {unweighted[:40]}{' ...' if len(unweighted) > 40 else ''}"))
    hints = []
    for part in {rig.part_of_vertex(v).name for v in verts}:
        group = [v for v in verts if rig.part_of_vertex(v).name == part]
        own = next(p.bone for p in rig.parts if p.name == part)
        foreign = sorted({b for v in group for b in _weighted_bones(rig, v) if b != own})
        hints.append(f"likely leak group: vertices {group} of part '{part}' belong to bone '{own}'; "
                     f"their weight on {', '.join(repr(b) for b in foreign)} is likely a leak")
    if hints:
        details.append(Detail(3, "\n".join(sorted(hints))))
    return Check(
        "weight_audit", False, float(len(verts) + len(unweighted)), limit, "vertices", "; ".join(msg),
        {"vertices": verts, "bone_pairs": [list(p) for p in pairs], "unweighted": unweighted},
        tuple(details),
    )


def _cross2(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def convex_hull(points: np.ndarray) -> np.ndarray:
    """2D convex hull (Andrew's monotone chain), counter-clockwise, no repeated end point."""
    pts = np.unique(np.round(points, 12), axis=0)
    if len(pts) <= 2:
        return pts
    pts = pts[np.lexsort((pts[:, 1], pts[:, 0]))]

    def half(seq):
        out: list[np.ndarray] = []
        for p in seq:
            while len(out) >= 2 and _cross2(out[-1] - out[-2], p - out[-2]) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def distance_outside(point: np.ndarray, hull: np.ndarray) -> float:
    """Distance from a 2D point to a convex polygon (0 inside); inf without any point."""
    if len(hull) == 0:
        return math.inf
    if len(hull) == 1:
        return float(np.linalg.norm(point - hull[0]))
    if len(hull) == 2:
        return _point_segment_distance(np.append(point, 0), np.append(hull[0], 0), np.append(hull[1], 0))
    edges = np.roll(hull, -1, axis=0) - hull
    rel = point - hull
    inside = np.all(edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0] >= 0)
    if inside:
        return 0.0
    return min(_point_segment_distance(np.append(point, 0), np.append(a, 0), np.append(b, 0))
               for a, b in zip(hull, np.roll(hull, -1, axis=0)))


def support_distances(ev: Evaluation) -> np.ndarray:
    com = ev.com()
    out = np.empty(ev.rig.frame_count)
    for f in range(ev.rig.frame_count):
        contact = ev.verts[f, ev.verts[f, :, 2] <= LIMITS["contact_height_m"], :2]
        out[f] = distance_outside(com[f, :2], convex_hull(contact) if len(contact) else contact)
    return out


def joint_separations(rig: Rig, pose: np.ndarray) -> np.ndarray:
    """(frames, bones): how far each bone's head is, in world space, from its joint on its parent
    (where the parent's pose puts it); 0 for the root, whose travel is the walk. `pose`:
    rig.pose_matrices().

    The normal walk keys a translation on no bone but the root, so a body that holds together
    separates nowhere: over 9,000 normal walks (the 30 episodes of master seeds 0-99, regenerations
    0-2 each) the largest separation is 0.0 m exactly. LIMITS["joint_separation_m"] puts a 1 cm
    margin on that: room for float rounding (a Blender round trip keeps keys as float32) and for keys
    a repair computes, and 18x below the smallest planted slide (0.18 m).
    """
    out = np.zeros((rig.frame_count, len(rig.bones)))
    for i in range(1, len(rig.bones)):
        out[:, i] = np.linalg.norm(pose[:, i, :3, 3] - _joint(rig, pose, i), axis=1)
    return out


def _joint(rig: Rig, pose: np.ndarray, bone: int) -> np.ndarray:
    """(frames, 3): where bone `bone`'s head belongs on its parent at every frame."""
    p = rig.parent_index[bone]
    return (pose[:, p] @ (np.linalg.inv(rig.rest_matrices[p]) @ rig.rest_matrices[bone]))[:, :3, 3]


def upper_body_offsets(rig: Rig, pose: np.ndarray) -> np.ndarray:
    """(frames,): horizontal distance from the torso's joint on the hips to the upper body's centre
    of mass (the parts of the torso and of the bones below it, each moved rigidly by its own bone,
    so vertex weights do not enter: the weight audit judges those). `pose`: rig.pose_matrices().

    The normal walk's upper body leans 2-5 deg forward and swings its arms: over the same 9,000
    normal walks as `joint_separations` the largest offset on any frame is 0.0315 m (the 99th
    percentile of the walks' maxima 0.0287 m, their median 0.0199 m). LIMITS["upper_body_offset_m"]
    = 5 cm keeps a margin of 1.85 cm (59%) above that maximum: a sideways lean of 9-10 deg, or 5 deg
    more forward lean than the walk's own, reaches it; the planted defects (38-50 deg, 0.18-0.26 m)
    are 4x beyond it. (Measured by building each walk with robot.build_robot from
    SeedSequence([seed, episode, regeneration]), as episodes.build_episode does.)
    """
    torso = rig.bone_index("torso")
    upper = {i for i, name in enumerate(rig.bone_names) if "torso" in rig.ancestors(name)}
    parts = [p for p in rig.parts if rig.bone_index(p.bone) in upper]
    deform = pose @ np.linalg.inv(rig.rest_matrices)
    masses = np.array([p.mass for p in parts])
    centres = [np.append(rig.rest_vertices[p.start:p.stop].mean(axis=0), 1.0) for p in parts]
    moved = np.stack([deform[:, rig.bone_index(p.bone)] @ c for p, c in zip(parts, centres)], axis=1)[..., :3]
    com = np.einsum("p,fpi->fi", masses, moved) / masses.sum()
    return np.linalg.norm((com - _joint(rig, pose, torso))[:, :2], axis=1)


def _over(values: np.ndarray, limit: float) -> dict[str, Any] | None:
    """Frames of `values` above `limit`, the worst frame and value (None when none is above). A value
    that is not a number (a rig keyed out to overflow) counts as infinitely far."""
    values = np.where(np.isnan(values), np.inf, values)
    frames = np.flatnonzero(values > limit)
    if not frames.size:
        return None
    f = int(np.argmax(values))
    return {"frames": frames.tolist(), "worst_frame": f, "value": float(values[f])}


def _per_frame_cm(values: np.ndarray, frames: list[int]) -> str:
    return ", ".join(f"{f}:{values[f] * 100:.1f}cm" for f in frames[:30])


def check_balance(ev: Evaluation) -> Check:
    """The centre of mass over the feet, the upper body over the hips, every bone on its joint.

    The first rule is the reference's (CoM > margin outside the support polygon for
    `balance_frames` consecutive frames). Alone it let an upper body slid off the hips pass when it
    was restored only around the frames the rule flagged (a 6-frame smooth blend): double support
    widens the polygon and splits the runs, so the torso stayed 0.19-0.26 m off the hips on the
    other frames, on every slide episode. The second rule bounds how far the upper body's centre of
    mass is from its joint on the hips on any frame, by what the normal walk does
    (`upper_body_offsets`); the third fails any bone off its joint (`joint_separations`), so a
    slid upper body cannot be hidden by sliding the legs under it either. Balance is extended rather
    than an eighth check added: the verifier keeps the reference's seven checks, a slide or lean is
    the balance defect, and restoring the upper body is its repair.
    """
    rig = ev.rig
    dist = support_distances(ev)
    margin, need = LIMITS["balance_margin_m"], LIMITS["balance_frames"]
    runs = [r for r in _runs(dist > margin) if r[1] - r[0] + 1 >= need]
    upper = upper_body_offsets(rig, ev.pose)
    off_hips = _over(upper, LIMITS["upper_body_offset_m"])
    sep = joint_separations(rig, ev.pose)
    detached = []
    for b in range(1, len(rig.bones)):
        over = _over(sep[:, b], LIMITS["joint_separation_m"])
        if over is not None:
            detached.append({"bone": rig.bone_names[b], "joint_on": rig.bone_names[rig.parent_index[b]], **over})
    limit = (f"CoM <= {margin * 100:g} cm outside the support polygon, or for fewer than {need} consecutive frames; "
             f"upper-body CoM within {LIMITS['upper_body_offset_m'] * 100:g} cm of its joint on the hips; "
             f"every bone within {LIMITS['joint_separation_m'] * 100:g} cm of its joint")
    finite = np.where(np.isfinite(dist), dist, np.nan)
    worst_val = float(np.nanmax(finite)) if np.isfinite(finite).any() else None
    if not runs and off_hips is None and not detached:
        return Check("balance", True, worst_val, limit, "m outside")
    messages: list[str] = []
    details: list[Detail] = []
    where: dict[str, Any] = {"runs": [list(r) for r in runs]}
    frames: set[int] = set()
    found: list[tuple[float | None, int, str]] = []  # (value, frame, unit) of each failed rule, first rule first
    if runs:
        in_runs = [f for a, b in runs for f in range(a, b + 1)]
        frames.update(in_runs)
        no_contact = [f for f in in_runs if not np.isfinite(dist[f])]
        worst_frame = max(in_runs, key=lambda f: dist[f] if np.isfinite(dist[f]) else -1.0)
        worst = float(dist[worst_frame]) if np.isfinite(dist[worst_frame]) else None
        msg = "the centre of mass is outside the feet on frames " + \
            ", ".join(f"{a}-{b} ({b - a + 1} frames)" for a, b in runs)
        if worst is not None:
            msg += f"; worst {worst * 100:.1f} cm outside at frame {worst_frame}"
        if no_contact:
            msg += f"; no vertex touches the ground on frames {_frames_text(no_contact)}"
        messages.append(msg)
        com = ev.com()
        details.append(Detail(2, f"CoM ground projection at frame {worst_frame}: "
                                 f"({com[worst_frame, 0]:+.3f}, {com[worst_frame, 1]:+.3f}) m; distance outside per "
                                 "frame: " + ", ".join(f"{f}:{'none' if not np.isfinite(dist[f]) else f'{dist[f] * 100:.1f}cm'}"
                                                      for f in in_runs[:30])))
        where["first_frame"] = runs[0][0]
        found.append((worst, worst_frame, "m outside"))
    if off_hips is not None:
        where["upper_body"] = off_hips
        frames.update(off_hips["frames"])
        messages.append(f"the upper body's centre of mass is up to {off_hips['value'] * 100:.1f} cm off its joint on the "
                        f"hips (frame {off_hips['worst_frame']}) on frames {_frames_text(off_hips['frames'])}")
        details.append(Detail(2, "upper-body CoM, horizontal distance from its joint on the hips per frame: "
                                 + _per_frame_cm(upper, off_hips["frames"])))
        found.append((off_hips["value"], off_hips["worst_frame"], "m off the hips"))
    if detached:
        where["detached"] = detached
        for d in detached:
            frames.update(d["frames"])
            messages.append(f"{d['bone']} is off its joint on {d['joint_on']} by up to {d['value'] * 100:.1f} cm "
                            f"(frame {d['worst_frame']}) on frames {_frames_text(d['frames'])}")
        details.append(Detail(2, "joint separation (bone head to its joint on the parent) per frame:\n" + "\n".join(
            f"  {d['bone']}: " + _per_frame_cm(sep[:, rig.bone_index(d['bone'])], d["frames"]) for d in detached)))
        top = max(detached, key=lambda d: d["value"])
        found.append((top["value"], top["worst_frame"], "m off the joint"))
    value, worst_frame, unit = found[0]
    details += ev.context(worst_frame, ["hips", "torso", "thigh.L", "thigh.R"] + [d["bone"] for d in detached])
    where.update(frames=sorted(frames), worst_frame=worst_frame)
    return Check("balance", False, value, limit, unit, "; ".join(messages), where, tuple(details))


def check_ground_penetration(ev: Evaluation) -> Check:
    z = ev.verts[..., 2]
    limit_m = LIMITS["penetration_m"]
    deepest = float(-z.min())
    limit = f"no vertex more than {limit_m * 100:g} cm below the floor"
    bad = z < -limit_m
    if not bad.any():
        return Check("ground_penetration", True, deepest, limit, "m deep")
    frames = np.flatnonzero(bad.any(axis=1)).tolist()
    verts = np.flatnonzero(bad.any(axis=0)).tolist()
    parts = sorted({ev.rig.part_of_vertex(v).name for v in verts})
    f, v = np.unravel_index(np.argmin(z), z.shape)
    bones = sorted({b for vv in verts for b in _weighted_bones(ev.rig, vv)})
    chain = sorted({a for b in bones for a in ev.rig.ancestors(b)})
    details = [Detail(2, f"vertices below the floor: {verts[:40]}{' ...' if len(verts) > 40 else ''} "
                         f"(parts {', '.join(parts)}); deepest vertex {int(v)} at frame {int(f)}")]
    details += ev.context(int(f), chain)
    return Check("ground_penetration", False, deepest, limit, "m deep",
                 f"part(s) {', '.join(parts)} go {deepest * 100:.1f} cm into the floor on frames {_frames_text(frames)}",
                 {"frames": frames, "vertices": verts, "parts": parts, "bones": bones, "worst_frame": int(f)},
                 tuple(details))


def check_motion_continuity(ev: Evaluation) -> Check:
    rig = ev.rig
    first = _wrap_deg(np.diff(ev.rot_deg, axis=0))
    rot2 = np.abs(np.diff(first, axis=0))  # (F-2, B, 3), centred on frames 1..F-2
    loc2 = np.linalg.norm(np.diff(rig.location, 2, axis=0), axis=-1)  # (F-2, B)
    lr, ll = LIMITS["jump_rotation_deg"], LIMITS["jump_location_m"]
    limit = f"second difference < {lr:g} deg (rotation), < {ll * 100:g} cm (location)"
    jumps = []
    for f, b, k in zip(*np.nonzero(rot2 >= lr)):
        jumps.append({"bone": rig.bone_names[b], "channel": f"rotation_euler.{AXES[k]}", "frame": int(f) + 1,
                      "value": float(rot2[f, b, k]), "unit": "deg"})
    for f, b in zip(*np.nonzero(loc2 >= ll)):
        jumps.append({"bone": rig.bone_names[b], "channel": "location", "frame": int(f) + 1,
                      "value": float(loc2[f, b]), "unit": "m"})
    worst_rot = float(rot2.max()) if rot2.size else 0.0
    if not jumps:
        return Check("motion_continuity", True, worst_rot, limit, "deg")
    jumps.sort(key=lambda j: (j["bone"], j["channel"], j["frame"]))
    worst = max(jumps, key=lambda j: j["value"] / (lr if j["unit"] == "deg" else ll))
    bones = sorted({j["bone"] for j in jumps})
    frames = sorted({j["frame"] for j in jumps})
    by_channel: dict[tuple[str, str], list[int]] = {}
    for j in jumps:
        by_channel.setdefault((j["bone"], j["channel"]), []).append(j["frame"])
    rows = [f"{b} {c}: jumps at frames {_frames_text(fs)}" for (b, c), fs in sorted(by_channel.items())]
    details = [Detail(2, "frames of each motion jump:\n" + "\n".join(rows))]
    details += ev.context(worst["frame"], bones)
    unit = "deg" if worst["unit"] == "deg" else "m"
    return Check("motion_continuity", False, worst["value"], limit, unit,
                 f"{len(jumps)} jump(s) in bone(s) {', '.join(bones)}; worst {worst['bone']} {worst['channel']} "
                 f"{worst['value']:.3g} {unit} at frame {worst['frame']}",
                 {"jumps": jumps[:200], "bones": bones, "frames": frames, "worst_frame": worst["frame"]},
                 tuple(details))


def torso_tilt_deg(ev: Evaluation) -> np.ndarray:
    axis = ev.pose[:, ev.rig.bone_index("torso"), :3, 1]  # the torso's own Y axis (along the bone)
    return np.degrees(np.arccos(np.clip(axis[:, 2] / np.linalg.norm(axis, axis=1), -1, 1)))


def check_joint_limits(ev: Evaluation) -> Check:
    violations = []
    for name, axes in ROTATION_LIMITS.items():
        i = ev.rig.bone_index(name)
        for k, (lo, hi) in axes.items():
            vals = _wrap_deg(ev.rot_deg[:, i, k])
            bad = (vals < lo) | (vals > hi)
            if bad.any():
                over = np.maximum(vals - hi, lo - vals)
                f = int(np.argmax(np.where(bad, over, -np.inf)))
                violations.append({"bone": name, "channel": f"rotation_euler.{AXES[k]}", "limit": [lo, hi],
                                   "frames": np.flatnonzero(bad).tolist(), "worst_frame": f,
                                   "value": float(vals[f]), "excess": float(over[f])})
    tilt = torso_tilt_deg(ev)
    tmax = LIMITS["upper_body_tilt_deg"]
    if (tilt > tmax).any():
        f = int(np.argmax(tilt))
        violations.append({"bone": "torso", "channel": "tilt from vertical", "limit": [-tmax, tmax],
                           "frames": np.flatnonzero(tilt > tmax).tolist(), "worst_frame": f,
                           "value": float(tilt[f]), "excess": float(tilt[f] - tmax)})
    limit = "knee (shin X) -150..+5, thigh X -50..+60, upper-body tilt +-20 deg; full table in the interface notes"
    if not violations:
        return Check("joint_limits", True, 0.0, limit, "deg over")
    worst = max(violations, key=lambda v: v["excess"])
    rows = [f"{v['bone']} {v['channel']} = {v['value']:+.1f} deg (limit {v['limit'][0]:g}..{v['limit'][1]:g}) "
            f"on frames {_frames_text(v['frames'])}" for v in violations]
    details = list(ev.context(worst["worst_frame"], [v["bone"] for v in violations]))
    return Check("joint_limits", False, worst["excess"], limit, "deg over", "; ".join(rows),
                 {"violations": violations, "bones": sorted({v["bone"] for v in violations}),
                  "worst_frame": worst["worst_frame"]}, tuple(details))


def check_walk_preserved(ev: Evaluation) -> Check:
    rig, ref = ev.rig, ev.ref
    problems = []
    shares = []
    for leg, orig in ref.thigh_swing.items():
        swing = float(np.ptp(np.radians(_wrap_deg(ev.rot_deg[:, rig.bone_index(f"thigh.{leg}"), 0]))))
        share = swing / orig if orig > 0 else 0.0
        shares.append(share)
        if share < LIMITS["walk_swing_share"]:
            problems.append(f"thigh.{leg} swings {math.degrees(swing):.1f} deg, "
                            f"{share * 100:.0f}% of the original {math.degrees(orig):.1f} deg")
    hips_y = ev.pose[:, rig.bone_index("hips"), 1, 3]
    travel = float(hips_y[-1] - hips_y[0])
    shares.append(travel / ref.travel)
    if travel < LIMITS["walk_travel_share"] * ref.travel:
        problems.append(f"the hips travel {travel:+.2f} m forward, the original walk {ref.travel:.2f} m")
    toes = {leg: ev.pose[:, rig.bone_index(f"foot.{leg}"), :3, 1] for leg in ("L", "R")}
    back = sorted({f for leg in toes for f in np.flatnonzero(toes[leg][:, 1] < LIMITS["toes_ahead_cos"]).tolist()})
    if back:
        problems.append(f"the toes do not point ahead (within 60 deg of +Y) on frames {_frames_text(back)}")
    limit = "thigh swing >= 50% and forward travel >= 50% of the original; toes ahead"
    value = float(min(shares))
    if not problems:
        return Check("walk_preserved", True, value, limit, "share of original")
    return Check("walk_preserved", False, value, limit, "share of original", "; ".join(problems),
                 {"frames": back, "travel": travel})


CHECKS = (
    check_face_stretch,
    check_weight_audit,
    check_balance,
    check_ground_penetration,
    check_motion_continuity,
    check_joint_limits,
    check_walk_preserved,
)


def structure_mismatch(trusted: Rig, edited: Rig) -> str:
    """Why an edited rig is not a repair of the trusted one ('' when only keys and weights changed)."""
    if edited.bone_names != trusted.bone_names:
        return f"bones changed: expected {list(trusted.bone_names)}, got {list(edited.bone_names)}"
    if any(a != b for a, b in zip(edited.bones, trusted.bones)):
        return "bone rest positions or parents changed"
    if edited.rest_vertices.shape != trusted.rest_vertices.shape or not np.array_equal(edited.rest_vertices, trusted.rest_vertices):
        return f"rest mesh changed ({len(edited.rest_vertices)} vertices, expected {len(trusted.rest_vertices)} unchanged)"
    if edited.faces.shape != trusted.faces.shape or not np.array_equal(edited.faces, trusted.faces):
        return "faces changed"
    if edited.parts != trusted.parts:
        return "parts (mass, vertex ranges) changed"
    if edited.frame_count != trusted.frame_count:
        return f"frame count changed: {edited.frame_count}, expected {trusted.frame_count}"
    return ""


def verify_rig(rig: Rig, ref: WalkReference, trusted: Rig | None = None) -> Verdict:
    """Run the seven checks. With `trusted`, first require the edited rig to keep its structure."""
    if trusted is not None:
        reason = structure_mismatch(trusted, rig)
        if reason:
            return Verdict.invalid_artefact(f"the rig is not a repair of the episode's rig: {reason}")
    ev = Evaluation(rig, ref)
    checks = tuple(check(ev) for check in CHECKS)
    passed = sum(c.passed for c in checks)
    score = passed / len(checks)
    return Verdict(checks, score=score, reward=1.0 if passed == len(checks) else 0.0)
