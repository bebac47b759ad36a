"""pace rules that bind: bounds on every number a design declares, and success held, never one tick.

The loophole this closes (issue 17): a pre-loaded spring flung the chimney climber past its height
on all four stages, with no motor and without touching the walls, and the evaluator ended the run
on the first tick the centre of mass was high enough. Each attack below is a design or a
condition that got (or would get) an unearned pass, with the rule that now refuses it.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simreflect.suites.pace.hold as hold_mod
from simreflect.suites.pace import prompt
from simreflect.suites.pace.bounds import MIN_REST_LENGTH, bound_problems, spring_energy, zone_extent
from simreflect.suites.pace.design import DesignInvalid, check_design, parse_design
from simreflect.suites.pace.engine import EngineSettings, JointStrength, Sim
from simreflect.suites.pace.evaluate import evaluate
from simreflect.suites.pace.hold import Hold, HoldRule
from simreflect.suites.pace.overlap import world_overlaps
from simreflect.suites.pace.task import STAGES, TARGETS, load_spec, load_specs, tasks_dir

from pace_helpers import declare, rules

DATA = Path(__file__).parent / "data" / "pace"
SPECS = load_specs()
CLIMBER = load_spec("kinematics_wall_climber")
LAUNCH = (DATA / "wall_climber_preloaded_spring_launch.py").read_text()
#: One task per domain and every kind of hold (reach, end, run): the quick subset of the
#: one-tick test; the slow run takes all 36.
ONE_TICK_SAMPLE = ("statics_cantilever", "kinematics_wall_climber", "dynamics_swing_pump", "granular_excavator",
                   "control_seeker", "exotic_egg_cradle")


def rule_problems(build, **kw) -> str:
    constraints, _ = check_design(parse_design(declare(build)), rules(**kw))
    return next(c.detail for c in constraints if c.name == "design_rules")


# ----- the loophole, through the real path --------------------------------------------------------

@pytest.mark.parametrize("stage", TARGETS)
def test_the_preloaded_spring_launch_breaks_a_rule_on_every_stage(stage, tmp_path):
    """Before: 100 on all four stages (the blocks flew to 3.2-4.5 m in 14-16 steps). Now the
    sandboxed program's design breaks design_rules, and the verdict says which rule."""
    ev = evaluate(CLIMBER, stage, LAUNCH, workdir=tmp_path)
    assert ev.program.status == "ok" and not ev.invalid
    assert not ev.passed and ev.score < 0
    failed = {c.name: c.detail for c in ev.constraints if not c.passed}
    assert "design_rules" in failed
    assert "rest length 2 m is not within 25% of the declared distance" in failed["design_rules"]
    assert "J at declaration" in failed["design_rules"] and "above the 10 J this task allows" in failed["design_rules"]
    assert ev.failure.startswith("the design breaks a rule: design_rules violated (s1: rest length")
    assert "design_rules" in ev.feedback and "rest length" in ev.feedback


@pytest.mark.parametrize("stage", TARGETS)
def test_a_flung_climber_is_not_held_even_where_the_bounds_would_let_it_fly(stage, monkeypatch):
    """The second line: with the spring bounds lifted the blocks fly above the height for over a
    second, but nothing holds them there (they touch no wall), so the goal is not met."""
    spec = load_spec("kinematics_wall_climber")
    strict = spec.rules
    monkeypatch.setattr(spec, "rules", lambda env: replace(strict(env), spring_preload=100.0, spring_energy=math.inf))
    within_zone = LAUNCH.replace("stiffness=2000.0", "stiffness=5000.0").replace("rest_length=2.0", "rest_length=1.6")
    ev = evaluate(spec, stage, within_zone, trusted_inprocess=True)
    assert all(c.passed for c in ev.constraints if c.name in ("design_rules", "build_zone"))
    assert ev.terminal["best"] > spec.environment(stage)["climb_height"] + 1.0  # it did fly past the height
    assert not ev.goal_met and not ev.passed


