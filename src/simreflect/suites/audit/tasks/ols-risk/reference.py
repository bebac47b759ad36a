"""Reference audit: excess risk of ordinary least squares with Gaussian design.

Each trial draws a design X (n x d, standard Gaussian rows), a true weight vector w, noise of
standard deviation sigma, fits w_hat by least squares and records the excess risk of a fresh
Gaussian input, E_x[(x . (w_hat - w))^2] = |w_hat - w|^2 (exact for x ~ N(0, I)). The estimate
is the mean over trials. Positive control: the same fit's residual variance RSS / (n - d), whose
expectation is sigma^2 exactly.
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
d, n, sigma, trials = int(P["d"]), int(P["n"]), float(P["sigma"]), int(P["trials"])

risks, s2 = [], []
for _ in range(trials):
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = X @ w + sigma * rng.normal(size=n)
    w_hat, rss, *_ = np.linalg.lstsq(X, y, rcond=None)
    risks.append(np.sum((w_hat - w) ** 2))
    s2.append(float(rss[0]) / (n - d))
risks = np.array(risks)
risk = float(risks.mean())
control = float(np.mean(s2))
theory = sigma**2 * d / (n - d - 1)

np.savez("raw.npz", excess_risk=risks)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"excess_risk": risk},
    "positive_control": {"name": "mean residual variance RSS/(n-d) = sigma^2", "expected": sigma**2,
                         "measured": control, "passed": bool(abs(control / sigma**2 - 1) < 0.03)},
    "verdict": "supported" if abs(risk / theory - 1) < 0.06 else "falsified",
    "claim_quantity_computed": True,
}))
