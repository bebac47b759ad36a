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
drift = float(P["drift"])


def lifetimes(k, runs, n_max, drift):
    """For every group of k walkers, the number of steps all of them stayed positive (<= n_max)."""
    pos = np.zeros((runs, k))
    alive = np.ones(runs, dtype=bool)
    life = np.zeros(runs)
    for n in range(n_max):
        pos += drift + rng.normal(size=(runs, k))
        alive &= np.all(pos > 0, axis=1)
        life += alive
    return life


life = lifetimes(k, runs, n_max, drift)
ns = np.unique(np.logspace(np.log10(n_min), np.log10(n_max), 20).astype(int))
surv = np.array([np.mean(life >= n) for n in ns])
theta = -float(np.polyfit(np.log(ns), np.log(surv), 1)[0])

control = float(np.mean(lifetimes(1, runs, 10, 0.0) >= 10))
expected = comb(20, 10) / 4**10

np.savez("raw.npz", n=ns.astype(float), lifetime=life)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"theta": theta},
    "positive_control": {"name": "single-walker survival at n=10", "expected": expected, "measured": control,
                         "passed": bool(abs(control - expected) < 0.005)},
    "verdict": ("supported" if abs(theta - k / 2) < 0.05 else "falsified") if drift == 0 else "inconclusive",
    "claim_quantity_computed": True,
}))
