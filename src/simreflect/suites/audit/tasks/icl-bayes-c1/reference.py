"""Reference audit: ICL risk = Bayes gap + posterior variance (squared loss).

Our reconstruction (see the card): prompts are Bayesian linear regression tasks,
w ~ N(0, tau^2 I_d), context inputs and the query x ~ N(0, I_d), labels y = w . x + sigma noise.
The "model" is the uniform-attention linear read-out f(x) = x . (1/n) sum_i y_i x_i. The
Bayes-optimal in-context predictor is the posterior mean m(x) = x . mu_n with
mu_n = (X^T X + sigma^2/tau^2 I)^-1 X^T y, and the posterior predictive variance is
v(x) = sigma^2 + sigma^2 x^T (X^T X + sigma^2/tau^2 I)^-1 x. Over M prompts:
risk R = mean (f - y)^2, Bayes gap BG = mean (f - m)^2, posterior variance PV = mean v, and
identity_rel_diff = |R - BG - PV| / R (zero up to Monte Carlo error, because the cross term
E[(f - m)(m - y)] vanishes). Positive control: the same code with the Bayes predictor itself as
the model (f = m) must give R / PV = 1.
"""
import json

import numpy as np

P = json.load(open("params.json"))
rng = np.random.default_rng(int(P["seed"]))
d, n, sigma, tau, M = int(P["d"]), int(P["context_length"]), float(P["sigma"]), float(P["tau"]), int(P["prompts"])

w = tau * rng.normal(size=(M, d))
X = rng.normal(size=(M, n, d))
Y = np.einsum("mnd,md->mn", X, w) + sigma * rng.normal(size=(M, n))
xq = rng.normal(size=(M, d))
yq = np.einsum("md,md->m", xq, w) + sigma * rng.normal(size=M)

A = np.einsum("mnd,mne->mde", X, X) + (sigma**2 / tau**2) * np.eye(d)
b = np.einsum("mnd,mn->md", X, Y)
mu = np.linalg.solve(A, b[..., None])[..., 0]
f = np.einsum("md,md->m", xq, b / n)
m = np.einsum("md,md->m", xq, mu)
v = sigma**2 + sigma**2 * np.einsum("md,md->m", xq, np.linalg.solve(A, xq[..., None])[..., 0])

R, BG, PV = float(np.mean((f - yq) ** 2)), float(np.mean((f - m) ** 2)), float(np.mean(v))
rel = abs(R - BG - PV) / R
control = float(np.mean((m - yq) ** 2) / PV)

np.savez("raw.npz", f=f, m=m, y=yq, v=v)
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"risk": R, "bayes_gap": BG, "posterior_variance": PV, "identity_rel_diff": rel},
    "positive_control": {"name": "Bayes predictor as the model: R / PV = 1", "expected": 1.0, "measured": control,
                         "passed": bool(abs(control - 1) < 0.02)},
    "verdict": "supported" if rel < 0.02 else "falsified",
    "claim_quantity_computed": True,
}))
