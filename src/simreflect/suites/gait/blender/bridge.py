"""The Blender side of the gait suite's Blender interface: run by Blender's own Python, never by ours.

This file is executed as a script by a Python that has the `bpy` module (Blender as a module, in its
own virtual environment: its numpy<2 pin must not meet ours) or by a `blender` binary in background
mode (arguments after `--`). It imports only the standard library and bpy (plus mathutils, which
comes with bpy), and nothing of simreflect, so it runs in a sandbox that shows only this file.

    bridge.py export RIG_JSON BLEND [ROUNDTRIP_JSON]   rig.json -> .blend (and, optionally, the
                                                       saved file read back into rig form at once)
    bridge.py run BLEND SCRIPT                         open BLEND, run the fix script, save BLEND
    bridge.py import BLEND RIG_JSON [FRAMES]           BLEND -> rig.json (+ Blender's own deformed
                                                       vertices at FRAMES, e.g. 0,17,42)

The .blend holds what the rig format holds, the Blender way:
- an armature object `rig` (data `rig`): one bone per rig bone, head/tail as given, roll 0 (so
  Blender's rest matrices equal rig.py's `bone_rest_rotation`), not connected; pose bones in XYZ
  Euler rotation mode;
- a mesh object `body` (data `body`), parented to `rig` with an Armature modifier: the rest
  vertices, the quad faces, one vertex group per bone with its weights, one material per part
  (named after it; colour, bone, vertex range and mass in the material; the orange face and chest
  plates among them), each face using its part's material;
- an action `walk` on the armature (Blender 4.4+/5 layered action: one slot, one layer, one keyframe
  strip, its channelbag) with one F-curve per pose channel and axis (`pose.bones["NAME"].location`
  and `.rotation_euler`, indices 0-2) and one LINEAR key on every frame 0..frame_count-1, so the
  evaluated value at an integer frame is its key;
- the scene's frame range (0..frame_count-1) and fps.

Reading back (`import`) takes what Blender evaluates: for every frame of the scene's range, after
`scene.frame_set`, each pose bone's location and rotation (XYZ Euler; another rotation mode is
converted from the pose bone's basis matrix), the mesh, the vertex groups and the parts. Whatever
Blender would show differently from the rig format (a rolled, connected or scaled bone, a
constraint, a moved object, a bone that does not deform, the armature in rest position) is listed
under `blender.problems`; the caller rejects such a file.
"""

from __future__ import annotations

import json
import math
import os
import sys
import traceback

BRIDGE_FORMAT = "simreflect.gait.blender-bridge/1"
RIG_FORMAT = "simreflect.gait.rig/1"
ARMATURE = "rig"
BODY = "body"
ACTION = "walk"
CHANNELS = ("location", "rotation_euler")
PART_PROP = "simreflect_part"
TOL = 1e-5  # what counts as a change of a float32 quantity Blender stores


def _bpy():
    import bpy

    return bpy


# ----- rig.json -> .blend --------------------------------------------------------------------------

def _empty_file(bpy) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _save(bpy, blend_path: str) -> None:
    bpy.context.preferences.filepaths.save_version = 0  # no episode.blend1 backup beside the file
    bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(blend_path), compress=True, check_existing=False)


def _channelbag(bpy, action, slot):
    try:
        from bpy_extras.anim_utils import action_ensure_channelbag_for_slot

        return action_ensure_channelbag_for_slot(action, slot)
    except ImportError:  # Blender 4.4/4.5: build the layer and strip by hand
        layer = action.layers[0] if action.layers else action.layers.new("Layer")
        strip = layer.strips[0] if layer.strips else layer.strips.new(type="KEYFRAME")
        return strip.channelbag(slot, ensure=True)


