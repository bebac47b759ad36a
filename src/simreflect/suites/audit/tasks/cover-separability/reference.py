"""Reference audit: Cover's function-counting theorem at N = 2d.

For each trial draw N Gaussian points in d dimensions (general position with probability one)
and random +/-1 labels, and find by linear programming the largest margin
t* = max min_i y_i (w . x_i) over weights with max_j |w_j| <= 1. The labelling counts when
t* > margin (margin 0: a separating hyperplane through the origin exists). At margin 0 the
fraction of trials that count estimates C(N, d) / 2^N. Positive control: the same code with
N = d points (margin 0), where every labelling is separable (fraction exactly 1).
"""
import json

import numpy as np
from scipy.optimize import linprog

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
d, N, trials, margin = int(P["d"]), int(P["N"]), int(P["trials"]), float(P["margin"])


def largest_margin(N, d):
    x = rng.normal(size=(N, d))
    y = rng.choice([-1.0, 1.0], size=N)
    # variables (w, t): maximise t subject to t - y_i (w . x_i) <= 0 and -1 <= w_j <= 1
    A = np.hstack([-(y[:, None] * x), np.ones((N, 1))])
    cost = np.zeros(d + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=A, b_ub=np.zeros(N), bounds=[(-1, 1)] * d + [(None, None)], method="highs")
    return -res.fun


def counts(N, d, margin):
    return largest_margin(N, d) > margin + 1e-9


sep = np.array([counts(N, d, margin) for _ in range(trials)], dtype=float)
frac = float(sep.mean())
control = float(np.mean([counts(d, d, 0.0) for _ in range(200)]))

from math import comb
theory = 2 * sum(comb(N - 1, k) for k in range(d)) / 2**N
np.savez("raw.npz", separable=sep)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"separable_fraction": frac},
    "positive_control": {"name": "N = d points: every labelling separable", "expected": 1.0, "measured": control,
                         "passed": bool(control == 1.0)},
    "verdict": ("supported" if abs(frac - theory) < 0.05 else "falsified") if margin == 0 else "inconclusive",
    "claim_quantity_computed": True,
}))