def test_without_its_preload_the_same_design_goes_nowhere():
    """The pass came from the stored energy alone: the same two blocks on an unloaded spring stay
    on the floor (no rule broken, no progress)."""
    unloaded = LAUNCH.replace(", rest_length=2.0", "")
    ev = evaluate(CLIMBER, "stage1", unloaded, trusted_inprocess=True)
    assert not ev.passed and all(c.passed for c in ev.constraints) and ev.terminal["best"] < 0.6


def test_the_climbers_references_stay_within_their_preload():
    for st in STAGES:
        data = parse_design(_declared(CLIMBER, st))
        assert not bound_problems(data, CLIMBER.rules(CLIMBER.environment(st))), st


def _declared(spec, stage):
    from simreflect.suites.pace.evaluate import InProcessChannel

    reply = InProcessChannel(spec.reference(stage)).request({"op": "build", "env": spec.visible(stage)}, 10)
    return reply["design"]


# ----- bounds on what a design declares ------------------------------------------------------------

def two_blocks(rest=None, k=1000.0, second=None):
    def build(a):
        low = a.block((0.0, 0.5), 0.4, 0.2, material="wood")
        high = a.block((0.0, 1.5), 0.4, 0.2, material="wood")
        a.spring(low, high, (0.0, 0.5), (0.0, 1.5), stiffness=k, damping=0.0, rest_length=rest)
        if second is not None:
            a.spring(low, high, (0.1, 0.5), (0.1, 1.5), stiffness=k, damping=0.0, rest_length=second)
    return build


@pytest.mark.parametrize("rest, energy, broken", [
    (None, 0.0, ""),  # the default: the declared distance, unloaded
    (1.25, 100.0, ""),  # at the pre-load bound (1 m x 1.25) and with the energy budget it needs
    (1.26, 1000.0, "is not within 25%"),
    (0.74, 1000.0, "is not within 25%"),
    (1.1, 4.0, "hold 5 J at declaration"),  # within the ratio, above the energy budget
])
def test_a_springs_rest_length_and_stored_energy_are_bounded(rest, energy, broken):
    text = rule_problems(two_blocks(rest), spring_energy=energy)
    if broken:
        assert broken in text, text
    else:
        assert text == "", text


def test_a_rest_length_never_exceeds_the_zone():
    def across(a):
        left, right = a.block((-4.5, 1.0), 0.4, 0.4), a.block((4.5, 1.0), 0.4, 0.4)
        a.spring(left, right, (-4.5, 1.0), (4.5, 1.0), stiffness=10.0, rest_length=11.2)  # within 25% of 9 m

    text = rule_problems(across, spring_energy=1e9)
    assert "longer than the build zone's extent (10.8 m)" in text and "within 25%" not in text


def test_a_spring_between_coincident_anchors_is_built_loaded_and_counted_so():
    """Box2D needs a rest length of at least 1 cm: a zero-length spring is built pushing its ends
    apart by that much (25 J at 500 kN/m), so its pre-load is the built one, not the declared 0."""
    def build(a):
        low, high = a.block((0.0, 0.5), 0.4, 0.4), a.block((0.0, 0.6), 0.4, 0.4)
        a.spring(low, high, (0.0, 0.55), (0.0, 0.55), stiffness=5e5, rest_length=0.0)

    text = rule_problems(build, spring_stiffness=(10.0, 1e6))
    assert "rest length 0.01 m is not within 25%" in text and "hold 25 J at declaration" in text


def test_the_energy_of_every_spring_counts_against_one_budget():
    assert spring_energy(1000.0, 1.1, 1.0) == pytest.approx(5.0)
    assert rule_problems(two_blocks(1.1), spring_energy=6.0) == ""
    assert "hold 10 J" in rule_problems(two_blocks(1.1, second=1.1), spring_energy=6.0)