def build_blend(rig: dict, blend_path: str) -> None:
    """Write the rig (its JSON form) as a .blend file."""
    bpy = _bpy()
    _empty_file(bpy)
    scene = bpy.context.scene
    n_frames = int(rig["frame_count"])
    scene.frame_start, scene.frame_end = 0, n_frames - 1
    scene.render.fps, scene.render.fps_base = int(rig.get("fps", 24)), 1.0

    # armature: edit bones from head/tail, roll 0, parents first
    arm_data = bpy.data.armatures.new(ARMATURE)
    arm = bpy.data.objects.new(ARMATURE, arm_data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    edit = {}
    for b in rig["bones"]:
        eb = arm_data.edit_bones.new(b["name"])
        eb.head, eb.tail, eb.roll = b["head"], b["tail"], 0.0
        eb.use_connect = False
        eb.use_deform = True
        eb.use_inherit_rotation = True
        eb.use_local_location = True
        eb.inherit_scale = "FULL"
        if b["parent"] is not None:
            eb.parent = edit[b["parent"]]
        edit[b["name"]] = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    for pb in arm.pose.bones:
        pb.rotation_mode = "XYZ"

    # mesh: rest vertices, quads, a material per part, a vertex group per bone, armature modifier
    mesh = bpy.data.meshes.new(BODY)
    mesh.from_pydata([tuple(v) for v in rig["vertices"]], [], [tuple(f) for f in rig["faces"]])
    mesh.update()
    body = bpy.data.objects.new(BODY, mesh)
    scene.collection.objects.link(body)
    body.parent = arm
    face_part = [0] * len(rig["faces"])
    for k, p in enumerate(rig["parts"]):
        mat = bpy.data.materials.new(p["name"])
        rgba = [c / 255.0 for c in p["color"]] + [1.0]
        mat.diffuse_color = rgba
        nodes = getattr(mat, "node_tree", None)
        bsdf = nodes.nodes.get("Principled BSDF") if nodes is not None else None
        if bsdf is not None:
            bsdf.inputs["Base Color"].default_value = rgba
        mat[PART_PROP] = {"bone": p["bone"], "start": int(p["start"]), "stop": int(p["stop"]),
                          "mass": float(p["mass"]), "color": [int(c) for c in p["color"]]}
        mesh.materials.append(mat)
        for i, f in enumerate(rig["faces"]):
            if all(p["start"] <= v < p["stop"] for v in f):
                face_part[i] = k
    mesh.polygons.foreach_set("material_index", face_part)
    for b in rig["bones"]:
        vg = body.vertex_groups.new(name=b["name"])
        by_weight: dict[float, list[int]] = {}
        for v, w in rig["vertex_groups"].get(b["name"], []):
            by_weight.setdefault(float(w), []).append(int(v))
        for w, verts in by_weight.items():
            vg.add(verts, w, "REPLACE")
    mod = body.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    mod.use_vertex_groups = True
    mod.use_bone_envelopes = False
    mod.use_deform_preserve_volume = False

    # the action: one LINEAR key per frame for every channel and axis
    action = bpy.data.actions.new(ACTION)
    action.use_fake_user = True
    arm.animation_data_create()
    slot = action.slots.new(id_type="OBJECT", name=arm.name)
    arm.animation_data.action = action
    arm.animation_data.action_slot = slot
    bag = _channelbag(bpy, action, slot)
    for b in rig["bones"]:
        name = b["name"]
        for channel in CHANNELS:
            values = rig["action"][name][channel]
            for axis in range(3):
                fc = bag.fcurves.new(f'pose.bones["{name}"].{channel}', index=axis, group_name=name)
                fc.keyframe_points.add(n_frames)
                co = []
                for f in range(n_frames):
                    co += [float(f), float(values[f][axis])]
                fc.keyframe_points.foreach_set("co", co)
                for kp in fc.keyframe_points:
                    kp.interpolation = "LINEAR"
                fc.update()
    scene.frame_set(0)
    _save(bpy, blend_path)


# ----- .blend -> rig.json --------------------------------------------------------------------------

def _open(bpy, blend_path: str) -> None:
    # load_ui=False: no screen layouts; use_scripts=False: nothing in the file may run Python
    bpy.ops.wm.open_mainfile(filepath=os.path.abspath(blend_path), load_ui=False, use_scripts=False)


def _close(a, b) -> bool:
    return all(abs(float(x) - float(y)) <= TOL for x, y in zip(a, b))


def _identity(matrix) -> bool:
    return all(abs(matrix[i][j] - (1.0 if i == j else 0.0)) <= TOL for i in range(4) for j in range(4))


def read_blend(deformed_frames: tuple[int, ...] = ()) -> dict:
    """The open file in rig form (plus `blender`: version, problems, deformed vertices)."""
    bpy = _bpy()
    problems: list[str] = []
    scene = bpy.context.scene
    arm = bpy.data.objects.get(ARMATURE)
    body = bpy.data.objects.get(BODY)
    if arm is None or arm.type != "ARMATURE":
        raise ValueError(f"no armature object named {ARMATURE!r}")
    if body is None or body.type != "MESH":
        raise ValueError(f"no mesh object named {BODY!r}")
    for ob in (arm, body):
        if not _identity(ob.matrix_world):
            problems.append(f"object {ob.name!r} was moved, rotated or scaled (its world matrix is not the identity)")
        if len(ob.constraints):
            problems.append(f"object {ob.name!r} has constraints")

    # bones (Blender's rest matrices must be the roll-0 ones the rig format implies)
    bones = []
    rest = {}
    from mathutils import Vector

    for bone in arm.data.bones:
        head, tail = bone.head_local, bone.tail_local
        bones.append({"name": bone.name, "parent": bone.parent.name if bone.parent else None,
                      "head": [float(x) for x in head], "tail": [float(x) for x in tail]})
        rest[bone.name] = [[float(x) for x in row] for row in bone.matrix_local]
        axis = Vector(tail) - Vector(head)
        if axis.length > 0:
            expected = bpy.types.Bone.MatrixFromAxisRoll(axis.normalized(), 0.0)
            actual = bone.matrix_local.to_3x3()
            if any(abs(expected[i][j] - actual[i][j]) > 1e-4 for i in range(3) for j in range(3)):
                problems.append(f"bone {bone.name!r} is rolled (the rig format has roll 0)")
        if bone.use_connect:
            problems.append(f"bone {bone.name!r} is connected to its parent (its location would be ignored)")
        if not bone.use_inherit_rotation or not bone.use_local_location:
            problems.append(f"bone {bone.name!r} does not inherit rotation or use local location")
        if not bone.use_deform:
            problems.append(f"bone {bone.name!r} does not deform")
    if arm.data.pose_position != "POSE":
        problems.append("the armature is set to its rest position")

    # mesh, vertex groups, parts
    me = body.data
    vertices = [[float(c) for c in v.co] for v in me.vertices]
    faces = [[int(i) for i in p.vertices] for p in me.polygons]
    names = [vg.name for vg in body.vertex_groups]
    groups: dict[str, list] = {n: [] for n in names}
    for v in me.vertices:
        for g in v.groups:
            if g.weight > 0.0 and 0 <= g.group < len(names):
                groups[names[g.group]].append([v.index, float(g.weight)])
    parts = []
    for mat in me.materials:
        if mat is None:
            raise ValueError("the mesh has an empty material slot; every part has its own material")
        info = mat.get(PART_PROP)
        if info is None:
            raise ValueError(f"material {mat.name!r} is not a part of the rig (no {PART_PROP} property)")
        info = info.to_dict() if hasattr(info, "to_dict") else dict(info)
        parts.append({"name": mat.name, "bone": str(info["bone"]), "start": int(info["start"]),
                      "stop": int(info["stop"]), "mass": float(info["mass"]),
                      "color": [int(c) for c in info["color"]]})

    # the action as Blender evaluates it, frame by frame
    first, last = int(scene.frame_start), int(scene.frame_end)
    n_frames = last - first + 1
    if n_frames < 1:
        raise ValueError(f"the scene's frame range {first}..{last} is empty")
    pbs = list(arm.pose.bones)
    for pb in pbs:
        if len(pb.constraints):
            problems.append(f"pose bone {pb.name!r} has constraints")
    action = {pb.name: {"location": [], "rotation_euler": []} for pb in pbs}
    scaled: set[str] = set()
    deformed: dict[str, list] = {}
    want = {int(f) for f in deformed_frames}
    for f in range(first, last + 1):
        scene.frame_set(f)
        for pb in pbs:
            ch = action[pb.name]
            ch["location"].append([float(x) for x in pb.location])
            if pb.rotation_mode == "XYZ":
                ch["rotation_euler"].append([float(x) for x in pb.rotation_euler])
            else:
                ch["rotation_euler"].append([float(x) for x in pb.matrix_basis.to_3x3().normalized().to_euler("XYZ")])
            if not _close(pb.scale, (1.0, 1.0, 1.0)):
                scaled.add(pb.name)
        if f - first in want:
            deps = bpy.context.evaluated_depsgraph_get()
            ev = body.evaluated_get(deps)
            m = ev.to_mesh()
            deformed[str(f - first)] = [[float(c) for c in (ev.matrix_world @ v.co)] for v in m.vertices]
            ev.to_mesh_clear()
    for name in sorted(scaled):
        problems.append(f"pose bone {name!r} is scaled (the rig format has no scale)")

    return {
        "format": RIG_FORMAT,
        "fps": int(scene.render.fps),
        "frame_count": n_frames,
        "bones": bones,
        "vertices": vertices,
        "faces": faces,
        "parts": parts,
        "vertex_groups": groups,
        "action": action,
        "blender": {"bridge": BRIDGE_FORMAT, "version": bpy.app.version_string, "problems": problems,
                    "rest_matrices": rest, "deformed": deformed},
    }


# ----- running a fix script ------------------------------------------------------------------------

def run_script(blend_path: str, script_path: str) -> int:
    """Open the file, run the fix script on it, save it. A script that fails saves nothing (exit 1)."""
    bpy = _bpy()
    _open(bpy, blend_path)
    with open(script_path, encoding="utf-8") as fh:
        source = fh.read()
    try:
        code = compile(source, "fix.py", "exec")
    except SyntaxError:
        traceback.print_exc(limit=0)
        return 1
    import mathutils

    namespace = {"__name__": "__main__", "bpy": bpy, "mathutils": mathutils, "math": math}
    try:
        import numpy

        namespace["np"] = numpy
    except ImportError:
        pass
    try:
        exec(code, namespace)
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"fix script exited with status {e.code}", file=sys.stderr)
            return 1
    except BaseException:
        traceback.print_exc()
        return 1
    _save(bpy, blend_path)
    return 0


