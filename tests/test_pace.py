"""The pace suite through its real path: task folders, the controls of every task (sandboxed programs,
Box2D runs, evaluators), determinism across processes, what the agent sees and does not see, the
Suite interface with the episode loop, and the `pace` commands."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite
from simreflect.suites.pace import prompt
from simreflect.suites.pace.evaluate import PROGRAM_FILE, TASK_FILE, evaluate
from simreflect.suites.pace.task import DOMAINS, FOLDER_FILES, TARGETS, load_spec, load_specs, tasks_dir
from simreflect.suites.pace import pins
from simreflect.suites.pace.validate import controls_for, run_controls
from pace_helpers import controls_per_task, task_folder_names

SPECS = load_specs()


# ----- the task folders ---------------------------------------------------------------------------

def test_every_task_folder_loads_every_domain_has_tasks_every_folder_the_same_shape():
    assert [s.id for s in SPECS] == task_folder_names()  # every folder with a card, once, in order
    assert set(Counter(s.domain for s in SPECS)) == set(DOMAINS)
    assert all(s.id.startswith(s.domain + "_") for s in SPECS)
    for spec in SPECS:
        names = sorted(p.name for p in spec.folder.iterdir() if not p.name.startswith(("__", ".")))
        assert names == sorted((*FOLDER_FILES, pins.PIN_FILE)), spec.id
        assert spec.world_class and spec.evaluator_class and spec.feedback_module and spec.render_module


def test_mutations_rise_from_two_to_about_ten():
    for spec in SPECS:
        counts = [len(spec.mutations(st)) for st in TARGETS]
        assert counts[0] == 2 and counts == sorted(counts) and 9 <= counts[3] <= 12, (spec.id, counts)
        for a, b in zip(TARGETS, TARGETS[1:]):  # each stage keeps the previous stage's changes
            assert set(spec.mutations(a)) <= set(spec.mutations(b)), (spec.id, a, b)


def test_every_stage_says_why_it_is_solvable():
    for spec in SPECS:
        for st in ("source", *TARGETS):
            assert len(spec.notes(st)) > 60, (spec.id, st)
        for st in TARGETS:
            assert "olvable" in spec.notes(st), (spec.id, st)


# ----- the controls ---------------------------------------------------------------------------------

def test_one_control_fast():
    """The cheapest full controls of one task through the sandbox, in this process."""
    spec = load_spec("dynamics_launcher")
    good = evaluate(spec, "source", spec.program("source"))
    assert good.passed and good.score == 100.0 and good.program.isolation["mode"] in ("bwrap", "plain")
    bad = evaluate(spec, "stage1", spec.program("source"))
    assert not bad.passed and bad.score < 100 and bad.failure
    ref = evaluate(spec, "stage1", spec.program("stage1"))
    assert ref.passed


@pytest.fixture(scope="module")
def control_rows():
    return {(r.task, r.env, r.program): r for r in run_controls(workers=2)}


@pytest.mark.parametrize("control", controls_for(), ids=lambda c: f"{c.task}-{c.env}-{c.program}")
def test_control(control, control_rows):
    row = control_rows[(control.task, control.env, control.program)]
    assert row.passed == control.expect_pass, (row.score, row.failure, row.invalid)
    assert row.program_status == "ok" and not row.invalid
    if control.expect_pass:
        assert row.score == 100.0
    # the metrics are the pinned ones (Box2D and libm may round differently on another platform)
    assert row.pinned in (pins.SAME, pins.OTHER_PLATFORM), (row.pinned, row.metrics_sha)


def test_the_control_plan_is_complete():
    plan = controls_for()
    assert len(plan) == len(task_folder_names()) * controls_per_task()
    for spec in SPECS:
        mine = [c for c in plan if c.task == spec.id]
        assert len(mine) == controls_per_task()
        assert sum(c.expect_pass for c in mine) == 1 + len(TARGETS)  # source on source, one reference per stage


# ----- determinism ------------------------------------------------------------------------------------

PROBE = """
import hashlib, json, sys
from pathlib import Path
from simreflect.suites.pace.task import load_spec
from simreflect.suites.pace.evaluate import evaluate
layout = [object() for _ in range(int(sys.argv[2]))]  # each process its own memory layout
out = {}
for task, stage, program in json.loads(sys.argv[1]):
    spec = load_spec(task)
    ev = evaluate(spec, stage, Path(program).read_text() if program.endswith(".py") else spec.program(program))
    out[f"{task}/{stage}/{program}"] = [hashlib.sha256(ev.metrics_json().encode()).hexdigest(),
                                        hashlib.sha256(ev.feedback.encode()).hexdigest(), ev.score]