def test_pivot_limits_must_hold_the_declared_pose():
    """A joint declared outside its own limits is snapped to a stop on the first step: energy from
    nowhere. Box2D measures the angle from the declaration, so 0 must lie within the limits."""
    def build(lo, hi):
        def b(a):
            arm = a.beam((0.0, 0.05), (2.0, 0.05), thickness=0.1, material="wood")
            a.pivot(a.GROUND, arm, (0.0, 0.05), limits=(lo, hi))
        return b

    assert rule_problems(build(-0.5, 0.5)) == "" and rule_problems(build(0.0, 1.0)) == ""
    assert "do not hold the declared pose" in rule_problems(build(0.3, 0.6))
    assert "do not hold the declared pose" in rule_problems(build(-0.6, -0.01))


def test_block_angles_are_an_orientation():
    assert "outside +-2 pi" in rule_problems(lambda a: a.block((0.0, 1.0), 0.5, 0.5, angle=1e6))
    assert rule_problems(lambda a: a.block((0.0, 1.0), 0.5, 0.5, angle=-6.0)) == ""


def test_a_motor_on_the_lightest_part_turns_no_faster_than_its_limit():
    """A motor is a speed with a torque cap: on a 0.4 kg foam sliver at the largest torque it
    turns at the task's motor speed (Box2D's iterations overshoot it by a few per cent for a
    step or two while it spins up), never at what the torque alone would give it."""
    def build(a):
        sliver = a.beam((0.0, 1.0), (0.2, 1.0), thickness=0.05, material="foam")
        a.pivot(a.GROUND, sliver, (0.0, 1.0), motor_speed=5.0, max_torque=100.0)

    design = parse_design(declare(build))
    sim = Sim(EngineSettings(max_steps=120, sleep=False), gravity=(0.0, 0.0))
    sim.build_design(design, rules(), JointStrength())
    spins = []
    for _ in range(120):
        sim.world.Step(1 / 60, 8, 3)
        spins.append(abs(sim.parts["p1"].angularVelocity))
    assert design.parts[0].mass < 0.5
    assert max(spins) < 1.1 * 5.0 and spins[-1] == pytest.approx(5.0, rel=1e-3)


def test_a_joint_cannot_be_declared_in_tension():
    """A joint has one anchor, the same point on both parts; one declared off a part is refused."""
    def build(a):
        b1 = a.block((0.0, 1.0), 0.5, 0.5)
        b2 = a.block((1.0, 1.0), 0.5, 0.5)
        a.rigid(b1, b2, (0.5, 1.0))  # 0.25 m off both

    assert "is not on part" in rule_problems(build)


# ----- parts declared inside the world --------------------------------------------------------------

def built(build, extra=None):
    sim = Sim(EngineSettings(max_steps=10, sleep=False))
    sim.static_box((0.0, -0.5), 20.0, 1.0)  # the ground's top at y = 0
    if extra is not None:
        extra(sim)
    sim.build_design(parse_design(declare(build)), rules(), JointStrength())
    return sim


@pytest.mark.parametrize("sink, inside", [(0.0, False), (0.03, False), (0.08, True), (0.5, True)])
def test_a_part_declared_inside_the_ground_is_named(sink, inside):
    sim = built(lambda a: a.block((0.0, 0.25 - sink), 1.0, 0.5))
    found = world_overlaps(sim, 0.05)
    assert bool(found) == inside, found
    if inside:
        assert "p1 is declared more than 0.05 m inside the terrain" in found[0]


