"""Reference audit: test-error critical exponent nu = (D+1)/2 of the D-dimensional ball model,
measured on the series D_low, D_mid, D_high (2, 5, 10 at the base parameters: 1.5, 3.0, 5.5).

Model (our reconstruction, see the card): positives uniform in the unit D-ball centred at
+eps e1, negatives in the one centred at -eps e1; the student f(x) = sgn(w . x) is trained by
gradient flow on the squared loss with an L2 penalty, a linear ODE solved exactly:
    w(t) = w* + exp(-(G + lam2) t) (w0 - w*),  G = <x x^T>,  w* = (G + lam2)^-1 <y x>.
With h = eps w_1 / |w| (distance of a ball centre from the decision plane), the test error of
either class is the volume fraction of a cap of height 1 - h:
    E = 1/2 I_{d(2-d)}((D+1)/2, 1/2),  d = 1 - h,  for 0 < h < 1, and 0 for h >= 1.
Runs whose training set groks (h(w*) > 1) from an initial condition with h(w0) < 1 are aligned
at the first time t_eps where h reaches 1; the mean test error is fitted as
E ~ (t_eps - t)^nu on log-spaced tau in [tau_min, tau_max]. The experiment runs once per
dimension, in the order D_low, D_mid, D_high, from one random stream.
Positive control: the same test-error (cap volume) routine for D = 3 at cap depth 1/2, where the
cap volume fraction is exactly d^2 (3 - d) / 4 = 0.15625.
"""
import json

import numpy as np
from scipy.optimize import brentq
from scipy.special import betainc

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
eps, lam2, N, runs = float(P["eps"]), float(P["lam2"]), int(P["N"]), int(P["runs"])
tau = np.logspace(np.log10(float(P["tau_min"])), np.log10(float(P["tau_max"])), 30)


def ball(n, D):
    v = rng.normal(size=(n, D))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v * rng.random((n, 1)) ** (1.0 / D)


def cap_fraction(depth, D):
    depth = np.clip(depth, 0.0, 2.0)
    small = 0.5 * betainc((D + 1) / 2, 0.5, np.clip(depth * (2 - depth), 0, 1))
    return np.where(depth <= 1, small, 1 - small)


def exponent(D):
    errors = []
    grid = np.concatenate([[0.0], np.logspace(-3, 3, 600)])
    while len(errors) < runs:
        shift = np.zeros(D)
        shift[0] = eps
        x = np.concatenate([ball(N // 2, D) + shift, ball(N // 2, D) - shift])
        y = np.concatenate([np.ones(N // 2), -np.ones(N // 2)])
        A = x.T @ x / N + lam2 * np.eye(D)
        w_star = np.linalg.solve(A, x.T @ y / N)
        if eps * w_star[0] / np.linalg.norm(w_star) < 1.02:
            continue  # no grokking for this training set
        w0 = rng.normal(size=D)
        if eps * w0[0] / np.linalg.norm(w0) > 0.95:
            continue  # starts (almost) generalising already
        a, V = np.linalg.eigh(A)
        c0 = V.T @ (w0 - w_star)

        def w_at(t):
            return w_star + V @ (np.exp(-a * t) * c0)

        def h(t):
            w = w_at(t)
            return eps * w[0] / np.linalg.norm(w) - 1.0

        hs = np.array([h(t) for t in grid])
        first = int(np.argmax(hs >= 0))
        t_eps = brentq(h, grid[first - 1], grid[first], xtol=1e-14, rtol=1e-15)
        depth = np.array([-h(t_eps - s) for s in tau])
        errors.append(cap_fraction(depth, D))
    errors = np.array(errors)
    return float(np.polyfit(np.log(tau), np.log(errors.mean(axis=0)), 1)[0]), errors


def tolerance(level, target):
    """The card's: 0.12 at D_low (the fit's heavy tail at D = 2), 2% of the target otherwise."""
    return 0.12 if level == "D_low" else 0.02 * target


metrics, raw, within = {}, {"tau": tau}, []
for level in ("D_low", "D_mid", "D_high"):
    D = int(P[level])
    nu, errors = exponent(D)
    metrics[f"nu_{level}"] = nu
    raw[f"errors_{level}"] = errors
    within.append(abs(nu - (D + 1) / 2) <= tolerance(level, (D + 1) / 2))
control = float(cap_fraction(np.array(0.5), 3))
np.savez("raw.npz", **raw)
print("SUMMARY_JSON " + json.dumps({
    "metrics": metrics,
    "positive_control": {"name": "cap volume fraction, D = 3, depth 1/2", "expected": 0.15625,
                         "measured": control, "passed": bool(abs(control - 0.15625) < 1e-9)},
    "verdict": "supported" if all(within) else "falsified",
    "claim_quantity_computed": True,
}))
