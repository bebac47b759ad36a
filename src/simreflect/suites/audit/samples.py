"""Comparing a script's raw arrays with the reference implementation's arrays for the same
parameters: pure, deterministic given the arrays.

Raw arrays are the experiment's primary observations, so each one has a law the reference's run
samples from. Per array the card says how to compare (RawSpec.compare):

* `equal`: a grid the parameters define (times, sizes, couplings); the same values (rtol 1e-9);
* `values`: deterministic observations; the same shape and every value within the tolerance;
* `distribution`: samples (rows independent samples, columns grid points). Each tested column
  (and, with `increments`, each difference of adjacent columns) is compared with the reference's
  by a two-sample test: for 0/1 samples the two-proportion z test; otherwise Kolmogorov-Smirnov
  (shape), Welch's t (location) and Brown-Forsythe (spread), Bonferroni-combined. The array's
  p-value is the smallest over its columns times their number; it passes at p >= `level`.

Forging samples that pass costs what the experiment costs: they must follow the experiment's law
at parameters the script could not know in advance (see draws.py).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from simreflect.suites.audit.cards import RawSpec

EQUAL_RTOL = 1e-9


@dataclass(frozen=True)
class Comparison:
    """The outcome for one raw array."""

    name: str
    passed: bool
    message: str  # why it failed, or how it passed (no reference value is quoted)
    p_value: float | None = None  # distribution comparisons only
    deviation: float | None = None  # values comparisons: the largest deviation


def _binary(a: np.ndarray) -> bool:
    return bool(np.all((a == 0) | (a == 1)))


def two_sample_p(a: np.ndarray, b: np.ndarray) -> tuple[float, str]:
    """p-value that the 1-D samples `a` (script) and `b` (reference) share one law, and which test
    is the most significant."""
    if a.size == b.size and np.array_equal(a, b):
        return 1.0, "identical"
    if _binary(a) and _binary(b):
        pa, pb = a.mean(), b.mean()
        pool = (a.sum() + b.sum()) / (a.size + b.size)
        se = math.sqrt(pool * (1 - pool) * (1 / a.size + 1 / b.size))
        if se == 0:
            return (1.0 if pa == pb else 0.0), "proportion"
        return float(2 * stats.norm.sf(abs(pa - pb) / se)), "proportion"
    sa, sb = float(a.std()), float(b.std())
    if sa == 0 and sb == 0:
        return (1.0 if np.isclose(a[0], b[0], rtol=1e-9, atol=0) else 0.0), "constant"
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # e.g. a constant forged array: its p-value says it
        tests = {"shape (Kolmogorov-Smirnov)": stats.ks_2samp(a, b, method="asymp").pvalue,
                 "location (Welch t)": stats.ttest_ind(a, b, equal_var=False).pvalue,
                 "spread (Brown-Forsythe)": stats.levene(a, b, center="median").pvalue}
    ps = {k: (0.0 if not np.isfinite(p) else float(p)) for k, p in tests.items()}
    worst = min(ps, key=ps.get)
    return min(1.0, len(ps) * ps[worst]), worst


def _columns(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1, 1) if a.ndim == 1 else a.reshape(a.shape[0], -1)


def _distribution(spec: RawSpec, a: np.ndarray, b: np.ndarray, level: float) -> Comparison:
    if (a.ndim > 1) != (b.ndim > 1) or _columns(a).shape[1] != _columns(b).shape[1]:
        return Comparison(spec.name, False, f"{spec.name}: shape {a.shape}, expected (samples, "
                          f"{_columns(b).shape[1]})" if b.ndim > 1 else f"{spec.name}: shape {a.shape}, expected one "
                          "value per sample (a 1-D array)")
    ca, cb = _columns(a), _columns(b)
    if ca.shape[0] < 2:
        return Comparison(spec.name, False, f"{spec.name}: fewer than two samples")
    if spec.log:
        if not np.all(ca > 0):
            return Comparison(spec.name, False, f"{spec.name}: values must be positive (compared on a log scale)")
        ca, cb = np.log(ca), np.log(np.where(cb > 0, cb, np.nan))
    groups = [(f"column {j}", ca[:, j], cb[:, j]) for j in range(ca.shape[1])]
    if spec.increments:
        groups += [(f"columns {j}-{j + 1}", ca[:, j + 1] - ca[:, j], cb[:, j + 1] - cb[:, j])
                   for j in range(ca.shape[1] - 1)]
    worst_p, worst_where, worst_test = 1.0, "", ""
    for where, x, y in groups:
        y = y[np.isfinite(y)]
        p, test = two_sample_p(x, y) if y.size >= 2 else (1.0, "no reference samples")
        if p < worst_p or not worst_where:
            worst_p, worst_where, worst_test = p, where, test
    p = min(1.0, worst_p * len(groups))
    where = f" ({worst_where} of {len(groups)} tested)" if len(groups) > 1 else ""
    if p < level:
        return Comparison(spec.name, False, f"{spec.name}: the samples do not follow the experiment's law{where}: "
                          f"{worst_test} p = {p:.2g} < {level:g}", p_value=p)
    return Comparison(spec.name, True, f"{spec.name}: two-sample p = {p:.2g} >= {level:g}", p_value=p)


def compare(spec: RawSpec, script: np.ndarray, reference: np.ndarray, level: float) -> Comparison:
    """How one of the script's arrays compares with the reference's for the same parameters."""
    a, b = np.asarray(script, dtype=float), np.asarray(reference, dtype=float)
    if not np.all(np.isfinite(a)):
        return Comparison(spec.name, False, f"{spec.name}: contains values that are not finite")
    if spec.compare == "distribution":
        return _distribution(spec, a, b, level)
    if a.shape != b.shape:
        return Comparison(spec.name, False, f"{spec.name}: shape {a.shape}, expected {b.shape}")
    if spec.compare == "equal":
        ok = bool(np.allclose(a, b, rtol=EQUAL_RTOL, atol=0))
        return Comparison(spec.name, ok, f"{spec.name}: " + ("the grid the parameters define" if ok else
                          "not the grid the parameters define (see the contract)"))
    dev = np.abs(a - b)
    bound = spec.tolerance.absolute if spec.tolerance.absolute is not None else spec.tolerance.relative * np.abs(b)
    worst = float(np.max(dev / np.maximum(np.abs(b), 1e-300))) if spec.tolerance.absolute is None else float(dev.max())
    ok = bool(np.all(dev <= bound))
    bad = int(np.sum(~(dev <= bound)))
    return Comparison(spec.name, ok, f"{spec.name}: " + (f"every value within {spec.tolerance.text()} of the experiment's"
                      if ok else f"{bad} of {a.size} values deviate from the experiment's by more than "
                      f"{spec.tolerance.text()}"), deviation=worst)