def test_a_disc_inside_a_task_body_is_named_but_not_inside_a_sensor_or_its_own_group():
    def task_bodies(sim):
        ball = sim.dynamic_circle((0.0, 2.0), 0.3, 10.0, name="ball")
        sensor = sim.world.CreateStaticBody(position=(3.0, 2.0))
        sensor.CreateCircleFixture(radius=0.5, isSensor=True)
        sim.dynamic_box((-3.0, 2.0), 0.5, 0.5, 10.0, name="package", group=-1)  # the design's own group

    sim = built(lambda a: (a.wheel((0.0, 2.2), 0.3), a.wheel((3.0, 2.0), 0.3), a.wheel((-3.0, 2.0), 0.3)),
                task_bodies)
    assert world_overlaps(sim, 0.05) == ["p1 is declared more than 0.05 m inside ball (the solver would push it out "
                                         "at the start)"]


def test_a_ball_placed_inside_the_launcher_breaks_a_rule():
    spec = load_spec("dynamics_launcher")
    program = spec.program("source").replace("(t / 2 + 0.205)", "(t / 2 + 0.05)")  # 0.15 m into the arm
    assert program != spec.program("source")
    ev = evaluate(spec, "source", program, trusted_inprocess=True)
    detail = next(c.detail for c in ev.constraints if c.name == "design_rules")
    assert not ev.passed and "inside ball" in detail


def test_a_ball_placed_inside_the_ground_breaks_a_rule():
    spec = load_spec("dynamics_launcher")
    program = spec.program("source") + "    api.place('ball', (-2.0, 0.05))  # its centre 0.05 m up: 0.15 m inside\n"
    ev = evaluate(spec, "source", program, trusted_inprocess=True)
    detail = next(c.detail for c in ev.constraints if c.name == "design_rules")
    assert not ev.passed and "the placed ball is declared more than 0.05 m inside the terrain" in detail


# ----- the hold -------------------------------------------------------------------------------------

def test_a_condition_seen_on_one_tick_has_lasted_nothing():
    h = Hold(HoldRule("reach", 1.0))
    assert not h.update(100, True) and not h.update(104, False)
    assert h.best == 0 and not h.met and h.first_step == 100
    assert "was reached but not held for 1 s" in h.not_held("the height")


def test_a_reach_hold_completes_after_its_seconds_and_stays_met():
    h = Hold(HoldRule("reach", 1.0))
    assert [h.update(s, True) for s in range(10, 71, 10)] == [False] * 6 + [True]
    assert h.met_step == 70 and h.update(80, False) and h.met and h.not_held("x") is None


def test_a_hold_may_go_on_after_its_deadline_but_not_begin():
    late = Hold(HoldRule("reach", 0.5))
    assert not late.update(200, True, may_start=False) and late.since is None and late.first_step is None
    going = Hold(HoldRule("reach", 0.5))
    going.update(190, True, may_start=True)
    assert going.update(220, True, may_start=False) and going.met_step == 220


def test_an_end_hold_needs_the_last_seconds_unbroken():
    h = Hold(HoldRule("end", 1.0))
    for s in range(0, 121, 10):
        h.update(s, s != 70)
    assert not h.conclude(True)  # broken at 70: 80..120 is 40 steps
    h = Hold(HoldRule("end", 1.0))
    for s in range(0, 121, 10):
        h.update(s, s >= 60)
    assert not h.conclude(False) and h.conclude(True) and h.met_step == 120


def test_a_run_hold_is_broken_by_one_bad_check():
    h = Hold(HoldRule("run"))
    for s in range(1, 100):
        h.update(s, s != 50)
    assert not h.conclude(True) and h.broken_step == 50 and "broken at step 50" in h.describe()
    h = Hold(HoldRule("run"))
    for s in range(1, 100):
        h.update(s, True)
    assert h.conclude(True) and h.describe() == "held throughout"


@pytest.mark.parametrize("until, seconds", [("reach", 0.2), ("end", 0.0), ("sometime", 1.0)])
def test_a_card_cannot_state_a_hold_of_one_instant(until, seconds):
    with pytest.raises(ValueError):
        HoldRule(until, seconds)


