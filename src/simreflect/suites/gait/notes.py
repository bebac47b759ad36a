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


VERIFIER = f"""\
## The verifier (seven checks; an error when ...)
- face_stretch: a face's area is > {LIMITS['face_stretch_max']:g}x or < {LIMITS['face_stretch_min']:g}x its rest-pose area
- weight_audit: a vertex carries weight on two bones that are not parent/child, or on no bone at all
- balance: the centre of mass's ground projection is > {LIMITS['balance_margin_m'] * 100:g} cm outside the support polygon
  (vertices within {LIMITS['contact_height_m'] * 100:g} cm of the floor) for {LIMITS['balance_frames']}+ consecutive frames; or, on any frame,
  the upper body (torso, head, arms) has its centre of mass > {LIMITS['upper_body_offset_m'] * 100:g} cm (horizontally) from its joint on
  the hips, more than the normal walk's lean and arm swing ever put it; or any bone's head is > {LIMITS['joint_separation_m'] * 100:g} cm
  from its joint on its parent (the normal walk translates no bone but the hips)
- ground_penetration: any vertex more than {LIMITS['penetration_m'] * 100:g} cm below the floor (z = 0)
- motion_continuity: a bone's own rotation channel changes by >= {LIMITS['jump_rotation_deg']:g} deg, or its location by
  >= {LIMITS['jump_location_m'] * 100:g} cm, in its frame-to-frame second difference
- joint_limits: local Euler limits in degrees, and the torso's tilt from vertical within +-{LIMITS['upper_body_tilt_deg']:g} deg:
{_limits_table()}
- walk_preserved: each thigh keeps >= {LIMITS['walk_swing_share'] * 100:g}% of its original swing, the hips keep >= {LIMITS['walk_travel_share'] * 100:g}% of their
  original forward travel, and the toes point ahead (within 60 deg of +Y) on every frame
"""

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

""" + VERIFIER

INSTRUCTION_BLENDER = """\
A rigged humanoid robot (10 bones, 164 vertices, box parts, an orange face plate and chest plate on
its front) should walk forward (+Y) for 60 frames: thighs swing forward, shins bend back, the stance
foot stays planted, the hips travel forward. Its walk cycle is broken. Read the verifier report and
write a bpy script that Blender runs on the robot's .blend file to repair it so that every check
passes, without changing what the walk is. The verifier re-runs the walk test on the file your script
leaves behind; PASS means zero verifier errors.
"""

BLENDER_INTERFACE = f"""\
## The fix-script interface (a bpy script run by Blender 5 in the background)
Your script runs inside Blender 5.0 (Python 3.11) with the episode's file already open; `bpy`,
`mathutils`, `math` and `np` (numpy) are imported. Edit the data in place and do not open, reset
or save files yourself: the file is saved after your script ends (a script that raises saves
nothing) and the verifier reads it back. Only keys (pose channels per frame) and vertex weights can
be changed: the bones, the rest mesh, the parts (materials) and the frame range are fixed, and a
file whose structure changed is rejected.

The file: `bpy.data.objects["rig"]` (the armature, at the origin, with the action "walk"),
`bpy.data.objects["body"]` (the mesh: an Armature modifier, one vertex group per bone, one material
per part), scene frames 0..{{frames}} at 24 fps. Every frame 0..{{frames}} carries a LINEAR key for every
channel, so the value at a frame is its key.

Axes and units: X is the robot's right, Y is forward (the walking direction), Z is up; metres and
radians. Each bone's rest frame has its local Y axis along the bone (head to tail), roll 0; a pose
bone's `location` and `rotation_euler` (rotation_mode 'XYZ') are in that rest frame, relative to its
parent. Bones (parent first): hips (root, local axes = world axes), torso (child of hips; local Y =
world up), arm.L / arm.R (children of torso), thigh.L / thigh.R (children of hips), shin.L / shin.R
(children of the thighs), foot.L / foot.R (children of the shins). .L is the robot's left (-X). For
the legs and arms, rotation_euler.x is the swing in the walking plane: positive moves the bone's tail
forward, so a knee bends with negative shin X and a thigh swings forward with positive X.

