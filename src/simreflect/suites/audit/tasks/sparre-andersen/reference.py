"""Reference audit: survival of a symmetric random walk on the positive half-line (Sparre Andersen).

Each walk takes continuous symmetric steps (Gaussian); S(n) is the fraction of walks whose
partial sums stayed positive for steps 1..n. For k independent walkers that must all survive the
probability is S(n)^k. theta is minus the least-squares slope of log S against log n over
log-spaced n in [n_min, n_max]. Positive control: one walker at n = 10, whose survival
probability is exactly C(20, 10) / 4^10 = 0.176197 for any continuous symmetric step law.
"""
import json
from math import comb

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
k, n_min, n_max, runs = int(P["walkers_per_group"]), int(P["n_min"]), int(P["n_max"]), int(P["groups"])


def survival(k, runs, n_max):
    pos = np.zeros((runs, k))
    alive = np.ones(runs, dtype=bool)
    out = np.empty(n_max)
    for n in range(n_max):
        pos += rng.normal(size=(runs, k))
        alive &= np.all(pos > 0, axis=1)
        out[n] = alive.mean()
    return out  # out[n-1] = S(n)


S = survival(k, runs, n_max)
ns = np.unique(np.logspace(np.log10(n_min), np.log10(n_max), 20).astype(int))
surv = S[ns - 1]
theta = -float(np.polyfit(np.log(ns), np.log(surv), 1)[0])

control = float(survival(1, runs, 10)[9])
expected = comb(20, 10) / 4**10

np.savez("raw.npz", n=ns.astype(float), survival=surv)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"theta": theta},
    "positive_control": {"name": "single-walker survival at n=10", "expected": expected, "measured": control,
                         "passed": bool(abs(control - expected) < 0.005)},
    "verdict": "supported" if abs(theta - k / 2) < 0.05 else "falsified",
    "claim_quantity_computed": True,
}))
