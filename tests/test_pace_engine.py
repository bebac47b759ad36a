"""The pace engine and its shared pieces, without the sandbox: joint breaking, numerical health,
the score formula, design parsing and validation, the primitive API, springs."""

from __future__ import annotations

import math

import pytest

from simreflect.suites.pace import api as api_mod
from simreflect.suites.pace.design import (
    ENGINE_CAP,
    DesignInvalid,
    DesignRules,
    check_design,
    parse_design,
    point_in_polygon,
)
from simreflect.suites.pace.engine import (
    DT,
    EngineSettings,
    JointStrength,
    Sim,
    spring_parameters,
)
from simreflect.suites.pace.scoring import Constraint, score

from pace_helpers import declare, rules

class NeverDone:
    def tick(self, step: int) -> bool:
        return False


def cantilever(a):
    """A 3 m steel beam welded to the ground at one end: its weld carries the beam's moment."""
    b = a.beam((0.0, 1.0), (3.0, 1.0), thickness=0.2, material="steel")
    a.rigid(b, a.GROUND, (0.0, 1.0))


def run_sim(data: dict, strength: JointStrength, steps: int = 60, r: DesignRules | None = None) -> Sim:
    sim = Sim(EngineSettings(max_steps=steps, sleep=False))
    sim.static_box((0.0, -0.5), 20.0, 1.0)
    sim.build_design(parse_design(data), r or rules(), strength)
    sim.run(NeverDone())
    return sim


# ----- joints --------------------------------------------------------------------------------------

def test_a_weld_breaks_when_its_reaction_torque_exceeds_its_strength():
    data = declare(cantilever)
    # the beam: 3 m x 0.2 m of steel = 300 kg; moment at the weld = m g L/2 = 300 * 9.81 * 1.5 = 4.4 kN m
    strong = run_sim(data, JointStrength(rigid_force=1e9, rigid_torque=1e5))
    rec = strong.joints["j1"]
    assert rec.broken_step is None and rec.joint is not None
    assert rec.peak_torque == pytest.approx(300 * 9.81 * 1.5, rel=0.15)
    assert rec.peak_force == pytest.approx(300 * 9.81, rel=0.15)

    weak = run_sim(data, JointStrength(rigid_force=1e9, rigid_torque=3000.0))
    rec = weak.joints["j1"]
    assert rec.broken_step is not None and rec.broken_step <= 3 and rec.broken_by == "torque"
    assert rec.joint is None  # destroyed in the world
    assert len(weak.world.joints) == 0
    ev = [e for e in weak.events if e.kind == "joint_failure"]
    assert len(ev) == 1 and "j1" in ev[0].text and "% of its limit" in ev[0].text
    assert weak.parts["p1"].position.y < 0.9  # it fell once free
    summary = weak.joint_summaries()[0]
    assert summary["broken_step"] == rec.broken_step and summary["torque_ratio"] > 1.0


def test_a_pivot_breaks_on_force_and_never_on_torque():
    def hanging(a):
        b = a.beam((0.0, 3.0), (0.0, 1.0), thickness=0.2, material="steel")  # 200 kg hanging from a pin
        a.pivot(b, a.GROUND, (0.0, 3.0))

    data = declare(hanging)
    ok = run_sim(data, JointStrength(pivot_force=5000.0))
    assert ok.joints["j1"].broken_step is None and ok.joints["j1"].max_torque is None
    broke = run_sim(data, JointStrength(pivot_force=1000.0))
    assert broke.joints["j1"].broken_by == "force"


def test_many_joints_use_the_same_break_rule_as_few():
    """The per-step check has a plain loop for a few joints and a map-based one for many: a chain of
    beams must break at the same joint and step whichever path runs."""
    def chain(a, n):
        prev = None
        for i in range(n):
            b = a.beam((i * 0.5, 2.0), ((i + 1) * 0.5, 2.0), thickness=0.1, material="steel")
            a.rigid(b, prev if prev is not None else a.GROUND, (i * 0.5, 2.0))
            prev = b

    small = run_sim(declare(lambda a: chain(a, 4)), JointStrength(rigid_torque=500.0), steps=30,
                    r=rules(max_parts=20, max_joints=20))
    big = run_sim(declare(lambda a: chain(a, 9)), JointStrength(rigid_torque=500.0), steps=30,
                  r=rules(max_parts=20, max_joints=20))
    assert small.broken_joints() and big.broken_joints()
    assert small.broken_joints()[0].id == big.broken_joints()[0].id == "j1"  # the root carries the most


# ----- numerical health --------------------------------------------------------------------------

def test_nan_is_detected_and_stops_the_run():
    data = declare(lambda a: a.block((0.0, 2.0), 1.0, 1.0))
    sim = Sim(EngineSettings(max_steps=300, sleep=False, health_every=5))
    sim.build_design(parse_design(data), rules(), JointStrength())
    sim.parts["p1"].linearVelocity = (float("nan"), 0.0)
    sim.run(NeverDone())
    assert sim.stopped == "numerical" and sim.health.status == "failed"
    assert "NaN" in sim.health.problem and sim.health.problem_step == 5
    assert any(e.kind == "numerical" for e in sim.events)


