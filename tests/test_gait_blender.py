"""The gait suite's Blender interface: .blend export and import, bpy fix scripts, the bpy oracle.

Tests that need Blender (the pip package bpy in .venv-blender, or SIMREFLECT_BLENDER_PYTHON /
SIMREFLECT_BLENDER) are skipped with the reason when it is absent; CI installs it (scripts/setup.sh).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simreflect.core.evidence import EvidenceLevel
from simreflect.suites.gait.blender import interface as blender
from simreflect.suites.gait.blender.oracle import normal_from_python_oracle, oracle_bpy_script
from simreflect.suites.gait.blender.runtime import (
    ENV_BINARY,
    ENV_PYTHON,
    BlenderRuntime,
    BlenderUnavailable,
    blender_available,
    bridge_path,
    find_blender,
)
from simreflect.suites.gait.rig import Rig, RigFormatError
from simreflect.suites.gait.suite import GaitSuite
from simreflect.suites.gait.verify import WalkReference, verify_rig

AVAILABLE, WHY = blender_available()
needs_blender = pytest.mark.skipif(not AVAILABLE, reason=f"Blender (bpy) is not available: {WHY}")


@pytest.fixture(scope="module")
def blend_cache(tmp_path_factory):
    """A private .blend cache for this module's tests."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIMREFLECT_CACHE", str(tmp_path_factory.mktemp("blend-cache")))
        yield


@pytest.fixture(scope="module")
def tasks(small_bench):
    return GaitSuite().load_tasks(small_bench)


def rig_of(task) -> Rig:
    return Rig.load(Path(task.params["dir"]) / "rig.json")


# ----- without Blender ----------------------------------------------------------------------------

def test_interface_option():
    suite = GaitSuite()
    assert suite.interface == "python" and suite.with_options() is suite
    assert suite.with_options(interface="python").interface == "python"
    with pytest.raises(ValueError, match="interface must be one of"):
        suite.with_options(interface="maya")
    with pytest.raises(ValueError, match="no option"):
        suite.with_options(colour="red")
    assert "interface" in GaitSuite.options_help


def test_blender_notes_at_every_level(tasks):
    suite = GaitSuite(interface="blender")
    for level in (EvidenceLevel.L1, EvidenceLevel.L2, EvidenceLevel.L3):
        text = suite.interface_notes(level)
        for needle in ("Blender 5", "action_get_channelbag_for_slot", "action.fcurves` no longer exists",
                       "keyframe_insert", "frame_set", "vertex_groups", "evaluated_depsgraph_get", "rotation_mode",
                       "face_stretch", "walk_preserved"):
            assert needle in text, (level, needle)
    assert ("repair strategies" in suite.interface_notes(EvidenceLevel.L3).lower()
            and "Repair strategies" not in suite.interface_notes(EvidenceLevel.L2))
    assert "bpy script" in suite.instruction(tasks[0])
    assert "rig.fcurve" in GaitSuite().interface_notes(EvidenceLevel.L1)  # the Python interface is unchanged


def test_bridge_imports_only_the_standard_library_and_blender():
    tree = ast.parse(Path(bridge_path()).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    assert names <= {"__future__", "json", "math", "os", "sys", "traceback", "bpy", "bpy_extras", "mathutils",
                     "numpy"}, names


def test_bpy_oracle_restores_what_the_python_oracle_restores(tasks):
    for task in tasks:
        broken = rig_of(task)
        normal = normal_from_python_oracle(broken, task.hidden["oracle_fix"])
        assert verify_rig(normal, WalkReference.from_dict(task.hidden["walk_check"]), trusted=broken).passed
        script = GaitSuite(interface="blender").oracle(task)
        assert script == oracle_bpy_script(normal, broken, task.id)
        compile(script, "oracle_bpy.py", "exec")
        assert "keyframe_insert" in script or "vertex_groups" in script
        assert GaitSuite().oracle(task) == task.hidden["oracle_fix"]


def test_structure_is_snapped_only_within_float32_precision(tasks):
    trusted = rig_of(tasks[0])
    d = trusted.to_dict()
    d["vertices"] = (np.asarray(d["vertices"]) + 4e-7).tolist()
    d["bones"][1]["head"] = [x - 3e-7 for x in d["bones"][1]["head"]]
    d["action"]["hips"]["location"][5] = [0.1, 0.2, 0.3]
    ref = WalkReference.from_dict(tasks[0].hidden["walk_check"])
    d["blender"] = {"problems": []}
    edited = blender.rig_from_import(d, trusted)
    assert edited.bones == trusted.bones and np.array_equal(edited.rest_vertices, trusted.rest_vertices)
    assert np.allclose(edited.location[5, 0], [0.1, 0.2, 0.3])
    assert not blender.verify_data(d, trusted, ref).invalid
    d["vertices"][7][2] += 1e-3
    assert "rest mesh changed" in blender.verify_data(d, trusted, ref).invalid
    d["blender"] = {"problems": ["bone 'torso' is rolled (the rig format has roll 0)"]}
    assert "rolled" in blender.verify_data(d, trusted, ref).invalid
    del d["blender"]
    with pytest.raises(RigFormatError, match="report is missing"):
        blender.rig_from_import(d, trusted)


def test_finding_blender_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_PYTHON, sys.executable)  # a Python without bpy
    with pytest.raises(BlenderUnavailable, match="has no bpy module"):
        find_blender()
    ok, why = blender_available()
    assert not ok and ENV_PYTHON in why and "setup.sh" in why
    with pytest.raises(ValueError, match="needs Blender"):
        GaitSuite().with_options(interface="blender")
    monkeypatch.delenv(ENV_PYTHON)
    fake = tmp_path / "blender"
    fake.write_text("#!/bin/sh\necho 'not blender'\n")
    fake.chmod(0o755)
    monkeypatch.setenv(ENV_BINARY, str(fake))
    with pytest.raises(BlenderUnavailable, match="is not a blender binary"):
        find_blender()