Keys, Blender 5 style (actions are layered: an action has slots and layers; a layer's keyframe strip
holds one channelbag of F-curves per slot. `action.fcurves` no longer exists in Blender 5):
    from bpy_extras import anim_utils
    rig = bpy.data.objects["rig"]
    ad = rig.animation_data                          # ad.action is "walk", ad.action_slot its slot
    bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
    fc = bag.fcurves.find('pose.bones["shin.L"].rotation_euler', index=0)   # X of shin.L
    fc.evaluate(20)                                  # its value at frame 20
    kp = fc.keyframe_points[20]                      # keys are in frame order: kp.co = (frame, value)
    kp.co.y = -0.3                                   # change the key's value (kp.co[1] works too) ...
    fc.update()                                      # ... then let the curve recompute its handles
    values = [0.0] * (2 * len(fc.keyframe_points))
    fc.keyframe_points.foreach_get("co", values)     # all keys at once: frame, value, frame, value, ...
Pose bones, per frame:
    scene = bpy.context.scene
    scene.frame_set(12)                              # evaluates the action: the pose bones show frame 12
    pb = rig.pose.bones["torso"]
    pb.rotation_euler[2] = 0.0                       # changes the pose only; the action overrides it ...
    pb.keyframe_insert("rotation_euler", index=2, frame=12)  # ... unless it is keyed (index -1: X, Y and Z)
    pb.location = (0.0, 0.0, 0.0)
    pb.keyframe_insert("location", frame=12)
  A value set without keyframe_insert is lost at the next frame change and in the saved file.
Vertex groups (one per bone; weights 0..1; a vertex moves with the weighted average of its bones):
    body = bpy.data.objects["body"]
    vg = body.vertex_groups["arm.R"]
    vg.weight(37)                                    # raises RuntimeError if vertex 37 is not in the group
    vg.remove([37, 38])
    vg.add([37], 1.0, "REPLACE")                     # or "ADD" / "SUBTRACT"
    [(body.vertex_groups[g.group].name, g.weight) for g in body.data.vertices[37].groups]
Inspecting:
    for mat in body.data.materials:                  # the parts, one material each, named after the part
        p = mat["simreflect_part"]                   # p["bone"], p["start"], p["stop"] (vertex range), p["mass"]
    scene.frame_set(f); dg = bpy.context.evaluated_depsgraph_get()
    ev = body.evaluated_get(dg); m = ev.to_mesh()    # the deformed mesh at frame f:
    coords = [v.co.copy() for v in m.vertices]; ev.to_mesh_clear()
    rig.pose.bones["shin.L"].matrix                  # after frame_set: pose matrix (world space); its
                                                     # columns 0-2 are the bone's X, Y, Z axes
What the verifier reads back: for every scene frame, each pose bone's location and rotation as Blender
evaluates them, and the vertex weights. It rejects a file with a bone rolled, connected, scaled or not
deforming, a constraint, a moved object, or the armature in rest position. Modifiers, render
settings and other objects are not read.

""" + VERIFIER

#: L3's cycle hint, as the seed states it (its study found that it points at frames that are broken
#: too when a defect lasts longer than one cycle) and improved (the `hint=improved` suite option).
CYCLE_HINTS = {
    "seed": """\
- A walk cycle repeats: restore values from the same phase one cycle earlier (frame - period).
""",
    "improved": """\
- A walk cycle repeats: a channel that is wrong on some frames can often be restored from the same
  phase one cycle earlier (frame - period), or one cycle later if the earlier cycle is itself broken.
""",
}

STRATEGIES = """\
## Repair strategies
{cycle_hint}- A vertex weighted to a bone that is far away and neither parent nor child of its part's bone is a
  leak: remove it from that bone's vertex group and keep the part's own bone.
- Fix the cause, not the symptom: clamping a joint to its limit or lifting a foot out of the floor
  leaves the walk wrong; restore the normal pose. Keep every change smooth over frames.
"""


def instruction(interface: str = "python") -> str:
    return INSTRUCTION_BLENDER if interface == "blender" else INSTRUCTION


def interface_notes(level: EvidenceLevel, frames: int = 60, interface: str = "python", hint: str = "seed") -> str:
    """The interface notes an agent reads at every level (Blender 5 API notes with the blender
    interface); L3 adds the repair strategies, with the cycle hint `hint` (CYCLE_HINTS)."""
    text = (BLENDER_INTERFACE if interface == "blender" else INTERFACE).replace("{frames}", str(frames - 1))
    if level >= EvidenceLevel.L3:
        text += "\n" + STRATEGIES.replace("{cycle_hint}", CYCLE_HINTS[hint])
    return text
