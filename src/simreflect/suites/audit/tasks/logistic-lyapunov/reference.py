"""Reference audit: Lyapunov exponent of the logistic map at r = 4 (and of its k-th iterate).

Many orbits of x -> r x (1 - x) start from uniform random points; after a transient, the log of
|(f^k)'(x)| = sum of ln|r (1 - 2 x_j)| over k consecutive steps is recorded for each application
of the k-fold map. The exponent is the mean. Positive control: the same code at r = 2.5 (k = 1),
where orbits converge to the fixed point 0.6 and the exponent is ln|2 - r| = ln 0.5.
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
r, k, orbits, steps, transient = float(P["r"]), int(P["iterate"]), int(P["orbits"]), int(P["steps"]), int(P["transient"])


def log_derivatives(r, k, orbits, steps, transient):
    x = rng.uniform(0.01, 0.99, orbits)
    for _ in range(transient):
        x = r * x * (1 - x)
    out = np.zeros((steps, orbits))
    for s in range(steps):
        acc = np.zeros(orbits)
        for _ in range(k):
            acc += np.log(np.abs(r * (1 - 2 * x)) + 1e-300)
            x = r * x * (1 - x)
        out[s] = acc
    return out.ravel()


logs = log_derivatives(r, k, orbits, steps, transient)
lam = float(logs.mean())
control = float(log_derivatives(2.5, 1, 100, 200, 200).mean())

np.savez("raw.npz", log_derivs=logs)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"lyapunov": lam},
    "positive_control": {"name": "r=2.5 stable fixed point", "expected": float(np.log(0.5)), "measured": control,
                         "passed": bool(abs(control - np.log(0.5)) < 1e-3)},
    "verdict": "supported" if abs(lam - k * np.log(2)) < 0.02 * k else "falsified",
    "claim_quantity_computed": True,
}))