print(json.dumps(out, sort_keys=True))
"""


def test_evaluations_are_identical_across_processes():
    cases = [["control_lander", "stage3", "stage3"], ["granular_dam", "stage2", "source"],
             ["statics_bridge", "stage4", "stage4"], ["exotic_egg_cradle", "stage4", "stage4"],
             ["granular_excavator", "source", "source"], ["kinematics_wiper", "stage4", "stage4"],
             ["granular_boat", "stage4", "stage4"], ["exotic_rocket_sled", "stage4", "stage4"],
             ["control_logic_lock", "stage4", str(DATA / "logic_lock_boat_rests_on_gate.py")]]
    runs = [subprocess.run([sys.executable, "-c", PROBE, json.dumps(cases), str(junk)], capture_output=True,
                           text=True, timeout=300, env={"PYTHONHASHSEED": str(seed), "PATH": "/usr/bin:/bin"})
            for seed, junk in ((1, 0), (2, 77777))]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    a, b = (json.loads(r.stdout) for r in runs)
    assert a == b and len(a) == len(cases)


def test_the_validation_rows_carry_the_same_metrics_as_a_fresh_run(control_rows):
    spec = load_spec("kinematics_rover")
    ev = evaluate(spec, "stage3", spec.program("stage3"))
    row = control_rows[("kinematics_rover", "stage3", "stage3")]
    assert hashlib.sha256(ev.metrics_json().encode()).hexdigest()[:16] == row.metrics_sha


# ----- what the agent sees -------------------------------------------------------------------------------

def test_visible_changes_are_marked_and_invisible_ones_only_named():
    spec = load_spec("statics_bridge")
    text = prompt.instruction(spec, "stage2")
    assert "gap width: 12 m (originally 10 m in the source environment)" in text
    assert "cart mass: 1000 kg (originally 600 kg in the source environment)" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("Variables that may have changed"))
    assert "gravity" in line and "wind" in line and "tyre friction" in line
    assert "11.5" not in text  # stage 2's gravity
    for spec in SPECS:
        lines = {st: next((ln for ln in prompt.instruction(spec, st).splitlines()
                           if ln.startswith("Variables that may have changed")), "")
                 for st in ("source", *TARGETS)}
        assert len(set(lines.values())) == 1, spec.id  # identical for every stage of a task
        for st in TARGETS:
            assert not set(spec.visible(st)) & set(spec.invisible_names())


def _hidden_value_patterns(spec, stage):
    """Distinctive renderings of the invisible values that differ from the source environment."""
    env, src = spec.environment(stage), spec.environment("source")
    card = prompt.instruction(spec, "source")  # numbers of the card itself (geometry, say) are no leak
    out = []
    for name in spec.invisible_names():
        v = env[name]
        if v == src[name] or not isinstance(v, float) or v in (0.0, 1.0):
            continue
        text = f"{v:g}"
        pattern = re.compile(rf"(?<![\d.]){re.escape(text)}(?![\d])")
        if len(text.lstrip("-")) >= 3 and not pattern.search(card):  # else too common to tell apart
            out.append((name, pattern))
    return out


def test_hidden_values_never_reach_the_program_or_the_report(tmp_path):
    for spec in SPECS:
        st = "stage4"
        ev = evaluate(spec, st, spec.program("source"), workdir=tmp_path / spec.id)
        task_json = json.loads((tmp_path / spec.id / TASK_FILE).read_text())
        assert set(task_json["visible"]) == set(spec.visible(st))
        for name, pattern in _hidden_value_patterns(spec, st):
            # the prompt shows the source program the agent starts from (its own code, not a hidden value)
            card = prompt.instruction(spec, st).split("## The source design (program.py)")[0]
            for where, text in (("feedback", ev.feedback), ("prompt", card), ("task.json", json.dumps(task_json))):
                text = re.sub(r"step\s+\d+", "step #", text)  # step counts are not physics
                assert not pattern.search(text), (spec.id, name, where)


def test_the_report_has_the_sections_a_physicist_expects():
    spec = load_spec("statics_bridge")
    ev = evaluate(spec, "stage2", spec.program("source"))
    text = ev.feedback
    for part in ("Status: FAIL", "(at step", "t = ", "Terminal state", "Chronology:", "first joint failure",
                 "Constraint profile:", "[FAIL] structure_intact", "margin", "Peak joint loads", "% = ",
                 "Numerical health: OK"):
        assert part in text, part
    assert "wood" not in text.lower() or "truss" not in text.lower()  # it reports, it does not prescribe
    levels = ev.feedback_levels
    assert len(levels["1"]) < len(levels["2"]) <= len(levels["3"])
    assert "Chronology" not in levels["1"] and "Constraint profile" in levels["1"]


# ----- the suite with the episode loop ------------------------------------------------------------------

def test_suite_interface_round_trip(tmp_path):
    suite = get_suite("pace")
    tasks = suite.load_tasks()
    assert len(tasks) == len(task_folder_names()) * len(TARGETS) and suite.protocol.budget == 20
    task = next(t for t in tasks if t.id == "kinematics_rover.stage2")
    work = tmp_path / "w"
    suite.prepare_workspace(task, work)
    assert sorted(p.name for p in work.iterdir()) == [PROGRAM_FILE, TASK_FILE]
    before = suite.verify(task, work)  # the source design in the target: fails, with the report
    assert not before.passed and "PACE evaluation" in suite.observe(task, before, EvidenceLevel.L2)
    run = suite.run_program(task, suite.oracle(task), work, timeout_s=60)
    assert run.ok, run.result.output_tail
    after = suite.verify(task, work, run)
    assert after.passed and after.score == 100.0 and after.reward == 1.0
    assert "Variables that may have changed" in suite.instruction(task)
    assert suite.subsets(task) == ["domain: kinematics", "stage 2"]
    saved = tmp_path / "saved"
    suite.save_task(task, saved)
    assert suite.load_task(saved) == task


def test_episode_loop_with_the_oracle_and_a_broken_program(tmp_path):
    from simreflect.agents.base import Action
    from simreflect.agents.baselines import OracleAgent
    from simreflect.run.episode import run_episode
    from simreflect.run.store import EpisodeLog, RunStore

    suite = get_suite("pace")
    task = next(t for t in suite.load_tasks() if t.id == "dynamics_launcher.stage3")
    store = RunStore(tmp_path / "run")
    store.open({"suite": "pace"})
    out = run_episode(suite, OracleAgent(), task, EvidenceLevel.L2, 20, store, EpisodeLog(), timeout_s=60)
    assert out.solved and out.rounds == 1

    class Broken:
        def __init__(self):
            self.n = 0

        def act(self, obs):
            self.n += 1
            program = "def build(api):\n    raise ValueError('no idea')\n" if self.n == 1 else suite.oracle(task)
            return Action(program=program, diagnosis="try", raw=program)

    store2 = RunStore(tmp_path / "run2")
    store2.open({"suite": "pace"})
    out = run_episode(suite, Broken(), task, EvidenceLevel.L1, 20, store2, EpisodeLog(), timeout_s=60)
    assert out.solved and out.rounds == 2
    first = [r for r in store2.records()[0] if r["type"] == "round"][0]
    assert first["program"]["status"] == "error" and "no idea" in first["program"]["output_tail"]


# ----- commands -----------------------------------------------------------------------------------------

def test_verify_command_json_and_gif(tmp_path):
    from typer.testing import CliRunner

    from simreflect.suites.pace.commands import app

    prog = tmp_path / "p.py"
    prog.write_text(load_spec("control_lander").program("stage1"))
    gif = tmp_path / "run.gif"
    r = CliRunner().invoke(app, ["verify", "--task", "control_lander", "--stage", "1", "--program", str(prog),
                                 "--json", "--gif", str(gif)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["passed"] is True and out["score"] == 100.0 and "SUCCESS" in out["feedback"]
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames > 50 and im.size == (480, 300)
    again = tmp_path / "again.gif"
    spec = load_spec("control_lander")
    evaluate(spec, "stage1", spec.program("stage1"), gif=again)
    assert again.read_bytes() == gif.read_bytes()  # same run, same bytes
    r = CliRunner().invoke(app, ["verify", "--task", "control_lander", "--stage", "source", "--program", str(prog)])
    assert r.exit_code == 0 and "PACE evaluation" in r.output
    r = CliRunner().invoke(app, ["verify", "--task", "nope", "--stage", "1", "--program", str(prog)])
    assert r.exit_code == 2 and "no pace task" in r.output


def test_validate_command_prints_the_table(tmp_path):
    import shutil

    from typer.testing import CliRunner

    from simreflect.suites.pace.commands import app

    r = CliRunner().invoke(app, ["validate", "--task", "dynamics_launcher", "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert f"{controls_per_task()} as expected" in r.output and "dynamics_launcher" in r.output
    # a task folder being written elsewhere: its broken reference shows as a failed control
    shutil.copytree(tasks_dir() / "dynamics_launcher", tmp_path / "dynamics_launcher")
    (tmp_path / "dynamics_launcher" / "ref_stage2.py").write_text("def build(api):\n    pass\n")
    r = CliRunner().invoke(app, ["validate", "--root", str(tmp_path), "--workers", "2", "--json"])
    rows = [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]
    assert r.exit_code == 1 and len(rows) == controls_per_task()
    assert [(x["env"], x["program"]) for x in rows if not x["ok"]] == [("stage2", "stage2")]
    r = CliRunner().invoke(app, ["validate", "--root", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "No such file" in r.output
    broken = tmp_path / "dynamics_launcher" / "ref_stage2.py"
    r = CliRunner().invoke(app, ["verify", "--root", str(tmp_path), "--task", "dynamics_launcher", "--stage", "2",
                                 "--program", str(broken), "--json"])
    assert r.exit_code == 1 and json.loads(r.output)["passed"] is False
    r = CliRunner().invoke(app, ["list"])
    assert r.exit_code == 0 and "granular_dam" in r.output and "2/4/7/10" in r.output
    r = CliRunner().invoke(app, ["show", "--task", "granular_dam", "--stage", "3"])
    assert r.exit_code == 0 and "originally" in r.output


def test_pinned_metrics_catch_any_change_of_the_benchmark(tmp_path):
    import shutil

    from typer.testing import CliRunner

    from simreflect.suites.pace.commands import app

    folder = tmp_path / "statics_cantilever"
    shutil.copytree(tasks_dir() / "statics_cantilever", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / pins.PIN_FILE).unlink()

    def validate(*extra):
        r = CliRunner().invoke(app, ["validate", "--root", str(tmp_path), "--workers", "2", "--json", *extra])
        return r, {(x["env"], x["program"]): x for x in map(json.loads, (ln for ln in r.output.splitlines()
                                                                           if ln.startswith("{")))}

    r, rows = validate()
    assert r.exit_code == 0 and {x["pinned"] for x in rows.values()} == {pins.UNPINNED}
    r, rows = validate("--pin")
    assert r.exit_code == 0 and "pinned the metrics of 9 controls" in r.output
    assert pins.read_pins(folder)["controls"] == {pins.control_key(*k): x["metrics_sha"] for k, x in rows.items()}
    assert pins.read_pins(folder)["controls"] == pins.read_pins(tasks_dir() / "statics_cantilever")["controls"]
    r, rows = validate()
    assert r.exit_code == 0 and {x["pinned"] for x in rows.values()} == {pins.SAME}
    # a reference that still passes, with its strut seated 5 cm higher: the benchmark changed
    ref = folder / "ref_stage1.py"
    ref.write_text(ref.read_text().replace("bracket(api, depth=1.5)", "bracket(api, depth=1.45)"))
    r, rows = validate()
    assert r.exit_code == 1 and "other than the pinned ones" in r.output and "--pin" in r.output
    assert all(x["ok"] for x in rows.values())
    assert [k for k, x in rows.items() if x["pinned"] == pins.CHANGED] == [("stage1", "stage1")]
    # a failing benchmark is never pinned
    ref.write_text("def build(api):\n    pass\n")
    before = (folder / pins.PIN_FILE).read_text()
    r, rows = validate("--pin")
    assert r.exit_code == 1 and (folder / pins.PIN_FILE).read_text() == before
    # a damaged pin file is a clear error, not a silent pass
    (folder / pins.PIN_FILE).write_text("{not json")
    r, _ = validate()
    assert r.exit_code == 2 and "pinned_metrics.json" in r.output and "--pin" in r.output
    # pins made elsewhere are reported, not enforced
    (folder / pins.PIN_FILE).write_text(json.dumps({"platform": "darwin-arm64 box2d-2.3.10 python-3.12",
                                                     "controls": {"source/source": "0" * 16}}))
    assert pins.compare(pins.read_pins(folder), "source", "source", "1" * 16) == pins.OTHER_PLATFORM
    assert pins.compare(pins.read_pins(folder), "stage1", "source", "1" * 16) == pins.UNPINNED


def test_the_packaged_tasks_are_package_data():
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert "suites/pace/tasks/*/*" in text and 'pace = "simreflect.suites.pace.suite:PaceSuite"' in text
    assert tasks_dir().is_dir()


def test_the_task_picture_is_the_source_design_in_the_target(tmp_path, monkeypatch):
    from PIL import Image

    monkeypatch.setenv("SIMREFLECT_CACHE", str(tmp_path))
    suite = get_suite("pace")
    task = next(t for t in suite.load_tasks() if t.id == "dynamics_launcher.stage1")
    path = suite.picture(task)
    assert path.parent == tmp_path / "pace-pictures" and path.suffix == ".gif"
    with Image.open(path) as im:
        assert im.n_frames > 10 and im.size == (480, 300)
    stamp = path.stat().st_mtime_ns
    assert suite.picture(task) == path and path.stat().st_mtime_ns == stamp  # rendered once
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left behind


def test_a_program_error_is_reported_with_its_own_line():
    spec = load_spec("statics_cantilever")
    program = "import math\n\ndef build(api):\n    return 1 / 0\n"
    ev = evaluate(spec, "stage1", program)
    assert not ev.passed and ev.invalid and "ZeroDivisionError" in ev.invalid and "build()" in ev.invalid
    assert 'program.py", line 4, in build' in ev.program.output_tail, ev.program.output_tail


def test_no_task_keys_or_compares_box2d_objects_by_identity():
    """pybox2d hands out a new Python proxy on every access (edge.other, fixture.body,
    world.bodies): an id() of one is reused at random, and `is` between two is always False.
    Compare with ==, key sets and dicts by the object itself (its hash is the C++ object's)."""
    import ast

    proxies = {"other", "ground", "fixtureA", "fixtureB", "body", "bodyA", "bodyB", "userData"}
    sources = sorted(tasks_dir().glob("*/*.py")) + sorted((tasks_dir().parent).glob("*.py"))
    found = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id":
                found.append(f"{path.parent.name}/{path.name}:{node.lineno}: id()")
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops) \
                    and not any(isinstance(x, ast.Constant) for x in (node.left, *node.comparators)):
                names = [x.attr for x in (node.left, *node.comparators) if isinstance(x, ast.Attribute)]
                if any(n in proxies for n in names):
                    found.append(f"{path.parent.name}/{path.name}:{node.lineno}: `is` on {names}")
    assert not found, found


DATA = Path(__file__).parent / "data" / "pace"


def test_a_fall_to_the_ground_is_seen_and_a_resting_contact_is_one_event():
    """Two programs from a parameter-search run (tests/data/pace) that met identity bugs: the
    scissor lift's fall check compared pybox2d proxies with `is` and never fired; the canal lock
    keyed touching fixtures by id() of proxies, so a boat resting on a gate was reported as a new
    contact at random ticks (0 or hundreds of events, by the process's memory layout)."""
    ev = evaluate(load_spec("kinematics_scissor_lift"), "stage3", (DATA / "scissor_lift_crate_falls.py").read_text())
    assert "load_secure" in [c.name for c in ev.constraints if not c.passed]
    assert [e.text for e in ev.events if "fell to the ground" in e.text] == ["the platform fell to the ground"]
    ev = evaluate(load_spec("control_logic_lock"), "stage4", (DATA / "logic_lock_boat_rests_on_gate.py").read_text())
    assert [(e.step, e.text) for e in ev.events if e.kind == "contact"] == [(1704, "the boat touched gate 2 at 0.04 m/s")]
