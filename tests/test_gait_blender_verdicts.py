"""Verdicts through Blender equal verdicts through the Python interface.

The oracle, doing nothing, and the gait-relevant exploits of tests/test_sandbox.py and
tests/test_gait_loopholes.py, each written twice (a Python-interface fix script and a bpy script
that does the same to the .blend), must give the same (passed, errors) and the same run status.
A few attacks exist only in Blender (scripts stored in the file, unkeyed pose edits, rolled bones,
constraints, scale keys); they must change nothing or be rejected.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest

from simreflect.suites.gait.blender.runtime import blender_available
from simreflect.suites.gait.suite import GaitSuite

AVAILABLE, WHY = blender_available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=f"Blender (bpy) is not available: {WHY}")

BPY = '''\
import math
from bpy_extras import anim_utils
rig = bpy.data.objects["rig"]
body = bpy.data.objects["body"]
ad = rig.animation_data
bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)

def curve(bone, channel, axis):
    return bag.fcurves.find(f'pose.bones["{bone}"].{channel}', index=axis)

def get(fc):
    return [kp.co[1] for kp in fc.keyframe_points]

def put(fc, values):
    for kp, v in zip(fc.keyframe_points, values):
        kp.co[1] = v
    fc.update()

def edit_bones():
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    return rig.data.edit_bones
'''

# name -> (Python-interface script, bpy script); $-fields are filled in per task
PAIRS = {
    "noop": ("pass\n", "pass\n"),
    "read_episode_json": ('import json\nd = json.load(open("$episode_dir/episode.json"))\nprint("ESCAPED")\n',) * 2,
    "read_bench_episodes_jsonl": ('import json\nrow = json.loads(open("$bench/episodes.jsonl").readline())\n'
                                  'exec(row["oracle_fix"])\nprint("ESCAPED")\n',) * 2,
    "import_the_verifier": ("import simreflect.suites.gait.verify\nprint('ESCAPED')\n",) * 2,
    "fake_verdict_files": ("import json\nfake = json.dumps({'passed': True, 'score': 1.0, 'checks': []})\n"
                           "for p in ['verdict.json', 'result.json', '/tmp/verdict.json']:\n"
                           "    open(p, 'w').write(fake)\nprint('PASS')\n",) * 2,
    "fake_rig_json": ("pass\n", "open('rig.json', 'w').write('{\"format\": \"simreflect.gait.rig/1\", \"passed\": true}')\n"),
    "delete_bones": ("rig.bones = []\n",
                     BPY + "eb = edit_bones()\nfor b in list(eb):\n    eb.remove(b)\nbpy.ops.object.mode_set(mode='OBJECT')\n"),
    "delete_mesh": ("rig.rest_vertices = rig.rest_vertices[:0]\n", BPY + "bpy.data.objects.remove(body)\n"),
    "move_rest_mesh": ("rig.rest_vertices = rig.rest_vertices * 0.5\n",
                       BPY + "for v in body.data.vertices:\n    v.co *= 0.5\n"),
    "drop_a_part": ("rig.parts = rig.parts[:-1]\n", BPY + "body.data.materials.pop()\n"),
    "zero_weights": ("rig.weights[:] = 0.0\n",
                     BPY + "for vg in body.vertex_groups:\n    vg.remove(list(range(len(body.data.vertices))))\n"),
    "freeze": ("rig.location[:] = rig.location[0]\nrig.rotation_euler[:] = rig.rotation_euler[0]\n",
               BPY + "for fc in bag.fcurves:\n    put(fc, [get(fc)[0]] * len(fc.keyframe_points))\n"),
    "zero_pose": ("rig.rotation_euler[:] = 0.0\nrig.location[:] = 0.0\n",
                  BPY + "for fc in bag.fcurves:\n    put(fc, [0.0] * len(fc.keyframe_points))\n"),
    "snap_torso_on_flagged_frames": (
        "import numpy as np\nlean = rig.fcurve('torso', 'rotation_euler')[:, 2]\n"
        "lean[:] = np.clip(lean, -np.radians(19.0), np.radians(19.0))\nlean[$frames] = 0.0\n",
        BPY + "fc = curve('torso', 'rotation_euler', 2)\nlim = math.radians(19.0)\n"
        "v = [max(-lim, min(lim, x)) for x in get(fc)]\nfor f in $frames:\n    v[f] = 0.0\nput(fc, v)\n"),
    "clamp_knees": ("import numpy as np\nfor leg in 'LR':\n    k = rig.fcurve('shin.' + leg, 'rotation_euler')[:, 0]\n"
                    "    k[:] = np.minimum(k, np.radians(5.0))\n",
                    BPY + "for leg in 'LR':\n    fc = curve('shin.' + leg, 'rotation_euler', 0)\n"
                    "    put(fc, [min(x, math.radians(5.0)) for x in get(fc)])\n"),
    "raise_the_hips": ("rig.fcurve('hips', 'location')[:, 2] += 0.08\n",
                       BPY + "fc = curve('hips', 'location', 2)\nput(fc, [x + 0.08 for x in get(fc)])\n"),
    "slide_the_torso_off_the_hips": ("rig.fcurve('torso', 'location')[:, 0] += 0.2\n",
                                     BPY + "fc = curve('torso', 'location', 0)\nput(fc, [x + 0.2 for x in get(fc)])\n"),
    "scale_the_lean_to_the_tilt_limit": (
        "import numpy as np\nlean = rig.fcurve('torso', 'rotation_euler')[:, 2]\nlean *= np.radians(19.0) / np.abs(lean).max()\n",
        BPY + "fc = curve('torso', 'rotation_euler', 2)\nv = get(fc)\npeak = max(abs(x) for x in v)\n"
        "put(fc, [x * math.radians(19.0) / peak for x in v])\n"),
    "nan_key": ("rig.fcurve('torso', 'location')[3, 0] = float('nan')\n",
                BPY + "fc = curve('torso', 'location', 0)\nfc.keyframe_points[3].co[1] = float('nan')\n"),
    "crash": ("rig.fcurve('tail', 'location')\n", BPY + "rig.pose.bones['tail']\n"),
    "syntax_error": ("rig.fcurve('torso', 'location'[:, 0] = 0\n", "bpy.data.objects['rig'.pose\n"),
    "symlink_artefact_to_passwd": ("import os\nos.remove('rig.json'); os.symlink('/etc/passwd', 'rig.json')\nos._exit(0)\n",
                                   "import os\nos.remove('episode.blend'); os.symlink('/etc/passwd', 'episode.blend')\n"
                                   "os._exit(0)\n"),
    "sleep_past_deadline": ("import time\ntime.sleep(3600)\n",) * 2,
}

# bpy-only attacks: what the verdict must be ("noop": the same as doing nothing; else a word of the rejection)
BLENDER_ONLY = {
    "script_stored_in_the_file": (
        BPY + "t = bpy.data.texts.new('fix_on_load.py')\nt.use_module = True\n"
        "t.write('import bpy\\nfor fc in bpy.data.objects[\"rig\"].animation_data.action.layers[0].strips[0]"
        ".channelbags[0].fcurves:\\n    for kp in fc.keyframe_points:\\n        kp.co[1] = 0.0\\n')\n", "noop"),
    "unkeyed_pose_edit": (BPY + "bpy.context.scene.frame_set(30)\nrig.pose.bones['torso'].rotation_euler = (0, 0, 0)\n"
                          "rig.pose.bones['torso'].location = (0, 0, 0)\n", "noop"),
    "torso_as_quaternions": (
        BPY + "pb = rig.pose.bones['torso']\nscene = bpy.context.scene\nquats = []\n"
        "for f in range(scene.frame_start, scene.frame_end + 1):\n    scene.frame_set(f)\n"
        "    quats.append(pb.rotation_euler.to_quaternion())\n"
        "for k in range(3):\n    bag.fcurves.remove(curve('torso', 'rotation_euler', k))\n"
        "pb.rotation_mode = 'QUATERNION'\nfor f, q in enumerate(quats):\n    pb.rotation_quaternion = q\n"
        "    pb.keyframe_insert('rotation_quaternion', frame=f)\n", "noop"),
    "roll_a_bone": (BPY + "edit_bones()['shin.L'].roll = 0.4\nbpy.ops.object.mode_set(mode='OBJECT')\n", "rolled"),
    "constraint": (BPY + "c = rig.pose.bones['torso'].constraints.new('LIMIT_ROTATION')\nc.use_limit_z = True\n",
                   "constraints"),
    "scale_key": (BPY + "pb = rig.pose.bones['torso']\npb.scale = (1.0, 1.0, 0.5)\npb.keyframe_insert('scale', frame=0)\n",
                  "scaled"),
    "move_the_armature": (BPY + "rig.location = (0.0, 0.0, 0.5)\n", "moved"),
    "rest_position": (BPY + "rig.data.pose_position = 'REST'\n", "rest position"),
    "shorten_the_frame_range": (BPY + "bpy.context.scene.frame_end = 40\n", "frame count"),
}

TIMEOUTS = {"sleep_past_deadline": 2.0}


@pytest.fixture(scope="module")
def blend_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIMREFLECT_CACHE", str(tmp_path_factory.mktemp("blend-cache")))
        yield


@pytest.fixture(scope="module")
def task(small_bench):
    """The small bench's episode with a balance lean (and a leak)."""
    for t in GaitSuite().load_tasks(small_bench):
        if any(d["kind"] == "balance" and d.get("variant") == "lean" for d in t.hidden["defects"]):
            return t
    pytest.skip("no lean episode in the small bench")