# ----- command line --------------------------------------------------------------------------------

def _write_json(path: str, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, separators=(",", ":"), sort_keys=True)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "export" and len(args) in (2, 3):
        with open(args[0], encoding="utf-8") as fh:
            rig = json.load(fh)
        build_blend(rig, args[1])
        if len(args) == 3:
            _open(_bpy(), args[1])
            _write_json(args[2], read_blend())
        return 0
    if cmd == "run" and len(args) == 2:
        return run_script(args[0], args[1])
    if cmd == "import" and len(args) in (2, 3):
        frames = tuple(int(x) for x in args[2].split(",") if x.strip()) if len(args) == 3 else ()
        _open(_bpy(), args[0])
        try:
            data = read_blend(frames)
        except ValueError as e:
            print(f"not a gait rig: {e}", file=sys.stderr)
            return 3
        _write_json(args[1], data)
        return 0
    print(f"usage: bridge.py export RIG_JSON BLEND [OUT_JSON] | run BLEND SCRIPT | import BLEND RIG_JSON [FRAMES]; "
          f"got {argv!r}", file=sys.stderr)
    return 2


def _argv() -> list[str]:
    """Our arguments: after `--` when Blender itself runs this file, else after the script name."""
    return sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]


if __name__ == "__main__":
    code = main(_argv())
    sys.stdout.flush()
    sys.stderr.flush()
    # bpy as a module can hang on interpreter shutdown in a few builds; leave at once
    os._exit(code)