def test_binary_command_line():
    rt = BlenderRuntime("binary", "/opt/blender/blender", "5.0.1", ENV_BINARY)
    argv = rt.argv("import", "/workdir/episode.blend", "/workdir/rig.json")
    assert argv[:2] == ["/opt/blender/blender", "--background"] and "--factory-startup" in argv
    assert argv[argv.index("--python") + 1] == bridge_path()
    assert argv[argv.index("--") + 1:] == ["import", "/workdir/episode.blend", "/workdir/rig.json"]


# ----- with Blender --------------------------------------------------------------------------------

@needs_blender
def test_round_trip_is_exact(tasks, blend_cache):
    """rig.json -> .blend -> rig form: structure exact, positions, weights and keys to 1e-6, Blender's
    rest matrices equal rig.py's, and Blender's own skinning equals ours."""
    worst = {"vertices": 0.0, "bones": 0.0, "weights": 0.0, "keys": 0.0, "rest": 0.0, "skinning": 0.0}
    for task in tasks:
        rig = rig_of(task)
        eb = blender.episode_blend(Path(task.params["dir"]) / "rig.json")
        assert eb.blend.stat().st_size < 1 << 20
        data = eb.roundtrip_data()
        assert data["blender"]["problems"] == [] and data["blender"]["version"].startswith("5.")
        back = Rig.from_dict(data)
        assert back.bone_names == rig.bone_names and [b.parent for b in back.bones] == [b.parent for b in rig.bones]
        assert np.array_equal(back.faces, rig.faces) and back.parts == rig.parts
        assert back.frame_count == rig.frame_count and back.fps == rig.fps
        assert np.array_equal(back.weights > 0, rig.weights > 0)
        worst["vertices"] = max(worst["vertices"], np.abs(back.rest_vertices - rig.rest_vertices).max())
        worst["bones"] = max(worst["bones"], max(np.abs(np.subtract(a.head, b.head)).max() + np.abs(np.subtract(a.tail, b.tail)).max()
                                                 for a, b in zip(back.bones, rig.bones)))
        worst["weights"] = max(worst["weights"], np.abs(back.weights - rig.weights).max())
        worst["keys"] = max(worst["keys"], np.abs(back.location - rig.location).max(),
                            np.abs(back.rotation_euler - rig.rotation_euler).max())
        rest = np.array([data["blender"]["rest_matrices"][n] for n in rig.bone_names])
        worst["rest"] = max(worst["rest"], np.abs(rest - rig.rest_matrices).max())
        # Blender's deformed mesh (armature modifier) against rig.world_vertices, at a few frames
        frames = (0, 17, 42)
        deformed = blender.import_blend(eb.blend.read_bytes(), frames=frames)["blender"]["deformed"]
        for f in frames:
            worst["skinning"] = max(worst["skinning"], np.abs(np.array(deformed[str(f)]) - rig.world_vertices(f)).max())
    print("round trip, worst absolute difference:", {k: f"{v:.1e}" for k, v in worst.items()})
    assert max(worst.values()) < 1e-6, worst
    assert blender.verify_data(data, rig, WalkReference.from_dict(task.hidden["walk_check"])).errors == \
        verify_rig(rig, WalkReference.from_dict(task.hidden["walk_check"])).errors


