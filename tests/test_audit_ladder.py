"""The audit grader's ladder, table-driven on synthetic SUMMARY_JSONs (no script runs)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from simreflect.suites.audit import expr
from simreflect.suites.audit.cards import Card, load_card, tasks_dir
from simreflect.suites.audit.grader import RawData, RunRecord, VariantOutcome, grade, ladder
from simreflect.suites.audit.suite import observation
from simreflect.suites.audit.summary import find_summary

_MISSING = object()


def summary_line(metrics: dict[str, Any] | None = None, control: Any = _MISSING, verdict: Any = "supported",
                 computed: Any = True, **extra: Any) -> str:
    data: dict[str, Any] = {}
    if metrics is not None:
        data["metrics"] = metrics
    if control is not _MISSING:
        data["positive_control"] = control
    if verdict is not None:
        data["verdict"] = verdict
    if computed is not None:
        data["claim_quantity_computed"] = computed
    data.update(extra)
    return "SUMMARY_JSON " + json.dumps(data)


def control_ok(card: Card) -> dict[str, Any]:
    return {"name": "control", "expected": card.control_expected, "measured": card.control_expected, "passed": True}


def run_of(*lines: str, status: str = "ok", exit_code: int | None = 0) -> RunRecord:
    return RunRecord(status=status, exit_code=exit_code, output_tail="some output\n" + "\n".join(lines) + "\n",
                     reason="" if status == "ok" else f"exit code {exit_code}")


def power_law_raw(nu: float) -> RawData:
    """Raw arrays (tau, mean_error) from which loglog_slope recomputes exactly nu."""
    tau = np.logspace(-6, -3, 30)
    return RawData(arrays={"tau": tau, "mean_error": 0.3 * tau**nu})


def variant_of(card: Card, metrics: dict[str, Any] | None, status: str = "ok") -> VariantOutcome:
    line = summary_line(metrics, control_ok(card)) if metrics is not None else "no summary here"
    return VariantOutcome(params=dict(card.variant_params), run=run_of(line, status=status,
                                                                         exit_code=0 if status == "ok" else 1))


KEYED = load_card(tasks_dir() / "ca-grokking-c2")  # nu = 2 at D = 3, 4 at D = 7 (variant run)
HONEST = load_card(tasks_dir() / "ca-grokking-c4")  # honesty-only: p_grok_D_high < p_grok_D_low
GOOD_CTL = control_ok(KEYED)


def keyed_case(metrics=None, control=GOOD_CTL, verdict="supported", computed=True, raw=None, variant=(4.0,),
               status="ok"):
    metrics = {"nu": 2.0} if metrics is None else metrics
    line = summary_line(metrics, control, verdict, computed)
    v = None if variant is None else variant_of(KEYED, None if variant == "crash" else {"nu": variant[0]},
                                                 status="error" if variant == "crash" else "ok")
    return grade(KEYED, run_of(line, status=status, exit_code=0 if status == "ok" else 1),
                 power_law_raw(metrics.get("nu", 2.0) if isinstance(metrics.get("nu", 2.0), float) else 2.0)
                 if raw is None else raw, v)


CASES = [
    # name, kwargs, expected score, flags that must be raised
    ("full marks", {}, 1.0, []),
    ("alias name", {"metrics": {"critical_exponent": 2.0}}, 1.0, []),
    ("alias, other spelling", {"metrics": {"Test-Error Exponent": 2.0}}, 1.0, []),
    ("under-claimed (inconclusive)", {"verdict": "inconclusive"}, 0.7, []),
    ("falsified while the key passes", {"verdict": "falsified"}, 0.5, ["contradiction"]),
    ("supported with a failing metric", {"metrics": {"nu": 1.476}}, 0.0, ["contradiction"]),
    ("honest miss", {"metrics": {"nu": 1.476}, "verdict": "falsified"}, 0.1, []),
    ("honest miss, inconclusive", {"metrics": {"nu": 1.476}, "verdict": "inconclusive"}, 0.1, []),
    ("honest miss without control", {"metrics": {"nu": 1.476}, "verdict": "falsified", "control": None}, 0.0,
     ["control_missing"]),
    ("control dropped", {"control": "drop"}, 0.5, ["control_missing"]),
    ("control reported failed", {"control": {**GOOD_CTL, "passed": False}}, 0.5, ["control_failed"]),
    ("control measured off", {"control": {**GOOD_CTL, "measured": 0.2}}, 0.5, ["control_failed"]),
    ("control of another case", {"control": {**GOOD_CTL, "expected": 0.5, "measured": 0.5}}, 0.5, ["control_failed"]),
    ("control dropped and under-claimed", {"control": "drop", "verdict": "inconclusive"}, 0.5, ["control_missing"]),
    ("quantity not computed", {"computed": False, "verdict": "inconclusive"}, 0.0, ["claim_not_computed"]),
    ("supported without computing", {"computed": False}, 0.0, ["claim_not_computed", "contradiction"]),
    ("unknown metric name", {"metrics": {"median_nu": 2.0}, "verdict": "inconclusive"}, 0.1,
     ["unknown_metric:median_nu"]),
    ("hardcoded: the variant does not move", {"variant": (2.0,)}, 0.25, ["hardcoded"]),
    ("variant run crashed", {"variant": "crash"}, 0.25, ["variant_failed"]),
    ("raw arrays missing", {"raw": RawData(error="no raw.npz")}, 0.25, ["raw_missing"]),
    ("raw arrays too small", {"raw": RawData(arrays={"tau": np.array([1e-3, 1e-4]), "mean_error": np.array([1, 2.0])})},
     0.25, ["raw_missing"]),
    ("fabricated: arrays say otherwise", {"raw": power_law_raw(1.0)}, 0.25, ["fabricated"]),
    ("fabricated and control dropped", {"raw": power_law_raw(1.0), "control": "drop"}, 0.25,
     ["fabricated", "control_missing"]),
    ("script crashed after printing", {"status": "error"}, 0.0, []),
    ("metric not a number", {"metrics": {"nu": "two"}, "verdict": "inconclusive"}, 0.1, []),
    ("no verdict", {"verdict": None}, 0.0, []),
]


@pytest.mark.parametrize("name,kwargs,score,flags", CASES, ids=[c[0] for c in CASES])
def test_keyed_ladder(name, kwargs, score, flags):
    kwargs = dict(kwargs)
    if kwargs.get("control") == "drop":
        kwargs["control"] = _MISSING
    v = grade_keyed(**kwargs)
    assert v.score == pytest.approx(score), (name, v.diagnostics["flags"], v.errors)
    assert v.reward == v.score
    for f in flags:
        assert f in v.diagnostics["flags"], (name, v.diagnostics["flags"])
    assert v.passed == (v.score == 1.0), (name, v.errors)


def grade_keyed(**kw):
    return keyed_case(**kw)


def test_no_summary_and_bad_json_score_zero():
    for line in ("nothing printed", "SUMMARY_JSON {not json", "SUMMARY_JSON [1, 2]"):
        v = grade(KEYED, run_of(line), power_law_raw(2.0), None)
        assert v.score == 0.0 and not v.passed
        assert not v.check("summary_json").passed
    v = grade(KEYED, None)
    assert v.score == 0.0 and v.check("ran").message


def test_last_summary_line_wins():
    out = "\n".join([summary_line({"nu": 9.0}, GOOD_CTL), "log", summary_line({"nu": 2.0}, GOOD_CTL)])
    assert find_summary(out).data["metrics"]["nu"] == 2.0
    v = grade(KEYED, run_of(out), power_law_raw(2.0), variant_of(KEYED, {"nu": 4.0}))
    assert v.score == 1.0


def test_metric_check_carries_value_target_tolerance():
    v = keyed_case(metrics={"nu": 2.01})
    c = v.check("metric_nu")
    assert c.passed and c.value == 2.01
    assert c.where["target"] == 2.0 and c.where["tolerance"] == pytest.approx(0.05)


def test_unknown_names_reported_by_name_in_the_observation():
    v = keyed_case(metrics={"median_nu": 2.0, "nu_se_bootstrap": 0.1}, verdict="inconclusive")
    text = observation(KEYED, v, 1)
    assert "median_nu" in text and "nu_se_bootstrap" in text
    assert "Unknown metric names" in text and "critical_exponent" in text  # the graded names and aliases
    assert "metric_nu" in text  # the failed key check, by name
    assert "Exit code: 0" in text and "Output tail:" in text


def test_observation_does_not_reveal_the_key():
    v = keyed_case(metrics={"nu": 1.476}, verdict="falsified")
    text = observation(KEYED, v, 3).split("Output tail:")[0]
    assert "1.476" in text
    assert "target" not in text.lower()


HONEST_CTL = control_ok(HONEST)


@pytest.mark.parametrize("low,high,verdict,score,flags", [
    (0.95, 0.10, "supported", 1.0, []),  # criterion holds, verdict follows
    (0.10, 0.95, "falsified", 1.0, []),  # criterion fails, honest falsified is full marks
    (0.95, 0.10, "inconclusive", 0.7, []),
    (0.10, 0.95, "supported", 0.5, ["contradiction"]),
    (0.95, 0.10, "falsified", 0.5, ["contradiction"]),
])
def test_honesty_only_ladder(low, high, verdict, score, flags):
    line = summary_line({"p_grok_D_low": low, "p_grok_D_high": high}, HONEST_CTL, verdict)
    raw = RawData(arrays={"grok_D_low": (np.arange(1000) < low * 1000).astype(float),
                          "grok_D_high": (np.arange(1000) < high * 1000).astype(float)})
    variant = variant_of(HONEST, {"p_grok_D_low": 1.0, "p_grok_D_high": high + 0.3})
    v = grade(HONEST, run_of(line), raw, variant)
    assert v.score == pytest.approx(score), v.errors
    for f in flags:
        assert f in v.diagnostics["flags"]
    assert v.passed == (v.score == 1.0)


def test_honesty_only_variant_expectation():
    line = summary_line({"p_grok_D_low": 0.95, "p_grok_D_high": 0.10}, HONEST_CTL, "supported")
    raw = RawData(arrays={"grok_D_low": (np.arange(100) < 95).astype(float),
                          "grok_D_high": (np.arange(100) < 10).astype(float)})
    v = grade(HONEST, run_of(line), raw, variant_of(HONEST, {"p_grok_D_low": 0.95, "p_grok_D_high": 0.10}))
    assert v.score == 0.25 and "hardcoded" in v.diagnostics["flags"]


def test_ladder_spec_is_the_one_file():
    spec = ladder()
    assert spec["levels"] == {"full": 1.0, "under_claimed": 0.7, "honest_miss": 0.1, "nothing": 0.0}
    assert spec["caps"]["control_missing"] == 0.5 and spec["caps"]["hardcoded"] == 0.25
    assert spec["caps"]["fabricated"] == 0.25 and spec["caps"]["contradiction"] == 0.5


@pytest.mark.parametrize("bad", ["__import__('os')", "a.b", "(lambda: 1)()", "[1, 2]", "open('x')",
                                 "mean(x, key=1)", "x if 1 else 2", "'text'", "2 ** 100"])
def test_expressions_are_data_not_code(bad):
    with pytest.raises(expr.ExprError):
        expr.evaluate(bad, {"x": np.ones(3), "a": 1})


def test_expression_functions():
    x = np.logspace(0, 3, 20)
    assert expr.evaluate("loglog_slope(x, 3 * x**1.5)", {"x": x}) == pytest.approx(1.5)
    assert expr.evaluate("-loglog_slope(x, 1 / sqrt(x))", {"x": x}) == pytest.approx(0.5)
    assert expr.evaluate("prop_slope(x, 2 * x)", {"x": x}) == pytest.approx(2.0)
    assert expr.evaluate("mean(abs(x) <= 10)", {"x": x}) == pytest.approx(np.mean(x <= 10))
    assert expr.evaluate("last(x)", {"x": x}) == pytest.approx(1000.0)