def test_speed_blowups_are_detected():
    data = declare(lambda a: a.block((0.0, 2.0), 1.0, 1.0))
    sim = Sim(EngineSettings(max_steps=300, sleep=False, health_every=5))
    sim.build_design(parse_design(data), rules(), JointStrength())
    sim.set_gravity(0.0, 0.0)
    sim.parts["p1"].linearVelocity = (110.0, 0.0)
    sim.run(NeverDone())
    assert sim.stopped == "numerical" and "speed blow-up" in sim.health.problem


def test_a_healthy_run_reports_its_checks_and_peak_speed():
    sim = run_sim(declare(lambda a: a.block((0.0, 3.0), 1.0, 1.0)), JointStrength(), steps=120)
    h = sim.health.to_dict()
    assert h["status"] == "ok" and h["checks"] >= 4 and h["peak_speed"] > 1.0
    assert sim.steps == 120 and sim.engine_s > 0


# ----- the score -----------------------------------------------------------------------------------

def C(name: str, ok: bool) -> Constraint:
    return Constraint(name, name, passed=ok)


@pytest.mark.parametrize("goal, progress, passed, expected", [
    (True, 1.0, [True] * 7, 100.0),
    (True, 1.0, [False] + [True] * 6, -14.29),
    (False, 0.8, [False, False] + [True] * 5, -28.57),
    (False, 0.0, [False] * 7, -100.0),
    (False, 0.42, [True] * 7, 42.0),
    (False, 1.0, [True] * 7, 99.0),  # goal not met: never the full 100
    (False, -3.0, [True] * 4, 0.0),
    (False, float("nan"), [True] * 4, 0.0),
    (True, 0.0, [True] * 4 + [False] * 4, -50.0),  # a met goal does not offset violations
])
def test_the_score_formula(goal, progress, passed, expected):
    assert score(goal, progress, [C(f"c{i}", p) for i, p in enumerate(passed)]) == expected


def test_margins_and_hidden_limits():
    c = Constraint("m", "mass", passed=True, value=800.0, limit=1000.0, unit="kg")
    assert c.margin == pytest.approx(0.2)
    c = Constraint("t", "touch", passed=False, value=3.0, limit=2.0, sense="<=")
    assert c.margin == pytest.approx(-0.5)
    c = Constraint("r", "reach", passed=False, value=8.0, limit=10.0, sense=">=")
    assert c.margin == pytest.approx(-0.2)
    assert Constraint("z", "zero", passed=True, value=0.0, limit=0.0).margin is None
    hidden = Constraint("h", "hidden", passed=True, value=80.0, limit=100.0, hidden_limit=True)
    assert hidden.to_dict()["limit"] is None


# ----- the design: parsing -------------------------------------------------------------------------

@pytest.mark.parametrize("data, message", [
    ("a string", "must be a JSON object"),
    ({"parts": "x"}, "must be a list"),
    ({"parts": [{"id": "p1", "kind": "blob", "material": "steel"}]}, "unknown part kind"),
    ({"parts": [{"id": "p1", "kind": "block", "material": "steel", "x": float("nan"), "y": 0, "width": 1,
                 "height": 1}]}, "not a finite number"),
    ({"parts": [{"id": "p1", "kind": "block", "material": "steel", "x": 0, "y": 0, "width": True,
                 "height": 1}]}, "must be a number"),
    ({"parts": [{"id": "p1", "kind": "block", "material": "steel", "x": 0, "y": 0, "width": 0, "height": 1}]},
     "above 1 mm"),
    ({"parts": [{"id": "p1", "kind": "wheel", "material": "steel", "x": 0, "y": 0, "radius": 1},
                {"id": "p1", "kind": "wheel", "material": "steel", "x": 0, "y": 0, "radius": 1}]}, "fresh identifier"),
    ({"joints": [{"id": "j1", "kind": "rigid", "a": "p9", "b": "ground", "x": 0, "y": 0}]}, "not declared parts"),
    ({"parts": [{"id": "p1", "kind": "wheel", "material": "steel", "x": 0, "y": 0, "radius": 1}],
      "joints": [{"id": "j1", "kind": "weld", "a": "p1", "b": "ground", "x": 0, "y": 0}]}, "unknown joint kind"),
    ({"parts": [{"id": "p1", "kind": "wheel", "material": "steel", "x": 0, "y": 0, "radius": 1}],
      "joints": [{"id": "j1", "kind": "pivot", "a": "p1", "b": "ground", "x": 0, "y": 0, "motor_speed": 1}]},
     "needs both"),
    ({"parts": [{"id": f"p{i}", "kind": "wheel", "material": "steel", "x": 0, "y": 0, "radius": 1}
                for i in range(ENGINE_CAP["parts"] + 1)]}, "at most"),
    ({"parts": [{"id": "p1", "kind": "wheel", "material": "steel", "x": 0, "y": 0, "radius": 1}],
      "springs": [{"id": "s1", "a": "p1", "b": "ground", "ax": 0, "ay": 0, "bx": 0, "by": 1, "stiffness": -5,
                   "damping": 1, "rest_length": 1}]}, "stiffness must be positive"),
])
def test_unreadable_designs_are_refused_with_a_reason(data, message):
    with pytest.raises(DesignInvalid, match=message):
        parse_design(data)