@needs_blender
def test_oracle_passes_through_blender_and_noop_matches(tasks, blend_cache, tmp_path):
    py, bl = GaitSuite(), GaitSuite().with_options(interface="blender")
    for task in tasks:
        py_work, bl_work = tmp_path / f"{task.id}-py", tmp_path / f"{task.id}-bl"
        py.prepare_workspace(task, py_work)
        bl.prepare_workspace(task, bl_work)
        assert sorted(p.name for p in bl_work.iterdir()) == ["episode.blend"]
        noop_py, noop_bl = py.verify(task, py_work), bl.verify(task, bl_work)
        assert (noop_bl.passed, noop_bl.errors) == (noop_py.passed, noop_py.errors) and not noop_bl.passed
        result = bl.run_program(task, bl.oracle(task), bl_work, 60).result
        assert result.ok, result.output_tail
        assert sorted(p.name for p in bl_work.iterdir()) == ["episode.blend"]  # no backup, no script left
        verdict = bl.verify(task, bl_work)
        assert verdict.passed, (task.id, verdict.errors, verdict.invalid)


@needs_blender
def test_failed_script_saves_nothing(tasks, blend_cache, tmp_path):
    bl = GaitSuite(interface="blender")
    task = tasks[0]
    work = tmp_path / "work"
    bl.prepare_workspace(task, work)
    before = (work / "episode.blend").read_bytes()
    result = bl.run_program(task, "import bpy\nbpy.data.objects['rig'].pose.bones['torso'].location = (1, 1, 1)\n"
                            "bpy.data.objects['rig'].pose.bones['torso'].keyframe_insert('location', frame=3)\n"
                            "bpy.data.objects['rig'].pose.bones['tail']\n", work, 60).result
    assert result.status == "error" and "KeyError" in result.output_tail and "tail" in result.output_tail
    assert (work / "episode.blend").read_bytes() == before
    syntax = bl.run_program(task, "bpy.data.objects['rig'.pose\n", work, 60).result
    assert syntax.status == "error" and "SyntaxError" in syntax.output_tail


@needs_blender
def test_verify_cli_with_the_blender_interface(small_bench, tasks, blend_cache, tmp_path):
    task = tasks[1]
    script = tmp_path / "oracle_bpy.py"
    script.write_text(GaitSuite(interface="blender").oracle(task))
    cmd = [sys.executable, "-m", "simreflect.cli", "gait", "verify", task.params["dir"], "--interface", "blender",
           "--script", str(script), "--json"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["passed"] and out["interface"] == "blender" and out["script"]["status"] == "ok"
    # the Python oracle is not a bpy script: it fails in Blender (no global `rig` object there)
    script.write_text(task.hidden["oracle_fix"])
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1 and "NameError" in res.stdout


@needs_blender
def test_export_and_import_a_whole_benchmark(small_bench, blend_cache, tmp_path):
    from simreflect.suites.gait.blender.__main__ import main

    assert main(["export", str(small_bench), "--out", str(tmp_path / "blend")]) == 0
    files = sorted(p.name for p in (tmp_path / "blend").iterdir())
    assert files == ["ep01.blend", "ep01_oracle_bpy.py", "ep02.blend", "ep02_oracle_bpy.py", "ep03.blend",
                     "ep03_oracle_bpy.py"]
    assert main(["import", str(tmp_path / "blend" / "ep02.blend"), "--out", str(tmp_path / "ep02.json")]) == 0
    back = Rig.load(tmp_path / "ep02.json")
    orig = Rig.load(small_bench / "episodes" / "ep02" / "rig.json")
    assert np.abs(back.rotation_euler - orig.rotation_euler).max() < 1e-6
    assert np.abs(back.weights - orig.weights).max() < 1e-6


@needs_blender
@pytest.mark.slow
def test_oracle_solves_every_episode_through_blender(gait_bench, blend_cache, tmp_path):
    """The 30-episode run: the episode loop, the blender interface and the bpy oracle, one round each."""
    from simreflect.agents.base import Action
    from simreflect.run.episode import run_episode
    from simreflect.run.store import EpisodeLog, RunStore

    suite = GaitSuite().with_options(interface="blender")

    class BpyOracle:  # the oracle of the suite it runs in (the registry's OracleAgent asks the default suite)
        name = "oracle"

        def act(self, observation):
            program = suite.oracle(observation.task)
            return Action(program=program, diagnosis="reference solution", raw=program)

    store = RunStore(tmp_path / "run")
    store.open({"suite": "gait", "interface": "blender"})
    tasks = suite.load_tasks(gait_bench)
    outcomes = [run_episode(suite, BpyOracle(), task, EvidenceLevel.L1, 3, store, EpisodeLog(), 60.0) for task in tasks]
    assert len(outcomes) == 30
    assert [o.task for o in outcomes if not (o.solved and o.rounds == 1)] == []
    py = GaitSuite()
    for task in tasks:  # and doing nothing gets the same verdict through either interface
        py.prepare_workspace(task, tmp_path / f"{task.id}-py")
        suite.prepare_workspace(task, tmp_path / f"{task.id}-bl")
        a, b = py.verify(task, tmp_path / f"{task.id}-py"), suite.verify(task, tmp_path / f"{task.id}-bl")
        assert (b.passed, b.errors) == (a.passed, a.errors), task.id