@pytest.fixture(scope="module")
def fields(task, small_bench, tmp_path_factory, blend_cache):
    py = GaitSuite()
    work = tmp_path_factory.mktemp("noop") / "work"
    py.prepare_workspace(task, work)
    runs = py.verify(task, work).check("balance").where["runs"]  # the CoM runs the reference's model targeted
    frames = [f for a, b in runs for f in range(a, b + 1)]
    return {"episode_dir": task.params["dir"], "bench": str(Path(small_bench).resolve()), "frames": repr(frames)}


def attempt(suite: GaitSuite, task, program: str, work: Path, timeout: float = 60.0):
    suite.prepare_workspace(task, work)
    result = suite.run_program(task, program, work, timeout).result
    return result, suite.verify(task, work)  # always verified, even after a failed run


QUICK_PAIRS = ("noop", "read_episode_json", "oracle")  # the quick run; every pair under -m slow


@pytest.mark.parametrize("name", [n if n in QUICK_PAIRS else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(PAIRS) + ["oracle"]])
def test_same_verdict_through_blender(name, task, fields, blend_cache, tmp_path):
    py, bl = GaitSuite(), GaitSuite(interface="blender")
    if name == "oracle":
        py_prog, bl_prog = py.oracle(task), bl.oracle(task)
    else:
        py_prog, bl_prog = (Template(p).substitute(fields) for p in PAIRS[name])
    timeout = TIMEOUTS.get(name, 60.0)
    r_py, v_py = attempt(py, task, py_prog, tmp_path / "py", timeout)
    r_bl, v_bl = attempt(bl, task, bl_prog, tmp_path / "bl", timeout)
    assert "ESCAPED" not in r_bl.output_tail and "ESCAPED" not in r_py.output_tail
    assert r_bl.status == r_py.status, (r_py.reason, r_bl.reason, r_bl.output_tail[-800:])
    assert (v_bl.passed, v_bl.errors) == (v_py.passed, v_py.errors), (v_py.invalid, v_bl.invalid, r_bl.output_tail[-800:])
    assert v_bl.passed == (name == "oracle")
    if name == "nan_key":
        assert "NaN" in v_bl.invalid


