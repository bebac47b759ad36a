"""The audit grader's integrity machinery without script runs: drawn variant parameters
(draws.py), the two-sample comparison of raw arrays (samples.py) and the recompute namespace."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from simreflect.suites.audit import expr
from simreflect.suites.audit.cards import CardError, RawSpec, Tolerance, load_card, load_cards, tasks_dir
from simreflect.suites.audit.draws import changed, draw_params
from simreflect.suites.audit.grader import RawData, ladder, recompute_mismatches, recompute_namespace
from simreflect.suites.audit.samples import compare, two_sample_p

CARDS = load_cards()
LEVEL = ladder()["integrity"]["sample_level"]
FUZZ = settings(derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----- draws -------------------------------------------------------------------------------------

def _in_range(card, name, value, params):
    spec = card.draws[name]
    if spec.kind == "choice":
        return value in spec.choices
    if spec.kind == "expr":
        return True
    num = {k: v for k, v in params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    lo = expr.as_number(expr.evaluate(spec.low, num)) if isinstance(spec.low, str) else spec.low
    hi = expr.as_number(expr.evaluate(spec.high, num)) if isinstance(spec.high, str) else spec.high
    ok = lo - 1e-9 * abs(lo) - 5e-4 * abs(lo) <= value <= hi + 5e-4 * abs(hi)  # 4 significant digits
    if spec.kind == "int":
        ok = ok and isinstance(value, int) and (value - int(np.ceil(lo))) % spec.step == 0
    return ok


@FUZZ
@given(script=st.text(max_size=200))
def test_drawn_parameters_stay_in_their_stated_ranges(script):
    for card in CARDS:
        sets = draw_params(card, script, 2)
        assert sets == draw_params(card, script, 2)  # a pure function of task and script
        for params in sets:
            assert set(params) == set(card.params) and params["seed"] != card.params["seed"]
            for k, v in params.items():
                if k in card.draws:
                    assert _in_range(card, k, v, params), (card.id, k, v)
                elif k != "seed":
                    assert v == card.params[k], (card.id, k)


def test_draws_follow_the_script_and_spread_over_the_range():
    card = load_card(tasks_dir() / "ols-risk")
    a, b = draw_params(card, "print(1)", 2), draw_params(card, "print(2)", 2)
    assert a != b and a[0] != a[1]
    # stratified: of two draws, one falls in each half of every range (a Latin hypercube)
    for script in (f"# {i}" for i in range(40)):
        sig = sorted(p["sigma"] for p in draw_params(card, script, 2))
        assert sig[0] <= np.sqrt(0.3 * 3.0) * 1.001 <= sig[1] * 1.002
    lattices = {p["lattice"] for p in draw_params(load_card(tasks_dir() / "site-percolation"), "x", 2)}
    assert lattices == {"square", "triangular"}
    assert "seed" in changed(card, a[0]) and "trials" not in changed(card, a[0])


# ----- two-sample comparison ----------------------------------------------------------------------

def test_samples_of_one_law_pass_at_the_stated_rate():
    """Honest samples (two seeds of the same law) fail at most about at the level: 300 pairs of
    normal, heavy-tailed and 0/1 samples, expected failures 0.3 at level 0.001."""
    fails = 0
    for seed in range(100):
        r1, r2 = np.random.default_rng(2 * seed), np.random.default_rng(2 * seed + 1)
        fails += two_sample_p(r1.normal(size=500), r2.normal(size=800))[0] < LEVEL
        fails += two_sample_p(r1.standard_t(3, size=2000), r2.standard_t(3, size=2000))[0] < LEVEL
        fails += two_sample_p((r1.random(400) < 0.3) * 1.0, (r2.random(400) < 0.3) * 1.0)[0] < LEVEL
    assert fails <= 2


@pytest.mark.parametrize("forged,why", [
    (lambda r: r.normal(0.1, 1.0, 4000), "location"),
    (lambda r: r.normal(0.0, 1.3, 4000), "spread"),
    (lambda r: r.uniform(-np.sqrt(3), np.sqrt(3), 4000), "shape"),
    (lambda r: r.normal(0.0, 1.0, 4000).round(0), "shape"),
])
def test_a_different_law_is_rejected(forged, why):
    real = np.random.default_rng(0).normal(0.0, 1.0, 4000)
    p, test = two_sample_p(forged(np.random.default_rng(1)), real)
    assert p < LEVEL


def test_proportions_compare_as_proportions():
    r = np.random.default_rng(3)
    ref = (r.random(800) < 0.5) * 1.0
    assert two_sample_p((r.random(800) < 0.5) * 1.0, ref)[0] >= LEVEL
    p, test = two_sample_p((r.random(800) < 0.35) * 1.0, ref)
    assert p < LEVEL and test == "proportion"


def test_columns_are_tested_one_by_one_and_with_increments():
    r = np.random.default_rng(4)
    walk = np.cumsum(r.normal(size=(3000, 20)), axis=1)
    independent = r.normal(size=(3000, 20)) * np.sqrt(np.arange(1, 21))  # each column right, no walk
    ref = np.cumsum(np.random.default_rng(5).normal(size=(3000, 20)), axis=1)
    spec = RawSpec("x", "positions", compare="distribution")
    assert compare(spec, independent, ref, LEVEL).passed  # marginals alone cannot tell
    spec = RawSpec("x", "positions", compare="distribution", increments=True)
    assert compare(spec, walk, ref, LEVEL).passed
    c = compare(spec, independent, ref, LEVEL)
    assert not c.passed and "columns" in c.message
    assert not compare(spec, walk[:, :19], ref, LEVEL).passed  # the wrong number of columns


def test_log_scale_and_positivity():
    r = np.random.default_rng(6)
    spec = RawSpec("t", "times", compare="distribution", log=True)
    ref = np.exp(r.normal(size=500))
    assert compare(spec, np.exp(r.normal(size=500)), ref, LEVEL).passed
    assert not compare(spec, np.r_[0.0, np.exp(r.normal(size=499))], ref, LEVEL).passed


def test_equal_and_values():
    grid = np.logspace(-6, -3, 30)
    eq = RawSpec("tau", "grid", compare="equal")
    assert compare(eq, grid.copy(), grid, LEVEL).passed
    assert not compare(eq, grid * 1.001, grid, LEVEL).passed
    assert not compare(eq, grid[:-1], grid, LEVEL).passed
    vals = RawSpec("T", "periods", compare="values", tolerance=Tolerance(relative=1e-3))
    assert compare(vals, grid * (1 + 5e-4), grid, LEVEL).passed
    c = compare(vals, grid * (1 + 2e-3), grid, LEVEL)
    assert not c.passed and "30 of 30" in c.message


@FUZZ
@given(a=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
                    elements=st.floats(allow_nan=True, allow_infinity=True, width=64)),
       kind=st.sampled_from(["equal", "values", "distribution"]), log=st.booleans(), inc=st.booleans())
def test_hostile_arrays_never_raise(a, kind, log, inc):
    """Whatever a script saves, the comparison returns a Comparison (never an exception), and an
    array with a value that is not finite never passes."""
    spec = RawSpec("x", "x", compare=kind, tolerance=Tolerance(absolute=0.1) if kind == "values" else None,
                   log=log, increments=inc)
    ref = np.random.default_rng(0).normal(size=(5, 3))
    c = compare(spec, a, ref, LEVEL)
    assert isinstance(c.passed, bool) and c.message
    if not np.all(np.isfinite(a)):
        assert not c.passed


# ----- the recompute namespace ---------------------------------------------------------------------

@pytest.mark.parametrize("card", CARDS, ids=[c.id for c in CARDS])
def test_no_raw_array_can_stand_in_for_a_parameter(card):
    """An extra array named like a card parameter is never bound: the recompute reads the
    parameter (the shadowing of issue #17, on every card and every parameter)."""
    raw = {n: np.ones((4, 3)) for n in card.raw}
    forged = {k: np.array([123.0]) for k in card.params}
    ns = recompute_namespace(card, card.params, RawData(arrays={**raw, **forged}))
    for k, v in card.params.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            assert ns[k] == v, (card.id, k)
        else:
            assert k not in ns
    _, rows, _ = recompute_mismatches(card, {}, RawData(arrays={**raw, **forged}), card.params)
    assert any("ignored" in r and all(k in r for k in forged) for r in rows)


def test_wigner_shadowing_of_a_no_longer_helps():
    card = load_card(tasks_dir() / "wigner-semicircle")
    eig = np.linspace(-2, 2, 4000).reshape(10, 400)  # not a spectrum
    shadow = np.quantile(np.abs(eig), 0.608998)
    reported = {"semicircle_mass": float(np.mean(np.abs(eig) <= shadow))}
    mismatches, _, _ = recompute_mismatches(card, reported, RawData(arrays={"eigenvalues": eig, "a": np.array([shadow])}),
                                            card.params)
    assert mismatches  # recomputed with the parameter a = 1, not the saved 'a'


@pytest.mark.parametrize("name", ["seed", "mean", "colmean"])
def test_a_card_cannot_declare_a_raw_array_named_like_a_parameter_or_function(tmp_path, name):
    src = tasks_dir() / "ols-risk"
    dst = tmp_path / "ols-risk"
    shutil.copytree(src, dst)
    card = (dst / "card.toml").read_text()
    (dst / "card.toml").write_text(card + f'\n[raw.{name}]\ndescription = "x"\ncompare = "distribution"\n')
    with pytest.raises(CardError, match="named like a parameter or a function"):
        load_card(dst)


def test_expression_helpers_for_samples():
    x = np.arange(12.0).reshape(4, 3)
    assert list(expr.evaluate("colmean(x)", {"x": x})) == [4.5, 5.5, 6.5]
    with pytest.raises(expr.ExprError):
        expr.evaluate("colmean(x)", {"x": np.ones(3)})
    life = np.array([0.0, 1, 1, 3, 5, 5])
    assert list(expr.evaluate("ccdf(life, n - 0.5)", {"life": life, "n": np.array([1.0, 2, 5, 6])})) == \
        pytest.approx([5 / 6, 0.5, 2 / 6, 0])


def test_card_draw_specs_are_validated(tmp_path):
    dst = tmp_path / "ols-risk"
    shutil.copytree(tasks_dir() / "ols-risk", dst)
    text = (dst / "card.toml").read_text()
    for bad, match in (('nosuch = { int = [1, 2] }', "only workspace parameters"),
                       ('d = { int = [1, 2], uniform = [0, 1] }', "exactly one of"),
                       ('d = { int = ["k + 1", 4] }', "not parameters"),
                       ('d = { uniform = [3, 15], step = 2 }', "step")):
        (dst / "card.toml").write_text(text.replace('d = { int = [3, 15] }', bad))
        with pytest.raises(CardError, match=match):
            load_card(dst)
    (dst / "card.toml").write_text(text.replace('[variant]\n', '[variant]\nparams = { n = 20 }\n'))
    with pytest.raises(CardError, match="fixed params"):
        load_card(dst)


def test_every_card_states_how_each_raw_array_is_compared():
    for card in CARDS:
        for r in card.raw.values():
            assert r.compare in ("equal", "values", "distribution"), (card.id, r.name)
            if r.compare == "values":
                assert r.tolerance is not None
