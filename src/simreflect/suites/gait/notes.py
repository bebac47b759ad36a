"""The text an agent reads: the task instruction and the fix-script interface notes per evidence level."""

from __future__ import annotations

from simreflect.core.evidence import EvidenceLevel
from simreflect.suites.gait.verify import LIMITS, ROTATION_LIMITS

INSTRUCTION = """\
A rigged humanoid robot (10 bones, 164 vertices, box parts, an orange face plate and chest plate on
its front) should walk forward (+Y) for 60 frames: thighs swing forward, shins bend back, the stance
foot stays planted, the hips travel forward. Its walk cycle is broken. Read the verifier report and
write a Python fix script that repairs the rig so that every check passes, without changing what
the walk is. The verifier re-runs the walk test on the rig your script leaves behind; PASS means
zero verifier errors.
"""


def _limits_table() -> str:
    rows = []
    for bone, axes in ROTATION_LIMITS.items():
        rows.append(f"  {bone}: " + ", ".join(f"{'XYZ'[k]} {lo:g}..{hi:g}" for k, (lo, hi) in axes.items()))
    return "\n".join(rows)


INTERFACE = f"""\
## The fix-script interface (Python 3, numpy available as `np`, `math` imported)
Your script runs with one global, `rig`, the episode's rig. Edit it in place; the edited rig is
verified after the script ends. Only keys (pose channels per frame) and vertex weights can be
changed: the bones, the rest mesh and the parts are fixed, and a rig whose structure changed is
rejected.

Axes and units: X is the robot's right, Y is forward (the walking direction), Z is up; metres and
radians. Like Blender, each bone has a rest frame whose local Y axis runs along the bone (head to
tail); a bone's `location` and `rotation_euler` (XYZ order) are expressed in that rest frame,
relative to its parent. Bones (parent first): hips (root, local axes = world axes), torso (child of
hips; local Y = world up), arm.L / arm.R (children of torso), thigh.L / thigh.R (children of hips),
shin.L / shin.R (children of the thighs), foot.L / foot.R (children of the shins). .L is the robot's
left (-X). For the legs and arms, rotation_euler.x is the swing in the walking plane: positive moves
the bone's tail forward, so a knee bends with negative shin X and a thigh swings forward with
positive X. Every frame 0..{{frames}} carries a key for every channel.

Reading and writing keys:
    rig.frame_count                                  # 60
    rig.bone_names                                   # ('hips', 'torso', ...)
    keys = rig.fcurve("shin.L", "rotation_euler")    # writable numpy view, shape (frames, 3)
    keys[20:31, 0] = keys[20 - period:31 - period, 0]  # e.g. copy X from frames of another cycle
    rig.fcurve("torso", "location")[:, 0] = 0.0
Blender-style, per frame:
    rig.frame_set(12)
    pb = rig.pose.bones["torso"]
    pb.rotation_euler[2] = 0.0                       # edits the key of frame 12
    pb.location = (0.0, 0.0, 0.0)
    pb.keyframe_insert("rotation_euler", frame=12)   # accepted; every frame is keyed already
Vertex groups (one per bone; weights 0..1; a vertex moves with the weighted average of its bones):
    vg = rig.vertex_groups["arm.R"]
    vg.vertices()                                    # indices with weight > 0
    vg.weight(37)                                    # raises if vertex 37 is not in the group
    vg.remove([37, 38])
    vg.add([37], 1.0, "REPLACE")                     # or "ADD" / "SUBTRACT"
    rig.weights                                      # (164, 10) numpy array, columns in bone order
Inspecting:
    rig.parts                                        # boxes: name, bone, vertex range start..stop, mass
    rig.world_vertices(frame)                        # skinned vertex positions (164, 3) at a frame
    rig.bone_axes(frame)                             # each bone's local X, Y, Z axes in world space
    rig.ancestors("shin.L"), rig.is_parent_or_child("torso", "arm.L")

## The verifier (seven checks; an error when ...)
- face_stretch: a face's area is > {LIMITS['face_stretch_max']:g}x or < {LIMITS['face_stretch_min']:g}x its rest-pose area
- weight_audit: a vertex carries weight on two bones that are not parent/child, or on no bone at all
- balance: the centre of mass's ground projection is > {LIMITS['balance_margin_m'] * 100:g} cm outside the support polygon
  (vertices within {LIMITS['contact_height_m'] * 100:g} cm of the floor) for {LIMITS['balance_frames']}+ consecutive frames
- ground_penetration: any vertex more than {LIMITS['penetration_m'] * 100:g} cm below the floor (z = 0)
- motion_continuity: a bone's own rotation channel changes by >= {LIMITS['jump_rotation_deg']:g} deg, or its location by
  >= {LIMITS['jump_location_m'] * 100:g} cm, in its frame-to-frame second difference
- joint_limits: local Euler limits in degrees, and the torso's tilt from vertical within +-{LIMITS['upper_body_tilt_deg']:g} deg:
{_limits_table()}
- walk_preserved: each thigh keeps >= {LIMITS['walk_swing_share'] * 100:g}% of its original swing, the hips keep >= {LIMITS['walk_travel_share'] * 100:g}% of their
  original forward travel, and the toes point ahead (within 60 deg of +Y) on every frame
"""

STRATEGIES = """\
## Repair strategies
- A walk cycle repeats: a channel that is wrong on some frames can often be restored from the same
  phase one cycle earlier (frame - period), or one cycle later if the earlier cycle is itself broken.
- A vertex weighted to a bone that is far away and neither parent nor child of its part's bone is a
  leak: remove it from that bone's vertex group and keep the part's own bone.
- Fix the cause, not the symptom: clamping a joint to its limit or lifting a foot out of the floor
  leaves the walk wrong; restore the normal pose. Keep every change smooth over frames.
"""


def interface_notes(level: EvidenceLevel, frames: int = 60) -> str:
    text = INTERFACE.replace("{frames}", str(frames - 1))
    if level >= EvidenceLevel.L3:
        text += "\n" + STRATEGIES
    return text