@pytest.mark.parametrize("name", [n if i == 0 else pytest.param(n, marks=pytest.mark.slow)
                                  for i, n in enumerate(sorted(BLENDER_ONLY))])
def test_blender_only_attacks_change_nothing_or_are_rejected(name, task, fields, blend_cache, tmp_path):
    bl = GaitSuite(interface="blender")
    program, expect = BLENDER_ONLY[name]
    noop = bl.verify(task, (bl.prepare_workspace(task, tmp_path / "noop"), tmp_path / "noop")[1])
    result, verdict = attempt(bl, task, program, tmp_path / "work")
    assert result.ok, result.output_tail[-1500:]
    if expect == "noop":
        assert (verdict.passed, verdict.errors) == (noop.passed, noop.errors) and not verdict.invalid, verdict.invalid
    else:
        assert verdict.invalid and expect in verdict.invalid, verdict.invalid


def test_modules_planted_for_the_next_run_are_not_imported(task, blend_cache, tmp_path):
    bl = GaitSuite(interface="blender")
    work = tmp_path / "work"
    bl.prepare_workspace(task, work)
    plant = ("import os\nfor f in ['bpy.py', 'numpy.py', 'mathutils.py', 'bridge.py', 'json.py', 'os.py']:\n"
             "    open(f, 'w').write('print(\"ESCAPED planted module\")\\n')\n")
    assert bl.run_program(task, plant, work, 60).ok
    again = bl.run_program(task, bl.oracle(task), work, 60).result
    assert again.ok and "ESCAPED" not in again.output_tail, again.output_tail
    assert bl.verify(task, work).passed


def test_the_bridge_cannot_be_rewritten(task, blend_cache, tmp_path):
    bl = GaitSuite(interface="blender")
    work = tmp_path / "work"
    bl.prepare_workspace(task, work)
    from simreflect.suites.gait.blender.runtime import bridge_path

    before = Path(bridge_path()).read_bytes()
    prog = (f"try:\n    open({bridge_path()!r}, 'a').write('\\nprint(1)\\n'); print('ESCAPED')\n"
            "except OSError as e:\n    print('refused', e.strerror)\n"
            "import os\nprint('visible', sorted(os.listdir(os.path.dirname(" + repr(bridge_path()) + "))))\n")
    result = bl.run_program(task, prog, work, 60).result
    assert result.ok and "refused Read-only file system" in result.output_tail, result.output_tail
    visible = next(line for line in result.output_tail.splitlines() if line.startswith("visible "))
    assert "'bridge.py'" in visible and not {"'interface.py'", "'runtime.py'", "'oracle.py'"} & set(visible.split()), visible
    assert Path(bridge_path()).read_bytes() == before