# ----- the design: rules ---------------------------------------------------------------------------

def problems(build, **kw) -> dict[str, str]:
    constraints, _ = check_design(parse_design(declare(build)), rules(**kw))
    return {c.name: c.detail for c in constraints if not c.passed}


def test_a_good_design_passes_every_design_rule():
    def good(a):
        body = a.block((0.0, 1.0), 2.0, 0.4, material="wood")
        wheel = a.wheel((0.8, 0.5), 0.4, material="rubber")
        a.pivot(body, wheel, (0.8, 0.9), motor_speed=-3.0, max_torque=50.0, limits=(-1.0, 1.0))
        a.spring(a.GROUND, body, (0.0, 0.0), (0.0, 0.9), stiffness=500.0, damping=20.0)

    assert problems(good) == {}


def test_design_rule_violations_are_named():
    def bad(a):
        far = a.block((9.0, 1.0), 1.0, 1.0)  # outside the zone
        huge = a.block((0.0, 2.0), 3.0, 3.9, material="steel")  # heavy
        odd = a.block((-3.0, 1.0), 1.0, 1.0, material="concrete")  # material not allowed here
        a.rigid(huge, a.GROUND, (0.0, 0.5))  # anchor above the anchor zone
        a.rigid(huge, odd, (-1.5, 1.0))  # not on odd
        a.pivot(huge, far, (2.0, 1.0), motor_speed=50.0, max_torque=1e4)  # motor beyond limits

    found = problems(bad)
    assert set(found) == {"build_zone", "mass_budget", "design_rules"}
    assert "p1" in found["build_zone"] and "outside the anchor zones" in found["build_zone"]
    rules_text = found["design_rules"]
    assert "concrete" in rules_text and "not on part p3" in rules_text and "motor speed" in rules_text


def test_one_joint_per_pair_of_parts():
    def twice(a):
        b = a.block((0.0, 1.0), 1.0, 1.0)
        a.rigid(b, a.GROUND, (-0.3, 0.0))
        a.rigid(b, a.GROUND, (0.3, 0.0))

    assert "already joins" in problems(twice)["design_rules"]


def test_disallowed_primitives_and_counts():
    def springy(a):
        b = a.block((0.0, 1.0), 1.0, 1.0)
        a.spring(a.GROUND, b, (0.0, 0.0), (0.0, 0.6))

    found = problems(springy, primitives=("block",), max_springs=0)
    assert "'spring' is not available" in found["design_rules"] and "1 springs declared" in found["design_rules"]


def test_zone_membership_is_exact_enough():
    poly = ((0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0))
    assert point_in_polygon(1.0, 0.5, poly) and point_in_polygon(2.0, 1.0, poly)
    assert point_in_polygon(2.04, 0.5, poly) and not point_in_polygon(2.2, 0.5, poly)


# ----- the API module --------------------------------------------------------------------------------

def test_the_api_records_plain_data_and_refuses_nonsense():
    a = api_mod.API({"gap_width": 10.0})
    assert a.env["gap_width"] == 10.0
    with pytest.raises(TypeError):
        a.env["gap_width"] = 3  # read-only
    p = a.beam((0, 0), (1, 0))
    with pytest.raises(api_mod.DesignError):
        a.beam((0, 0), (float("inf"), 0))
    with pytest.raises(api_mod.DesignError):
        a.rigid(p, "not-a-part", (0, 0))
    with pytest.raises(api_mod.DesignError):
        a.pivot(p, a.GROUND, (0, 0), motor_speed=1.0)
    a.place("ball", (1, 2))
    d = a.to_dict()
    assert d["parts"][0]["kind"] == "beam" and d["placements"] == {"ball": [1.0, 2.0]}
    assert parse_design(d).parts[0].width == pytest.approx(1.0)


# ----- springs -----------------------------------------------------------------------------------------

def test_springs_follow_their_declared_stiffness():
    k, m = 2000.0, 10.0
    f, zeta = spring_parameters(k, 0.0, m, 0.0)  # a static body counts as infinitely heavy
    assert f == pytest.approx(math.sqrt(k / m) / (2 * math.pi)) and zeta == 0.0

    def mass_on_spring(a):
        b = a.block((0.0, 2.0), 0.5, 0.4, material="steel")  # 100 kg
        a.spring(a.GROUND, b, (0.0, 0.0), (0.0, 2.0), stiffness=k, damping=400.0)

    sim = run_sim(declare(mass_on_spring), JointStrength(), steps=600)
    sag = 2.0 - sim.parts["p1"].position.y
    assert sag == pytest.approx(100.0 * 9.81 / k, rel=0.1)  # static deflection m g / k
    assert DT == pytest.approx(1 / 60)