def test_every_card_states_its_hold_and_every_evaluator_feeds_it():
    for spec in SPECS:
        for stage in STAGES:
            rule = spec.hold_rule(spec.environment(stage))
            assert rule.until == "run" or rule.seconds >= hold_mod.MIN_HOLD_S, spec.id
        text = str(spec.card["success"])
        raw = spec.card.get("hold_s")
        if spec.card["hold"] == "run":
            assert re.match(r"(From|For) ", text), (spec.id, text)  # the window is the run
        elif isinstance(raw, str):
            assert "{" + raw[4:] + "} s" in text, (spec.id, text)
        else:
            assert f"{raw:g} s" in text, (spec.id, text)
        assert _feeds_its_hold(spec.folder / "evaluator.py"), f"{spec.id}: its evaluator never feeds self.success"


def _feeds_its_hold(path: Path) -> bool:
    """Whether the module calls .update on self.success (or on a local name bound to it)."""
    tree = ast.parse(path.read_text())

    def is_success(node) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "success" and isinstance(node.value, ast.Name) \
            and node.value.id == "self"

    aliases = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and is_success(n.value)
               for t in n.targets if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "update"
               and (is_success(n.func.value) or isinstance(n.func.value, ast.Name) and n.func.value.id in aliases)
               for n in ast.walk(tree))


def test_an_evaluator_that_decides_without_its_hold_is_refused(monkeypatch):
    spec = load_spec("statics_bridge")
    honest = spec.evaluator_class

    class Cheat(honest):
        def finish(self):
            out = super().finish()
            out.goal_met = True
            return out

    monkeypatch.setitem(spec.__dict__, "evaluator_class", Cheat)
    with pytest.raises(RuntimeError, match="without its success hold"):
        evaluate(spec, "stage1", spec.program("source"), trusted_inprocess=True)


def one_tick(task: str, monkeypatch):
    """The task's reference with its success condition forced true on one tick only (the first
    tick it really is true), false on every other."""
    real = Hold.update

    def update(self, step, ok, may_start=True):
        first = ok and not getattr(self, "_seen", False)
        if first:
            self._seen = True
        return real(self, step, first, may_start)

    monkeypatch.setattr(Hold, "update", update)
    spec = load_spec(task)
    out = []
    for stage in ("source", "stage1"):
        ev = evaluate(spec, stage, spec.reference(stage), trusted_inprocess=True)
        out.append((stage, ev.passed, ev.goal_met))
    return out


@pytest.mark.parametrize("task", ONE_TICK_SAMPLE)
def test_a_goal_touched_for_one_tick_never_passes(task, monkeypatch):
    for stage, passed, goal_met in one_tick(task, monkeypatch):
        assert not passed and not goal_met, (task, stage)


@pytest.mark.slow
@pytest.mark.parametrize("task", sorted(p.name for p in tasks_dir().iterdir() if (p / "card.toml").is_file()))
def test_no_task_passes_on_one_tick(task, monkeypatch):
    for stage, passed, goal_met in one_tick(task, monkeypatch):
        assert not passed and not goal_met, (task, stage)


# ----- the interface document -------------------------------------------------------------------------

def test_every_bound_is_stated_in_the_task_card():
    for spec in SPECS:
        for stage in ("source", "stage4"):
            text = prompt.instruction(spec, stage)
            limits = text.split("## Design limits\n", 1)[1].split("\n\n", 1)[0]
            r = spec.rules(spec.environment(stage))
            assert "No success is decided on one instant" in text, spec.id
            if r.max_parts == 0:
                assert "declares no parts" in limits, spec.id
                continue
            assert f"at most {r.max_parts} parts" in limits and "inside the terrain" in limits, spec.id
            if "motor" in r.primitives:
                assert f"at most {r.max_motor_speed:g} rad/s" in limits and f"0-{r.max_motor_torque:g} N m" in limits
            if "limits" in r.primitives:
                assert "lower <= 0 <= upper" in limits, spec.id
            if "spring" in r.primitives and r.max_springs:
                assert f"(1 +- {r.spring_preload:g})" in limits and f"at most {r.spring_energy:g} J" in limits
                assert f"at most {zone_extent((r.build_zone, r.anchor_zones)):.3g} m" in limits


