"""The pacebench suite: PACE-Bench's own tasks from a checkout ($SIMREFLECT_PACEBENCH), the design
program in the sandbox behind the proxy, PACE-Bench's scores repeated, and what PACE-Bench's
in-process execution allows refused. Without a checkout every test but the first skips, saying so."""

from __future__ import annotations

import os

import pytest

from simreflect.suites.pacebench import checkout
from simreflect.suites.pacebench.checkout import PaceBenchMissing

MISSING = checkout.available()
needs_checkout = pytest.mark.skipif(bool(MISSING), reason=f"PACE-Bench checkout absent: {MISSING}")
#: S_01 (a bridge, no controller): its evaluations take seconds, so the default run uses it.
QUICK = "S_01"


def test_without_a_checkout_the_suite_says_what_to_set(tmp_path, monkeypatch):
    from simreflect.suites.pacebench.suite import PaceBenchSuite

    monkeypatch.delenv(checkout.ENV_VAR, raising=False)
    with pytest.raises(PaceBenchMissing, match="SIMREFLECT_PACEBENCH"):
        checkout.checkout_root()
    with pytest.raises(PaceBenchMissing, match="not a PACE-Bench checkout"):
        PaceBenchSuite(str(tmp_path)).load_tasks()
    assert "SIMREFLECT_PACEBENCH" in checkout.available(None)


@needs_checkout
def test_the_suite_has_pacebench_s_144_pairs_and_its_references():
    from simreflect.core.registry import get_suite

    suite = get_suite("pacebench")
    tasks = suite.load_tasks()
    assert len(tasks) == 144 and len({t.params["task"] for t in tasks}) == 36
    task = next(t for t in tasks if t.id == f"{QUICK}.Stage-1")
    assert "def build_agent(" in suite.oracle(task) and suite.oracle(task) != suite.source_program(task)
    text = suite.instruction(task)
    assert "# Success Criteria" in text and "sandbox.add_beam" in text


@needs_checkout
def test_a_sample_of_the_controls_scores_as_pacebench_scores_it():
    """The source on its own environment and on a target, and the target's reference (S_01)."""
    from simreflect.suites.pacebench.parity import compare, controls, pacebench_controls, simreflect_controls

    items = controls([QUICK])[:3]
    theirs, ours = pacebench_controls(items), simreflect_controls(items)
    same, differences = compare(ours, theirs)
    assert len(ours) == len(theirs) == 3 and same == 3, differences
    assert [c.success for c in ours] == [True, False, True]  # the source fails the target


@needs_checkout
def test_the_validate_command_prints_a_row_of_controls_and_the_parity_of_a_task():
    """`simreflect pacebench validate --tasks S_01 --stages 1 --parity`: the source on the source, on
    Stage-1 and Stage-1's reference in one row, each as expected (the source fails the stage, the
    reference passes) and scored as PACE-Bench scores it; a task or a stage that does not exist is a
    usage error."""
    import re

    from typer.testing import CliRunner

    from simreflect.cli import app

    r = CliRunner().invoke(app, ["pacebench", "validate", "--tasks", QUICK, "--stages", "1", "--parity"])
    assert r.exit_code == 0, r.output
    assert "1 task(s), 3 evaluations, 0 not as expected" in r.output
    assert "parity with PACE-Bench: 3 of 3 identical" in r.output
    row = next(line for line in r.output.splitlines() if f" {QUICK} " in line)
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert cells[0] == QUICK and cells[-1] == "3/3" and len(cells) == 5, row
    assert all(re.fullmatch(r"-?[0-9.]+ ok", c) for c in cells[1:4]), row
    assert cells[1] == cells[3] == "100 ok" and cells[2].startswith("-"), row
    r = CliRunner().invoke(app, ["pacebench", "validate", "--tasks", "X_99"])
    assert r.exit_code == 2 and "no task matches 'X_99'" in r.output
    r = CliRunner().invoke(app, ["pacebench", "validate", "--tasks", QUICK, "--stages", "5"])
    assert r.exit_code == 2 and "no stage '5'" in r.output