# ----- hostile designs: the checks never throw, and every problem is named ---------------------------

finite = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False)
positive = st.floats(min_value=0.0, max_value=1e7, allow_nan=False)
part = st.fixed_dictionaries({
    "kind": st.sampled_from(["beam", "block", "wheel"]), "material": st.sampled_from(["steel", "wood", "rubber", "x"]),
    "x": finite, "y": finite, "x1": finite, "y1": finite, "x2": finite, "y2": finite, "angle": finite,
    "width": st.floats(0.002, 10.0), "height": st.floats(0.002, 10.0), "radius": st.floats(0.002, 5.0),
    "thickness": st.floats(0.002, 2.0)})


@st.composite
def designs(draw):
    parts = [dict(p, id=f"p{i + 1}") for i, p in enumerate(draw(st.lists(part, max_size=6)))]
    ends = ["ground"] + [p["id"] for p in parts]
    joints, springs = [], []
    for i in range(draw(st.integers(0, 4))):
        a, b = draw(st.sampled_from(ends)), draw(st.sampled_from(ends))
        lim = draw(st.one_of(st.none(), st.tuples(finite, finite).map(sorted)))
        motor = draw(st.booleans())
        joints.append({"id": f"j{i + 1}", "kind": draw(st.sampled_from(["rigid", "pivot"])), "a": a, "b": b,
                       "x": draw(finite), "y": draw(finite), "motor_speed": draw(finite) if motor else None,
                       "max_torque": draw(positive) if motor else None, "limits": None if lim is None else list(lim)})
    for i in range(draw(st.integers(0, 4))):
        springs.append({"id": f"s{i + 1}", "a": draw(st.sampled_from(ends)), "b": draw(st.sampled_from(ends)),
                        "ax": draw(finite), "ay": draw(finite), "bx": draw(finite), "by": draw(finite),
                        "stiffness": draw(positive), "damping": draw(positive), "rest_length": draw(positive)})
    return {"parts": parts, "joints": joints, "springs": springs}


FUZZ = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=150, **FUZZ)
@given(designs())
def test_hostile_designs_get_named_problems_never_an_exception(data):
    check_hostile(data)


@pytest.mark.slow
@settings(max_examples=3000, **FUZZ)
@given(designs())
def test_many_hostile_designs_get_named_problems_never_an_exception(data):
    check_hostile(data)


def check_hostile(data):
    """check_design on whatever parses never raises, names every problem, and lets no spring
    outside its bounds or energy budget through."""
    try:
        design = parse_design(data)
    except DesignInvalid:
        return  # refused outright, with its reason (parse is tested on its own)
    constraints, summary = check_design(design, rules(spring_energy=5.0))
    problems = bound_problems(design, rules(spring_energy=5.0))
    assert all(isinstance(p, str) and p for p in problems)
    by_name = {c.name: c for c in constraints}
    assert by_name["design_rules"].passed == (not summary["rule_problems"])
    assert set(problems) <= set(summary["rule_problems"])
    for s in design.springs:  # a spring outside its bounds is never let through
        d = math.hypot(s.bx - s.ax, s.by - s.ay)
        if abs(max(MIN_REST_LENGTH, s.rest_length) - d) > 0.25 * d + 1e-6:
            assert any(p.startswith(f"{s.id}: rest length") for p in problems)
    stored = sum(spring_energy(s.stiffness, max(MIN_REST_LENGTH, s.rest_length), math.hypot(s.bx - s.ax, s.by - s.ay))
                 for s in design.springs)
    assert (stored > 5.0 + 1e-6) == any("J at declaration" in p for p in problems)