@needs_checkout
def test_a_run_reports_pass_at_2_and_score_at_2_with_its_domains_and_stages(tmp_path):
    """The suite follows the attempt-budget protocol (core.contract.AttemptBudget), so `simreflect report`
    gives Pass@2 and Score@2: two runs of doing nothing on S_01's Stage-1, where the source fails."""
    from typer.testing import CliRunner

    from simreflect.analysis.trajectory import load_trajectories
    from simreflect.cli import app
    from simreflect.core.contract import AttemptBudget
    from simreflect.core.registry import get_suite

    suite = get_suite("pacebench")
    assert isinstance(suite, AttemptBudget)
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["run", "pacebench", "--agent", "noop", "--tasks", f"{QUICK}.Stage-1", "--rounds", "1",
                                 "--runs", "2", "--workers", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    assert "Pass@2 and Score@2" in r.output, r.output
    trajectories = load_trajectories(out / "trajectories.jsonl")
    assert [(t.task, t.domain, t.stage, t.run) for t in trajectories] == [(f"{QUICK}.Stage-1", "statics", 1, 0),
                                                                           (f"{QUICK}.Stage-1", "statics", 1, 1)]
    flags = suite.attempt_flags({"diagnostics": {"metrics": {"failure_reason": "Design constraint violated: Mass",
                                                             "structure_broken": True}}})
    assert flags == {"constraint_violation": True, "structural_failure": True, "numerical_instability": False}
    assert not any(suite.attempt_flags({"diagnostics": "garbage"}).values())


@pytest.mark.slow
@needs_checkout
@pytest.mark.skipif(os.environ.get("SIMREFLECT_PACEBENCH_FULL") != "1",
                    reason="the 324 controls take hours on 2 shared cores: set SIMREFLECT_PACEBENCH_FULL=1")
def test_all_324_controls_score_as_pacebench_scores_them():
    from simreflect.suites.pacebench.parity import compare, controls, pacebench_controls, simreflect_controls

    checkout.load()
    from pace_bench.tasks.registry import get_registry

    items = controls([t.name for t in get_registry().benchmark_tasks])
    theirs, ours = pacebench_controls(items), simreflect_controls(items)
    same, differences = compare(ours, theirs)
    assert len(ours) == 324 and same == 324, differences


#: The controls whose simulations run for hundreds of thousands of steps.
LONG_TASKS = ("K_01", "C_04")


@pytest.mark.slow
@needs_checkout
def test_one_control_of_every_task_scores_as_pacebench_scores_it():
    """One control of each task but the two longest (parity.one_control_each: every domain, the motor- and velocity-writing
    tasks K_04, D_05, F_02, F_03, each kind of control four times), through both verifiers."""
    from simreflect.suites.pacebench.parity import (compare, control_pairs, one_control_each, pacebench_controls,
                                                    simreflect_controls, task_names)

    items = one_control_each(task_names())
    assert len(items) == 36 and {i[0][0] for i in items} == set("SKDFCE")
    assert {i[0] for i in items} >= {"K_04", "D_05", "F_02", "F_03"}
    assert sorted(control_pairs("S_01")) == sorted({(ref, env) for _, ref, env in items})
    # K_01 (350,000 steps) and C_04 (250,000) took most of this test's 37 minutes on the loaded machine:
    # they are in the full run (SIMREFLECT_PACEBENCH_FULL=1) and benchmarks/pacebench_compare.py
    items = [i for i in items if i[0] not in LONG_TASKS]
    theirs, ours = pacebench_controls(items), simreflect_controls(items)
    same, differences = compare(ours, theirs)
    assert len(ours) == 34 and same == 34, differences


@pytest.mark.slow
@needs_checkout
@pytest.mark.parametrize("name", ["S_01", "E_06", "F_03"])
def test_every_control_of_a_task_scores_as_pacebench_scores_it(name):
    """All nine controls of a statics task, a short exotic one and the excavator (motor writes)."""
    from simreflect.suites.pacebench.parity import compare, controls, pacebench_controls, simreflect_controls

    items = controls([name])
    theirs, ours = pacebench_controls(items), simreflect_controls(items)
    same, differences = compare(ours, theirs)
    assert len(ours) == 9 and same == 9, differences


# --- what PACE-Bench's in-process execution allows and this suite refuses (each on S_01, refused
# --- during the build, so no simulation runs)

BEAM = "b = sandbox.add_beam(10.0, 5.0, 2.0, 0.2)\n"


def _run(program: str, environment: str = "Initial"):
    from simreflect.suites.pacebench.evaluate import evaluate

    return evaluate(QUICK, environment, program)


def _assert_failed_cleanly(result, *words):
    assert not result.success and result.score == 0.0, (result.score, result.error)
    for w in words:
        assert w in (result.error or ""), result.error


@needs_checkout
def test_a_design_that_imports_os_finds_nothing_of_pacebench_in_the_sandbox():
    stages = checkout.checkout_root() / "src/pace_bench/tasks/categories/Category1_Statics_Equilibrium/S_01/stages.py"
    program = ("import os\n\ndef build_agent(sandbox):\n"
               f"    hidden = open({str(stages)!r}).read()\n    return None\n")
    _assert_failed_cleanly(_run(program), "Error building agent", "No such file")
    program = "def build_agent(sandbox):\n    import pace_bench.evaluation.verification.simulation\n    return None\n"
    _assert_failed_cleanly(_run(program), "No module named 'pace_bench'")


@needs_checkout
@pytest.mark.parametrize("reach, refusal", [
    ("sandbox.world.gravity", "sandbox.world is not in the documented primitive API of S_01"),
    ("sandbox._terrain_config", "'_terrain_config' is private"),
    ("getattr(sandbox, '__dict__')", "'__dict__' is private"),
    ("sandbox.add_beam(10.0, 5.0, 2.0, 0.2).fixtures[0].friction", "reading .fixtures of an environment object"),
])
def test_a_design_that_reads_hidden_parameters_through_the_environment_is_refused(reach, refusal):
    result = _run(f"def build_agent(sandbox):\n    leak = {reach}\n    return None\n")
    _assert_failed_cleanly(result, "Refused operation", refusal)
    assert result.refused and result.metrics["error_type"] == "refused_operation"


@needs_checkout
def test_a_programs_own_attribute_on_a_body_stays_in_the_sandbox():
    """C_03's Stage-4 reference keeps its controller state on the body (`agent_body.s4 = {...}`, after
    `hasattr(agent_body, 's4')`): a name the body lacks is the program's own, kept sandbox-side, so the
    reference passes; a real attribute (.position) is still refused, and the environment never sees s4."""
    from simreflect.core.registry import get_suite

    suite = get_suite("pacebench")
    task = {t.id: t for t in suite.load_tasks(None)}["C_03.Stage-4"]
    result = suite.evaluation(task, suite.oracle(task))
    assert result.success and result.score == 100.0, result.error
    program = (f"def build_agent(sandbox):\n    {BEAM}    assert not hasattr(b, 'memo')\n"
               "    b.memo = {'n': 1}\n    b.memo['n'] += 1\n    assert b.memo == {'n': 2}\n"
               "    b.position = (30.0, 12.0)\n    return b\n")
    _assert_failed_cleanly(_run(program), "assigning .position of an environment object is not allowed")


@needs_checkout
def test_a_design_that_sets_a_body_position_is_refused_where_pacebench_lets_it():
    program = f"def build_agent(sandbox):\n    {BEAM}    b.position = (30.0, 12.0)\n    return b\n"
    result = _run(program)
    _assert_failed_cleanly(result, "assigning .position of an environment object is not allowed")
    # PACE-Bench's own static check lets it through: the beam is a tool the design created
    from pace_bench.evaluation.verification.verifier import CodeVerifier

    verifier = CodeVerifier("Category1_Statics_Equilibrium/S_01")
    try:
        verifier._check_prohibited_operations(program)
    finally:
        verifier.cleanup()


@needs_checkout
@pytest.mark.parametrize("patch, words", [
    ("sandbox.step = lambda dt: None", ("assigning sandbox.step is refused",)),
    ("import pace_bench.evaluation.verification.verifier as v\n    v.CodeVerifier = None", ("No module named",)),
])
def test_a_design_that_patches_the_simulation_or_the_evaluator_fails(patch, words):
    _assert_failed_cleanly(_run(f"def build_agent(sandbox):\n    {patch}\n    return None\n"), *words)


@needs_checkout
def test_a_fake_body_that_reports_the_goal_cannot_stand_in_for_a_real_one():
    """In PACE-Bench's process build_agent may return any object with a `position`; the evaluator and
    the stuck detector read it. Here only the environment's own objects cross the pipe."""
    program = ("class Fake:\n    class position:\n        x, y = 1e3, 1e3\n\n"
               "def build_agent(sandbox):\n    return Fake()\n")
    _assert_failed_cleanly(_run(program), "Error building agent", "cannot be passed to the environment")


@needs_checkout
def test_a_design_that_floods_the_pipe_is_stopped(monkeypatch):
    from simreflect.suites.pacebench import bridge

    monkeypatch.setattr(bridge, "MAX_CALLS_PER_TURN", 50)
    program = "def build_agent(sandbox):\n    for _ in range(1000):\n        sandbox.get_structure_mass()\n"
    _assert_failed_cleanly(_run(program), "more than 50 environment calls in one build")


@needs_checkout
def test_garbage_on_the_reply_channel_is_a_clean_failure():
    program = "import os\n\ndef build_agent(sandbox):\n    os.write(4, b'\\x00not json\\n')\n    return None\n"
    result = _run(program)
    _assert_failed_cleanly(result, "Verification process error")
    assert "not one JSON value" in result.error


@needs_checkout
def test_the_writes_a_reference_needs_are_allowed_in_its_task_alone():
    from pace_bench.tasks.registry import get_registry

    from simreflect.suites.pacebench.policy import policy_for

    registry = get_registry()
    d05, s01 = (policy_for(registry.resolve(n), registry) for n in ("D_05", "S_01"))
    assert "angularVelocity" in d05.writes and not s01.writes
    assert not d05.refusal(False, "set", "angularVelocity") and s01.refusal(False, "set", "angularVelocity")
    assert "bodies" in d05.sandbox_names and "bodies" not in s01.sandbox_names
    assert d05.refusal(False, "set", "position") and d05.refusal(True, "set", "bodies")


# --- the trusted end of the pipe, fuzzed: whatever a call message says, the bridge answers it or
# --- refuses it, and never raises anything else into the evaluation

def _s01_bridge():
    from pace_bench.evaluation.verification.verifier import CodeVerifier
    from pace_bench.tasks.registry import get_registry

    from simreflect.suites.pacebench.bridge import Bridge
    from simreflect.suites.pacebench.policy import policy_for

    registry = get_registry()
    task = registry.resolve(QUICK)
    initial = registry.environments(task)[0]
    verifier = CodeVerifier(task.full_name, env_overrides=initial.overrides, registry=registry)
    environment = verifier._init_environment()
    verifier.cleanup()
    return Bridge(lambda msg, timeout: None, environment, policy_for(task, registry), 1.0)


@needs_checkout
def test_hostile_call_messages_are_answered_or_refused_never_raised():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from simreflect.suites.pacebench.bridge import Refused

    bridge = _s01_bridge()
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                        st.floats(-1e6, 1e6, allow_nan=False), st.text(max_size=8))
    tagged = st.one_of(st.fixed_dictionaries({"$h": st.integers(-3, 5)}),
                       st.fixed_dictionaries({"$v": st.lists(scalars, max_size=3)}),
                       st.fixed_dictionaries({"$f": st.sampled_from(["nan", "inf", "-inf", "1", "x"])}),
                       st.fixed_dictionaries({"$x": st.text(max_size=4)}))
    values = st.recursive(st.one_of(scalars, tagged),
                          lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                  st.fixed_dictionaries({"$t": st.lists(inner, max_size=3)}),
                                                  st.fixed_dictionaries({"$d": st.lists(st.lists(inner, min_size=2,
                                                                                                 max_size=2),
                                                                                        max_size=3)}),
                                                  st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                          max_leaves=12)
    names = st.one_of(st.sampled_from(sorted(bridge.policy.sandbox_names) + ["world", "_terrain_config", "__dict__",
                                                                             "position", "step", "fixtures"]),
                      st.text(max_size=12))
    calls = st.fixed_dictionaries({"op": st.just("call"), "kind": st.sampled_from(["get", "set", "invoke", "del"]),
                                   "h": st.one_of(st.integers(-2, 4), values), "name": names},
                                  optional={"args": st.one_of(st.lists(values, max_size=6), values),
                                            "kwargs": st.one_of(st.dictionaries(names, values, max_size=3), values),
                                            "value": values})
    plausible = st.fixed_dictionaries({"op": st.just("call"), "kind": st.sampled_from(["get", "invoke"]),
                                       "h": st.just(0), "name": st.sampled_from(sorted(bridge.policy.sandbox_names)),
                                       "args": st.lists(scalars, max_size=5), "kwargs": st.just({})})
    seen = {"answered": 0, "refused": 0}

    @settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(plausible, calls))
    def one(call):
        try:
            answer = bridge.serve(call)
        except Refused as e:
            assert str(e)
            seen["refused"] += 1
            return
        assert answer["op"] in ("ret", "raise")
        seen["answered"] += 1

    one()
    assert seen["answered"] > 10 and seen["refused"] > 10, seen


@pytest.mark.slow
@needs_checkout
def test_the_suite_passes_the_checker_on_a_statics_pair():
    """simreflect check: doing nothing fails, the oracle passes, verdicts repeat across processes,
    hostile programs (crash, links, FIFOs, garbage) fail cleanly, nothing leaves the scale."""
    from simreflect.core.registry import get_suite
    from simreflect.testing.check import check_suite

    suite = get_suite("pacebench")
    report = check_suite(suite, suite.default_root(), tasks=(f"{QUICK}.Stage-1",))
    assert report.ok, report.text()
    assert report.checks >= 30


@needs_checkout
def test_doing_nothing_fails():
    result = _run("def build_agent(sandbox):\n    return None\n")
    assert not result.success and result.score < 0 and result.error is None
